/* What a model sees of an accessibility tree: a compact outline and a
 * structured element list, each element named by a ref ("e12"). Refs count
 * up across snapshots of a session, so a ref from an older snapshot is told
 * apart from a current one. Pure functions: no D-Bus here. */
#pragma once
#include "backend/desktop/perceive/atspi.h"

#include <jansson.h>
#include <stdbool.h>

/* One element as JSON: {ref, role, name, value?, states[], bounds{x,y,width,
 * height}?, parent?, depth}. first_ref is the ref number of nodes[0]. */
json_t *tree_element_json(const struct atspi_tree *t, int i, int first_ref);
/* Every element, in outline order. */
json_t *tree_elements_json(const struct atspi_tree *t, int first_ref);
/* Indented lines: `e3 push button "OK" [default] (516,402 86x34)`. Caller
 * frees. "(no accessible elements)" when empty. */
char *tree_outline(const struct atspi_tree *t, int first_ref);
/* Does element i match? text: substring of name or value, case-insensitive
 * (exact: the whole name or value, case-sensitive); role: equal, ignoring
 * case. NULL criteria match anything. */
bool tree_matches(const struct atspi_node *n, const char *text, bool exact, const char *role);
/* Parse "e12" into 12; false if it is not a ref. */
bool tree_parse_ref(const char *ref, int *num);
