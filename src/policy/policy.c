/* Policy documents, tool-name matching and the decision itself. */
#include "policy/policy.h"

#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/tool.h"
#include "policy/patterns.h"
#include "policy/rate.h"
#include "policy/rules.h"
#include "policy/screen.h"

#include <time.h>
#include <unistd.h>
#include <uv.h>

#include <stdlib.h>
#include <string.h>

struct policy {
    bool allow_all;
    bool from_file;
    enum policy_mode mode;
    char **allow; /* NULL-terminated patterns */
    char **deny;
    char *source;
    char **confirm;             /* patterns that always need a person's confirmation */
    unsigned confirm_timeout_s; /* an unanswered confirmation declines after this */
    struct policy_rules *rules; /* argument rules; never NULL */
    struct rate_limits *rates;  /* NULL: no limits */
    bool mode_from_file;        /* the file said "mode" */
    json_t *redact;             /* [{x, y, width, height}] painted over in desktop screenshots */
    time_t loaded_at;
    char *reload_error; /* the last failed reload while this policy stayed, or NULL */
    char *pending;      /* a reload that widens, waiting for glovebox policy apply, or NULL */
    /* The project's policy (./.glovebox/policy.json) under the user's: a call
     * must pass both, so a project can narrow but never widen. Owned; NULL
     * when there is none. */
    struct policy *narrow;
    /* What screen calls are given (policy/screen.h), made on first use;
     * screen_built tells "nothing restricted" (NULL) from "not yet". */
    struct policy_screen *screen;
    bool screen_built;
};

static struct policy *policy_new(void)
{
    struct policy *p = xcalloc(1, sizeof *p);
    p->mode = POLICY_AUTOPILOT;
    p->allow = xcalloc(1, sizeof *p->allow);
    p->deny = xcalloc(1, sizeof *p->deny);
    p->confirm = xcalloc(1, sizeof *p->confirm);
    p->confirm_timeout_s = POLICY_CONFIRM_TIMEOUT_S;
    p->rules = policy_rules_parse(NULL, NULL);
    p->loaded_at = time(NULL);
    return p;
}

struct policy *policy_create_default(void)
{
    return policy_new();
}

struct policy *policy_create_allow_all(void)
{
    struct policy *p = policy_new();
    p->allow_all = true;
    return p;
}

void policy_destroy(struct policy *p)
{
    if (!p)
        return;
    policy_patterns_free(p->allow);
    policy_patterns_free(p->deny);
    policy_patterns_free(p->confirm);
    policy_rules_destroy(p->rules);
    rate_limits_destroy(p->rates);
    free(p->reload_error);
    free(p->pending);
    policy_destroy(p->narrow);
    json_decref(p->redact);
    policy_screen_unref(p->screen);
    free(p->source);
    free(p);
}

static bool parse_list(const json_t *doc, const char *key, char ***out, char **err)
{
    const json_t *v = json_object_get(doc, key);
    if (!v)
        return true;
    char **list = policy_patterns_parse(v, key, "tool names", "tool name or pattern", err);
    if (!list)
        return false;
    policy_patterns_free(*out);
    *out = list;
    return true;
}

static bool parse_confirm_timeout(const json_t *doc, struct policy *p, char **err)
{
    const json_t *v = json_object_get(doc, "confirm_timeout_s");
    if (!v)
        return true;
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 3600) {
        *err = xstrdup("\"confirm_timeout_s\" must be a whole number of seconds, 1..3600");
        return false;
    }
    p->confirm_timeout_s = (unsigned)json_integer_value(v);
    return true;
}

/* "redact": [{"x": 0, "y": 0, "width": 300, "height": 40}, …] */
static bool parse_redact(const json_t *doc, struct policy *p, char **err)
{
    const json_t *v = json_object_get(doc, "redact");
    if (!v)
        return true;
    if (!json_is_array(v)) {
        *err = xstrdup("\"redact\" must be an array of {x, y, width, height} screen rectangles");
        return false;
    }
    size_t i;
    const json_t *r;
    json_array_foreach(v, i, r)
    {
        static const char *const keys[] = {"x", "y", "width", "height"};
        bool ok = json_is_object(r) && json_object_size(r) == 4;
        for (int k = 0; ok && k < 4; k++) {
            const json_t *n = json_object_get(r, keys[k]);
            ok = json_is_integer(n) && json_integer_value(n) >= (k < 2 ? 0 : 1) &&
                 json_integer_value(n) <= 100000;
        }
        if (!ok) {
            *err = xasprintf("\"redact\"[%zu] must be {\"x\", \"y\", \"width\", \"height\"}: "
                             "whole numbers of pixels, the size at least 1",
                             i);
            return false;
        }
    }
    p->redact = json_deep_copy(v);
    return true;
}

