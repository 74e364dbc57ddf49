/* Elements of a device's screen shared by perceive.c and act.c. */
#pragma once
#include "backend/android/internal.h"

#include <jansson.h>
#include <stdbool.h>

/* Whether element e (a snapshot element) has text (in its name, description
 * or resource id; whole and case-sensitive when exact) and role (NULL: any). */
bool android_element_matches(const json_t *e, const char *text, const char *role, bool exact);
/* From a dump reply: the bounds of the first element matching text/role
 * (refs renewed). False when bc was answered (no such element, bad dump). */
bool android_find_target(struct backend_call *bc, const struct adb_reply *r, const char *text,
                         const char *role, bool exact, struct android_ref *out);
