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
/* Appends to out one warning per section for a tool this build lacks
 * (its kind configured out), each starting with source. */
void policy_rules_warnings(const struct policy_rules *r, const char *source, json_t *out);
/* For status and `glovebox policy check`: the rules as JSON (new). */
json_t *policy_rules_describe(const struct policy_rules *r);

/* The commands rule for what a tool is about to execute: path is the
 * absolute file (core/program_path.h), argv as given. NULL when allowed or
 * the tool has no such rule, else a malloc'd refusal. */
char *policy_rules_check_exec(const struct policy_rules *r, const char *tool, const char *path,
                              const char *const *argv);