struct policy *policy_create_from_json(const json_t *doc, char **err)
{
    if (!json_is_object(doc)) {
        *err = xstrdup("a policy must be a JSON object");
        return NULL;
    }
    static const char *const known[] = {"$comment", "mode",        "allow",
                                        "deny",     "confirm",     "confirm_timeout_s",
                                        "rules",    "rate_limits", "redact"};
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)doc, key, value)
    {
        bool ok = false;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok) {
            *err = xasprintf("unknown field \"%.100s\" (expected mode, allow, deny, confirm, "
                             "confirm_timeout_s, rules, rate_limits, redact)",
                             key);
            return NULL;
        }
    }
    struct policy *p = policy_new();
    p->from_file = true;
    const json_t *mode = json_object_get(doc, "mode");
    if (mode && (!json_is_string(mode) || !policy_mode_parse(json_string_value(mode), &p->mode))) {
        *err = xstrdup("\"mode\" must be \"passive\", \"assist\" or \"autopilot\"");
        policy_destroy(p);
        return NULL;
    }
    p->mode_from_file = mode != NULL;
    if (!parse_list(doc, "allow", &p->allow, err) || !parse_list(doc, "deny", &p->deny, err) ||
        !parse_list(doc, "confirm", &p->confirm, err) || !parse_confirm_timeout(doc, p, err)) {
        policy_destroy(p);
        return NULL;
    }
    policy_rules_destroy(p->rules);
    p->rules = policy_rules_parse(json_object_get(doc, "rules"), err);
    const json_t *rates = json_object_get(doc, "rate_limits");
    if (p->rules && rates)
        p->rates = rate_limits_parse(rates, err);
    if (!p->rules || (rates && !p->rates) || !parse_redact(doc, p, err)) {
        policy_destroy(p);
        return NULL;
    }
    return p;
}

struct policy *policy_load(const char *path, char **err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        *err = xasprintf("%s: line %d: %s", path, jerr.line, jerr.text);
        return NULL;
    }
    char *why = NULL;
    struct policy *p = policy_create_from_json(doc, &why);
    json_decref(doc);
    if (!p) {
        *err = xasprintf("%s: %s", path, why);
        free(why);
        return NULL;
    }
    p->source = xstrdup(path);
    return p;
}

