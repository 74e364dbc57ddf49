/* The "commands" rule of terminal_start, desktop_start and launch_app: which
 * programs may run, and with which arguments. An entry is either a program
 * pattern ("bash": that program with any arguments) or an object
 * {"program": "git", "args": ["log", "*"]} that also fixes the arguments:
 * one pattern per argument ('*' matches within one argument), and a last
 * pattern "..." for any further arguments. Programs are matched against the
 * absolute path that will be executed (core/program_path.h). */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct policy_commands;

/* v: the rule's array; where: "rules.terminal_start.commands" for errors.
 * NULL with *err naming the item and what was expected. */
struct policy_commands *policy_commands_parse(const json_t *v, const char *where, char **err);
void policy_commands_destroy(struct policy_commands *c); /* NULL ok */

/* NULL when some entry allows path (absolute, normal) with argv (argv[0] as
 * given; the arguments follow); else a malloc'd refusal for tool, naming the
 * entry whose program matched or the programs allowed. */
char *policy_commands_check(const struct policy_commands *c, const char *tool, const char *where,
                            const char *path, const char *const *argv);
/* The rule as written (new reference). */
json_t *policy_commands_json(const struct policy_commands *c);

/* Whether program (an absolute, normal path) matches pattern: a pattern with
 * a '/' is matched against the whole path; one without against its file
 * name, and the file must sit in a folder of glovebox's PATH (absolute
 * entries only). '*' is a wildcard. */
bool policy_program_matches(const char *pattern, const char *program);
