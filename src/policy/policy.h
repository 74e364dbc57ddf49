/* The permission policy: which tools an agent may see and call. Fail closed:
 * without a policy file, read-only tools are allowed and every tool that
 * changes anything is denied, with a message that says how to allow it. */
#pragma once
#include "mcp/gate.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

enum policy_mode {
    POLICY_PASSIVE,   /* observe only */
    POLICY_ASSIST,    /* changes need a person's confirmation */
    POLICY_AUTOPILOT, /* the policy alone decides */
};

struct policy;

/* No file: read-only tools only. */
struct policy *policy_create_default(void);
/* Everything allowed (--allow-all, GLOVEBOX_ALLOW_ALL=1). */
struct policy *policy_create_allow_all(void);
/* Parse a policy document; NULL with *err (malloc'd, names the field). */
struct policy *policy_create_from_json(const json_t *doc, char **err);
/* Read and parse a file; NULL with *err. */
struct policy *policy_load(const char *path, char **err);
void policy_destroy(struct policy *p);

/* The policy files used when --policy is not given, each a malloc'd path
 * of an existing file or NULL: the user's own
 * ($XDG_CONFIG_HOME/glovebox/policy.json) and the project's
 * (./.glovebox/policy.json). */
void policy_find_files(char **user, char **project);
/* Where the user's own policy lives, whether or not it exists:
 * $XDG_CONFIG_HOME/glovebox/policy.json, else ~/.config/glovebox/policy.json;
 * malloc'd, NULL when neither variable is set. */
char *policy_user_path(void);
/* Load the user's and the project's policy: the project's narrows the
 * user's (policy_narrow_with), and without a user file it narrows the
 * built-in read-only policy (policy_create_default), so a project file
 * never allows more than the default. NULL with *err naming the file; NULL
 * with *err untouched when neither is given. */
struct policy *policy_load_layers(const char *user, const char *project, char **err);
/* project (owned from now on, may be NULL) must also allow every call p
 * allows: calls pass both, the stricter mode and confirmation win, blocked
 * windows, redactions and rate limits add up. */
void policy_narrow_with(struct policy *p, struct policy *project);
/* The project policy under p, or NULL. */
const struct policy *policy_narrowed_by(const struct policy *p);

/* '*' matches any run of characters (including none); nothing else is special. */
bool policy_glob_match(const char *pattern, const char *name);

bool policy_allows(const struct policy *p, const char *tool, bool read_only);
/* For people: "allowed (allow \"terminal_*\")", "denied (deny \"x\")",
 * "needs confirmation (mode assist)", … malloc'd. */
char *policy_explain(const struct policy *p, const char *tool, bool read_only);
/* NULL when allowed, else a malloc'd explanation with how to allow it. */
char *policy_refusal(const struct policy *p, const char *tool, bool read_only);

/* NULL when the call may run without asking; else a malloc'd reason a person
 * must confirm it ("the mode is assist", "<tool> matches \"type_*\" in
 * \"confirm\" in policy.json"). Only meaningful for allowed tools. */
char *policy_confirmation(const struct policy *p, const char *tool, bool read_only);
#define POLICY_CONFIRM_TIMEOUT_S 60
/* Seconds an unanswered confirmation waits before it counts as declined. */
unsigned policy_confirm_timeout_s(const struct policy *p);

enum policy_mode policy_mode(const struct policy *p);
void policy_set_mode(struct policy *p, enum policy_mode mode);
const char *policy_mode_name(enum policy_mode mode);
bool policy_mode_parse(const char *name, enum policy_mode *mode);
bool policy_is_allow_all(const struct policy *p);
/* The file it came from, or NULL. */
const char *policy_source(const struct policy *p);

/* For status: {"mode" (in force), "allow_all", "source" (file or null),
 * "allow", "deny", "confirm", "confirm_timeout_s", "rules", "rate_limits",
 * "redact", "loaded_at", "error" (the last failed reload, or null),
 * "pending" (a widening waiting for glovebox policy apply, or null),
 * "narrowed_by" (the project policy, described the same way, or null)}. */
json_t *policy_describe(const struct policy *p);
/* The same for p's own file only (no narrowing, its own mode). */
json_t *policy_describe_own(const struct policy *p);
/* NULL when to is provably no wider than from (own files only, not their
 * narrowing); else a malloc'd reason ("\"allow\" gains \"*\""). Anything
 * it cannot prove narrower counts as wider. from NULL: NULL. */
char *policy_widening(const struct policy *to, const struct policy *from);
/* A reload that widens and waits for the person (status "pending"); NULL
 * clears it. */
void policy_set_pending(struct policy *p, const char *why);
/* A one-line summary for people. malloc'd. */
char *policy_summary(const struct policy *p);

/* NULL when args keep to the policy's argument rules for tool, else a
 * malloc'd refusal naming the argument, value and rule. */
char *policy_check_arguments(const struct policy *p, const char *tool, const json_t *args);
/* The commands rule for what tool is about to execute: path is the
 * absolute file that will run (core/program_path.h), argv as given. NULL
 * when allowed (or p is NULL), else a malloc'd refusal. */
char *policy_check_exec(const struct policy *p, const char *tool, const char *path,
                        const char *const *argv);
/* Whether input must not go to this window (title or application may be
 * NULL); false for a NULL policy. */
bool policy_input_blocked(const struct policy *p, const char *window_title, const char *app);
/* The windows input must keep away from, {"blocked_windows": [...],
 * "blocked_apps": [...]} (a new copy), or NULL when nothing is blocked. */
json_t *policy_blocked_input(const struct policy *p);
/* The screen rectangles desktop screenshots paint over ([{x, y, width,
 * height}], a new copy), or NULL. */
json_t *policy_redact_regions(const struct policy *p);
/* Rate limits: NULL and a token taken, or a malloc'd refusal with
 * *retry_after_ms. now_ms is monotonic. */
char *policy_rate_check(struct policy *p, const char *tool, uint64_t now_ms,
                        uint64_t *retry_after_ms);
/* After a reload: to keeps from's rate-limit fill where the limits are the
 * same. */
void policy_carry_over(struct policy *to, const struct policy *from);
bool policy_mode_in_file(const struct policy *p);
/* A failed reload of the file: kept on the policy still in force, for
 * status ("error"); NULL clears it. */
void policy_set_reload_error(struct policy *p, const char *err);

/* Names in "allow", "deny", "confirm" and "rate_limits.tools" of the
 * policy's files (and the project's under it) that no registered tool has
 * ("policy.json: \"deny\" names \"terminl_start\", but no tool has that
 * name; it has no effect"): an array of strings, new, empty when none.
 * Rules for an unknown tool are refused when the policy is read instead. */
json_t *policy_warnings(const struct policy *p);

/* The gate to install in struct app; ud is the policy. */
struct mcp_gate policy_gate(struct policy *p);