bool policy_glob_match(const char *pattern, const char *name)
{
    /* Iterative matching with one backtrack point: linear enough for names. */
    const char *star = NULL, *resume = NULL;
    while (*name) {
        if (*pattern == '*') {
            star = pattern++;
            resume = name;
        } else if (*pattern == *name) {
            pattern++;
            name++;
        } else if (star) {
            pattern = star + 1;
            name = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

static bool matches_any(char *const *list, const char *name)
{
    return policy_patterns_first_match(list, name) != NULL;
}

/* A tool that only ever lowers privileges (mcp/tool.h), such as set_mode. */
static bool lowers_privilege(const char *tool)
{
    const struct tool_entry *e = registry_find(tool);
    return e && e->tool->lowers_privilege;
}

static bool allows(const struct policy *p, const char *tool, bool read_only)
{
    /* --allow-all lifts the lists, not the mode: passive, set by the
     * person or by the agent lowering it, must still stop an agent. */
    if (p->allow_all)
        return read_only || p->mode != POLICY_PASSIVE || lowers_privilege(tool);
    if (matches_any(p->deny, tool)) /* deny wins */
        return false;
    /* A tool that only ever lowers privileges: fail-closed never needs to hide it. */
    if (read_only || lowers_privilege(tool))
        return true;
    if (p->mode == POLICY_PASSIVE)
        return false;
    /* "confirm" allows a tool once a person says yes. */
    return matches_any(p->allow, tool) || matches_any(p->confirm, tool);
}

bool policy_allows(const struct policy *p, const char *tool, bool read_only)
{
    return allows(p, tool, read_only) && (!p->narrow || policy_allows(p->narrow, tool, read_only));
}

static char *refusal(const struct policy *p, const char *tool, bool read_only)
{
    if (allows(p, tool, read_only))
        return NULL;
    if (matches_any(p->deny, tool))
        return xasprintf("Denied by policy: %s matches a \"deny\" rule in %s. Remove it from "
                         "\"deny\" to allow it.",
                         tool, p->source ? p->source : "the policy");
    if (p->mode == POLICY_PASSIVE)
        return xasprintf("Denied by policy: %s changes something and the mode is passive "
                         "(observe only). A person can change the mode with glovebox serve "
                         "--mode autopilot or \"mode\" in the policy file.",
                         tool);
    if (!p->from_file) {
        /* Only the person's own file (or --policy) can allow more: a project
         * file comes with whatever was cloned, so it may only narrow. */
        char *user = policy_user_path();
        char *out = xasprintf(
            "Denied by policy: you have no policy of your own, so glovebox is read-only. To "
            "allow %s, put {\"allow\": [\"%s\"]} in your policy, %s (glovebox policy init "
            "writes a starter), or start glovebox serve with --policy PATH (see "
            "docs/policy.md); a project's ./.glovebox/policy.json can only narrow, never allow "
            "more. In a sandbox: --allow-all.",
            tool, tool, user ? user : "$XDG_CONFIG_HOME/glovebox/policy.json");
        free(user);
        return out;
    }
    return xasprintf("Denied by policy: %s is not in \"allow\" in %s. Add \"%s\" (or a pattern "
                     "such as \"terminal_*\") to \"allow\" to permit it.",
                     tool, p->source, tool);
}

char *policy_refusal(const struct policy *p, const char *tool, bool read_only)
{
    char *why = refusal(p, tool, read_only);
    return why || !p->narrow ? why : policy_refusal(p->narrow, tool, read_only);
}

enum policy_mode policy_mode(const struct policy *p)
{
    /* The stricter of the two layers. */
    enum policy_mode inner = p->narrow ? policy_mode(p->narrow) : POLICY_AUTOPILOT;
    return p->mode < inner ? p->mode : inner;
}

void policy_set_mode(struct policy *p, enum policy_mode mode)
{
    p->mode = mode;
    if (p->narrow)
        policy_set_mode(p->narrow, mode);
}

void policy_narrow_with(struct policy *p, struct policy *project)
{
    policy_destroy(p->narrow);
    p->narrow = project;
    /* The project's blocked windows and redactions add up with p's. */
    policy_screen_unref(p->screen);
    p->screen = NULL;
    p->screen_built = false;
}

const struct policy *policy_narrowed_by(const struct policy *p)
{
    return p->narrow;
}

void policy_set_pending(struct policy *p, const char *why)
{
    free(p->pending);
    p->pending = why ? xstrdup(why) : NULL;
}

static const char *const mode_names[] = {"passive", "assist", "autopilot"};

const char *policy_mode_name(enum policy_mode mode)
{
    return mode_names[mode];
}

bool policy_mode_parse(const char *name, enum policy_mode *mode)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(name, mode_names[i]) == 0) {
            *mode = (enum policy_mode)i;
            return true;
        }
    }
    return false;
}

bool policy_is_allow_all(const struct policy *p)
{
    return p->allow_all;
}

const char *policy_source(const struct policy *p)
{
    return p->source;
}

static char *existing(char *path)
{
    if (path && access(path, F_OK) == 0)
        return path;
    free(path);
    return NULL;
}

char *policy_user_path(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    return xdg && *xdg     ? xasprintf("%s/glovebox/policy.json", xdg)
           : home && *home ? xasprintf("%s/.config/glovebox/policy.json", home)
                           : NULL;
}

void policy_find_files(char **user, char **project)
{
    *user = existing(policy_user_path());
    *project = existing(xstrdup(".glovebox/policy.json"));
    /* The same file reached both ways is one policy, not two. */
    if (*user && *project) {
        char *a = realpath(*user, NULL), *b = realpath(*project, NULL);
        if (a && b && strcmp(a, b) == 0) {
            free(*project);
            *project = NULL;
        }
        free(a);
        free(b);
    }
}

