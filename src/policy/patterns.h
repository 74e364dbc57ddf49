/* The lists of a policy file — tool names, programs, displays, hosts,
 * window titles — as NULL-terminated arrays of '*' patterns. */
#pragma once
#include <jansson.h>

/* v must be an array of non-empty strings. NULL with *err naming where
 * ("allow", "rules.launch_app.commands") and what was expected: plural
 * ("tool names") for the array, item ("tool name or pattern") for one. */
char **policy_patterns_parse(const json_t *v, const char *where, const char *plural,
                             const char *item, char **err);
void policy_patterns_free(char **list); /* NULL ok */
/* The first pattern matching name, or NULL. */
const char *policy_patterns_first_match(char *const *list, const char *name);
/* The list as a JSON array (new). */
json_t *policy_patterns_json(char *const *list);
