/* Argument rules of a policy: which programs terminal_start, desktop_start
 * and launch_app may run, which existing displays desktop_start may attach
 * to, which hosts the network tools may reach, and which windows input must
 * never go to. A tool the policy allows is still refused when its arguments
 * break its rule. */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct policy_rules;

/* doc: the policy's "rules" object (NULL: no rules). NULL with *err naming
 * the field when it is malformed; an empty set of rules when doc is NULL. */
struct policy_rules *policy_rules_parse(const json_t *doc, char **err);
void policy_rules_destroy(struct policy_rules *r);

/* NULL when tool's args keep to the rules, else a malloc'd refusal naming
 * the argument, the value and the rule. */
char *policy_rules_check(const struct policy_rules *r, const char *tool, const json_t *args);
/* Whether input must not go to a window with this title or application
 * (either may be NULL). */
bool policy_rules_input_blocked(const struct policy_rules *r, const char *title, const char *app);
/* For status and `glovebox policy check`: the rules as JSON (new). */
json_t *policy_rules_describe(const struct policy_rules *r);

/* Whether program (argv[0]) matches pattern: a pattern with a '/' is
 * matched against the program's path (as given, or found through PATH); one
 * without against its file name, and a program given with a path must then
 * sit in a folder of glovebox's PATH. '*' is a wildcard. */
bool policy_program_matches(const char *pattern, const char *program);
