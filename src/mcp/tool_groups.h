/* The groups tools are served by (`glovebox serve --tools GROUPS`): each
 * tool names its group in struct tool; a deployment serves only the groups
 * it names, and the tools of the others answer as unknown tools. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

struct tool_group {
    const char *name;
    bool by_default; /* served without --tools */
};

/* The documented groups, in the order docs/tools.md lists them. */
const struct tool_group *tool_groups(size_t *count);
bool tool_group_known(const char *name);

/* Parse "sessions,perception,input" (commas, optional spaces; "default" for
 * the groups served by default, "all" for every group) into a new
 * NULL-terminated list of names, or NULL with *err (new) naming the unknown
 * or empty entry and the known ones. With "all" the list is empty, which
 * selects every group. */
char **tool_groups_parse(const char *spec, char **err);
void tool_groups_free(char **list);
