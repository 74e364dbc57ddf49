/* A native app's page source (Appium) read into elements: role, name,
 * value, states and bounds, in document order with their depth. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

/* Page source read at most, and elements kept. */
#define NATIVE_MAX_SOURCE   (8u << 20)
#define NATIVE_MAX_ELEMENTS 5000

struct native_el {
    char *role, *name, *value, *resource_id; /* value, resource_id may be NULL */
    int x, y, width, height;
    int depth;
    bool enabled, focused, checkable, checked, selected, clickable, scrollable, editable, password,
        hidden;
};

struct native_tree {
    struct native_el *els;
    size_t n, cap;
    size_t cut; /* meaningful elements past NATIVE_MAX_ELEMENTS */
};

/* False with *err only when the source is over its bound: whatever else is
 * there is read tolerantly. */
bool native_tree_parse(const char *xml, size_t len, struct native_tree *t, char **err);
void native_tree_finish(struct native_tree *t);
void native_el_finish(struct native_el *e);