struct policy *policy_load_layers(const char *user, const char *project, char **err)
{
    struct policy *p = user ? policy_load(user, err) : NULL;
    if (user && !p)
        return NULL;
    struct policy *q = project ? policy_load(project, err) : NULL;
    if (project && !q) {
        policy_destroy(p);
        return NULL;
    }
    if (!p && !q)
        return NULL;
    /* Without a file of the person's own, the built-in read-only policy is
     * theirs: a project file (cloned with the repository) narrows it too. */
    if (!p)
        p = policy_create_default();
    policy_narrow_with(p, q);
    return p;
}

json_t *policy_describe(const struct policy *p)
{
    json_t *o = policy_describe_own(p);
    json_object_set_new(o, "mode", json_string(policy_mode_name(policy_mode(p))));
    json_object_set_new(o, "narrowed_by", p->narrow ? policy_describe_own(p->narrow) : json_null());
    json_object_set_new(o, "pending", p->pending ? json_string(p->pending) : json_null());
    return o;
}

json_t *policy_describe_own(const struct policy *p)
{
    json_t *o = json_pack("{s:s, s:b, s:s?, s:o, s:o}", "mode", policy_mode_name(p->mode),
                          "allow_all", p->allow_all, "source", p->source, "allow",
                          policy_patterns_json(p->allow), "deny", policy_patterns_json(p->deny));
    json_object_set_new(o, "confirm", policy_patterns_json(p->confirm));
    json_object_set_new(o, "confirm_timeout_s", json_integer(p->confirm_timeout_s));
    json_object_set_new(o, "rules", policy_rules_describe(p->rules));
    json_object_set_new(o, "rate_limits", rate_limits_describe(p->rates));
    json_object_set_new(o, "redact", p->redact ? json_deep_copy(p->redact) : json_array());
    char when[32];
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&p->loaded_at, &tm));
    json_object_set_new(o, "loaded_at", json_string(when));
    json_object_set_new(o, "error", p->reload_error ? json_string(p->reload_error) : json_null());
    return o;
}

char *policy_summary(const struct policy *p)
{
    if (p->allow_all)
        return xstrdup("WARNING: --allow-all, every tool is allowed");
    if (!p->from_file)
        return xasprintf("no policy of your own: read-only%s%s (mode %s)",
                         p->narrow ? ", narrowed by the project's " : "",
                         p->narrow ? p->narrow->source : "", policy_mode_name(policy_mode(p)));
    return xasprintf("policy %s%s%s, mode %s%s%s", p->source, p->narrow ? " narrowed by " : "",
                     p->narrow ? p->narrow->source : "", policy_mode_name(policy_mode(p)),
                     p->pending ? "; a wider policy waits for glovebox policy apply: " : "",
                     p->pending ? p->pending : "");
}

static bool gate_visible(void *ud, const struct tool *tool)
{
    return policy_allows(ud, tool->name, tool->annotations.read_only);
}

static char *explain(const struct policy *p, const char *tool, bool read_only);

char *policy_explain(const struct policy *p, const char *tool, bool read_only)
{
    if (p->narrow && allows(p, tool, read_only) && !policy_allows(p->narrow, tool, read_only)) {
        char *inner = policy_explain(p->narrow, tool, read_only);
        char *out = xasprintf("%s by the project policy %s", inner, p->narrow->source);
        free(inner);
        return out;
    }
    return explain(p, tool, read_only);
}

static char *explain(const struct policy *p, const char *tool, bool read_only)
{
    const char *deny = policy_patterns_first_match(p->deny, tool);
    if (!allows(p, tool, read_only)) {
        if (deny && !p->allow_all)
            return xasprintf("denied (deny \"%s\")", deny);
        if (p->mode == POLICY_PASSIVE)
            return xstrdup("denied (mode passive: observe only)");
        return xstrdup(p->from_file ? "denied (not in allow)"
                                    : "denied (no policy of your own: read-only)");
    }
    char *confirm = policy_confirmation(p, tool, read_only);
    if (confirm) {
        const char *c = policy_patterns_first_match(p->confirm, tool);
        char *out = c ? xasprintf("needs confirmation (confirm \"%s\")", c)
                      : xstrdup("needs confirmation (mode assist)");
        free(confirm);
        return out;
    }
    if (p->allow_all)
        return xstrdup("allowed (--allow-all)");
    if (read_only)
        return xstrdup("allowed (read-only)");
    if (lowers_privilege(tool))
        return xstrdup("allowed (only ever lowers the mode)");
    return xasprintf("allowed (allow \"%s\")", policy_patterns_first_match(p->allow, tool));
}

static char *confirmation(const struct policy *p, const char *tool, bool read_only);

