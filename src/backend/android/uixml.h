/* uiautomator's window dump (`uiautomator dump /dev/tty`) parsed into a flat
 * list of nodes. A small bounded parser for the one shape that tool writes
 * (<hierarchy> of nested <node attr="…"> elements): no external entities, no
 * DTD, limits on nodes, depth and size; anything else is refused with the
 * offset where it went wrong. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#define UIXML_MAX_NODES 5000
#define UIXML_MAX_DEPTH 200

struct ui_node {
    char *cls, *text, *desc, *resource_id, *package; /* never NULL ("" when absent) */
    int x1, y1, x2, y2;                              /* bounds, screen pixels */
    bool has_bounds;
    bool password, checked, checkable, focused, focusable, enabled, clickable, selected, scrollable;
    int depth; /* 0: a child of <hierarchy> */
};

struct ui_tree {
    struct ui_node *nodes; /* in document order */
    size_t n;
};

/* text: what the dump printed (the XML, maybe followed by uiautomator's
 * "UI hierchary dumped to: …" line). False with *err (caller frees). */
bool uixml_parse(const char *text, size_t len, struct ui_tree *out, char **err);
void uixml_free(struct ui_tree *t);
