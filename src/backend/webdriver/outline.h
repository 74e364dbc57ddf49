/* How a WebDriver session shows and matches the elements of a snapshot:
 * one outline line per element and one text matcher, for the page (a page
 * script's elements) and for native apps (Appium's page source). The two
 * differ only in which states go unsaid, which fields hold text and what a
 * cut snapshot advises. */
#pragma once
#include "backend/backend.h"
#include "core/strbuf.h"

#include <jansson.h>
#include <stdbool.h>

struct wd_element_view {
    const char *const *quiet_states; /* states the outline leaves out; NULL-terminated */
    bool show_value;                 /* the outline gives the value: = "…" */
    const char *const *text_fields;  /* where text is looked for; NULL-terminated */
    const char *advice; /* after a truncation note ("; snapshot a part …"), or NULL */
};

/* One element (ref, role, name, value, states, depth) as an outline line. */
void wd_outline_line(struct strbuf *sb, const json_t *e, const struct wd_element_view *v);
/* Whether e has role (any case; NULL: any) and text (NULL: any) in one of
 * the view's text fields: the whole field when exact, else a part of it in
 * any case. */
bool wd_element_matches(const json_t *e, const struct wd_element_view *v, const char *text,
                        const char *role, bool exact);
/* snapshot: the elements (els, stolen; total before max_elements cut them)
 * answered on bc with their outline. */
void wd_snapshot_answer(struct backend_call *bc, json_t *els, size_t total,
                        const struct wd_element_view *v);
/* find: the elements (els, stolen) matching bc's text, role and exact, up
 * to its limit, answered on bc with their outline. */
void wd_find_answer(struct backend_call *bc, json_t *els, const struct wd_element_view *v);