char *policy_confirmation(const struct policy *p, const char *tool, bool read_only)
{
    char *why = confirmation(p, tool, read_only);
    return why || !p->narrow ? why : policy_confirmation(p->narrow, tool, read_only);
}

static char *confirmation(const struct policy *p, const char *tool, bool read_only)
{
    for (char *const *s = p->confirm; *s; s++)
        if (policy_glob_match(*s, tool))
            return xasprintf("%s matches \"%s\" in \"confirm\" in %s", tool, *s,
                             p->source ? p->source : "the policy");
    /* Lowering privileges is never worth a person's time. */
    if (p->mode == POLICY_ASSIST && !read_only && !lowers_privilege(tool))
        return xstrdup("the mode is assist (every change needs a person's confirmation)");
    return NULL;
}

unsigned policy_confirm_timeout_s(const struct policy *p)
{
    unsigned inner = p->narrow ? policy_confirm_timeout_s(p->narrow) : p->confirm_timeout_s;
    return p->confirm_timeout_s < inner ? p->confirm_timeout_s : inner;
}

char *policy_check_arguments(const struct policy *p, const char *tool, const json_t *args)
{
    char *why = p->allow_all ? NULL : policy_rules_check(p->rules, tool, args);
    return why || !p->narrow ? why : policy_check_arguments(p->narrow, tool, args);
}

char *policy_check_exec(const struct policy *p, const char *tool, const char *path,
                        const char *const *argv)
{
    if (!p)
        return NULL;
    char *why = p->allow_all ? NULL : policy_rules_check_exec(p->rules, tool, path, argv);
    return why || !p->narrow ? why : policy_check_exec(p->narrow, tool, path, argv);
}

bool policy_input_blocked(const struct policy *p, const char *window_title, const char *app)
{
    return p && ((!p->allow_all && policy_rules_input_blocked(p->rules, window_title, app)) ||
                 policy_input_blocked(p->narrow, window_title, app));
}

/* b's arrays appended to a's (both objects of arrays, or NULL); returns the result. */
static json_t *merge_lists(json_t *a, json_t *b)
{
    if (!a || !b) {
        json_t *one = a ? a : b;
        return one ? json_deep_copy(one) : NULL;
    }
    json_t *out = json_deep_copy(a);
    const char *k;
    json_t *v;
    json_object_foreach(b, k, v)
    {
        json_t *have = json_object_get(out, k);
        if (have)
            json_array_extend(have, v);
        else
            json_object_set(out, k, v);
    }
    return out;
}

json_t *policy_blocked_input(const struct policy *p)
{
    if (!p)
        return NULL;
    json_t *all = p->allow_all ? NULL : policy_rules_describe(p->rules);
    json_t *inner = policy_blocked_input(p->narrow);
    json_t *input = merge_lists(json_object_get(all, "input"), inner);
    json_decref(inner);
    json_decref(all);
    return input;
}

json_t *policy_redact_regions(const struct policy *p)
{
    if (!p)
        return NULL;
    json_t *inner = policy_redact_regions(p->narrow);
    if (!p->redact)
        return inner;
    json_t *out = json_deep_copy(p->redact);
    if (inner)
        json_array_extend(out, inner);
    json_decref(inner);
    return out;
}

struct policy_screen *policy_screen_get(struct policy *p)
{
    if (!p)
        return NULL;
    if (!p->screen_built) {
        p->screen = policy_screen_build(p);
        p->screen_built = true;
    }
    return policy_screen_ref(p->screen);
}

char *policy_rate_check(struct policy *p, const char *tool, uint64_t now_ms,
                        uint64_t *retry_after_ms)
{
    char *why = rate_limits_take(p->rates, tool, now_ms, retry_after_ms);
    return why || !p->narrow ? why : policy_rate_check(p->narrow, tool, now_ms, retry_after_ms);
}

void policy_carry_over(struct policy *to, const struct policy *from)
{
    rate_limits_carry_over(to->rates, from->rates);
    if (to->narrow && from->narrow)
        policy_carry_over(to->narrow, from->narrow);
}

void policy_set_reload_error(struct policy *p, const char *err)
{
    free(p->reload_error);
    p->reload_error = err ? xstrdup(err) : NULL;
}

bool policy_mode_in_file(const struct policy *p)
{
    return p->mode_from_file || (p->narrow && policy_mode_in_file(p->narrow));
}

