/* Elements of a device's screen shared by perceive.c and act.c. */
#pragma once
#include "backend/android/internal.h"

#include <jansson.h>
#include <stdbool.h>

/* Whether element e (a snapshot element) has text (in its name, description
 * or resource id; whole and case-sensitive when exact) and role (NULL: any). */
bool android_element_matches(const json_t *e, const char *text, const char *role, bool exact);
/* From a dump reply: the bounds of the first element matching text/role
 * (refs renewed). False when bc was answered (a bad dump; no such element,
 * unless missing is given: then *missing is set and bc not answered). */
bool android_find_target(struct backend_call *bc, const struct adb_reply *r, const char *text,
                         const char *role, bool exact, struct android_ref *out, bool *missing);
/* bc answered not_found: no element has the text (ocr: nor the pixels). */
void android_no_text(struct backend_call *bc, const char *text, const char *role, bool ocr);

struct ui_node;
/* Whether node u of a later dump is the element ref r named (same package,
 * class and resource id; same name when the ref keeps one). */
bool android_ref_is(const struct android_ref *r, const struct ui_node *u);
/* The element ref names in the latest snapshot or find, or NULL with bc
 * answered not_found (the message after prefix). */
const struct android_ref *android_ref_lookup(struct backend_call *bc, const char *ref,
                                             const char *prefix);
/* A dump that failed on the device (not a device that went away): no
 * window hierarchy to read ("could not get idle state", a secure window). */
bool android_no_hierarchy(const struct adb_reply *r);
/* A ref's own copy (wait_for keeps it while snapshots renew the refs). */
void android_ref_copy(struct android_ref *to, const struct android_ref *from);
void android_ref_finish(struct android_ref *r);
/* What a node is called: its text, else its description ("" when none). */
const char *android_node_name(const struct ui_node *u);