static bool names_a_tool(const char *pattern)
{
    for (size_t i = 0; i < registry_count(); i++)
        if (policy_glob_match(pattern, registry_at(i)->tool->name))
            return true;
    return false;
}

/* The first tool this build lacks (its kind configured out) that pattern
 * names, with why; NULL when none. */
static const char *absent_named(const char *pattern, const char **why)
{
    const char *name;
    for (size_t i = 0; (name = registry_absent_at(i, why)) != NULL; i++)
        if (policy_glob_match(pattern, name))
            return name;
    return NULL;
}

static void unknown_in(json_t *out, const char *source, const char *field, char *const *list)
{
    for (char *const *s = list; s && *s; s++) {
        if (names_a_tool(*s))
            continue;
        const char *why;
        const char *absent = absent_named(*s, &why);
        if (absent && strcmp(absent, *s) == 0)
            json_array_append_new(out, json_sprintf("%s: \"%s\" names \"%s\", %s; it has no effect",
                                                    source, field, *s, why));
        else if (absent)
            json_array_append_new(out, json_sprintf("%s: \"%s\" names \"%s\", which matches only "
                                                    "%s, %s; it has no effect",
                                                    source, field, *s, absent, why));
        else
            json_array_append_new(
                out, json_sprintf("%s: \"%s\" names \"%s\", but no tool %s; it has no effect",
                                  source, field, *s,
                                  strchr(*s, '*') ? "matches that pattern" : "has that name"));
    }
}

json_t *policy_warnings(const struct policy *p)
{
    json_t *out = json_array();
    if (p->from_file) {
        const char *src = p->source ? p->source : "the policy";
        unknown_in(out, src, "allow", p->allow);
        unknown_in(out, src, "deny", p->deny);
        unknown_in(out, src, "confirm", p->confirm);
        policy_rules_warnings(p->rules, src, out);
        json_t *rates = rate_limits_describe(p->rates);
        const char *tool;
        json_t *v;
        json_object_foreach(json_object_get(rates, "tools"), tool, v)
        {
            const char *why = registry_absent_why(tool);
            if (!registry_find(tool))
                json_array_append_new(
                    out, json_sprintf("%s: \"rate_limits.tools\" names \"%s\", %s%s; it has no "
                                      "effect",
                                      src, tool, why ? "" : "but no tool has that name",
                                      why ? why : ""));
        }
        json_decref(rates);
    }
    if (p->narrow) {
        json_t *inner = policy_warnings(p->narrow);
        json_array_extend(out, inner);
        json_decref(inner);
    }
    return out;
}

static struct mcp_verdict gate_admit(void *ud, const struct tool *tool, const json_t *args)
{
    struct policy *p = ud;
    /* A call that does what another tool does passes that tool's rules too,
     * judged by what it does (a screenshot through it is read-only). */
    const struct tool *as = tool->acts_as ? tool->acts_as(args) : NULL;
    bool read_only = as ? as->annotations.read_only : tool->annotations.read_only;
    char *refusal = policy_refusal(p, tool->name, read_only);
    if (!refusal && as)
        refusal = policy_refusal(p, as->name, read_only);
    if (!refusal)
        refusal = policy_check_arguments(p, tool->name, args);
    if (refusal)
        return (struct mcp_verdict){.admission = MCP_REFUSE, .message = refusal};
    uint64_t retry_ms = 0;
    refusal = policy_rate_check(p, tool->name, uv_hrtime() / 1000000, &retry_ms);
    if (!refusal && as)
        refusal = policy_rate_check(p, as->name, uv_hrtime() / 1000000, &retry_ms);
    if (refusal)
        return (struct mcp_verdict){
            .admission = MCP_REFUSE, .message = refusal, .decision = "rate_limited"};
    char *why = policy_confirmation(p, tool->name, read_only);
    if (!why && as)
        why = policy_confirmation(p, as->name, read_only);
    if (why)
        return (struct mcp_verdict){.admission = MCP_CONFIRM,
                                    .message = why,
                                    .confirm_timeout_ms =
                                        (uint64_t)policy_confirm_timeout_s(p) * 1000};
    return (struct mcp_verdict){.admission = MCP_ADMIT};
}

struct mcp_gate policy_gate(struct policy *p)
{
    return (struct mcp_gate){.visible = gate_visible, .admit = gate_admit, .ud = p};
}
