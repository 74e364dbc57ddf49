#include "policy/rules.h"

#include "core/program_path.h"
#include "core/xmalloc.h"
#include "policy/commands.h"
#include "policy/patterns.h"
#include "policy/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lists a rule can hold, and the tools each applies to. */
enum list_kind {
    L_COMMANDS,
    L_DISPLAYS,
    L_HOSTS,
    L_BLOCKED_WINDOWS,
    L_BLOCKED_APPS,
    L_ENV,
    L_COUNT
};

static const char *const list_names[L_COUNT] = {"commands",        "displays",     "hosts",
                                                "blocked_windows", "blocked_apps", "env"};

/* Variables a caller may set without a rule: they choose a language, a
 * terminal size, colours or a time zone, and make no program run other code
 * (unlike BASH_ENV, ENV, LD_PRELOAD, PYTHONSTARTUP, GIT_*, PS1, …). */
static const char *const safe_env[] = {
    "LANG", "LANGUAGE", "LC_*",        "TERM",     "COLORTERM",      "COLUMNS", "LINES",
    "TZ",   "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", NULL};

static const struct {
    const char *tool;
    unsigned lists; /* bits of enum list_kind */
} rule_tools[] = {
    {"terminal_start", (1u << L_COMMANDS) | (1u << L_ENV)},
    {"desktop_start", (1u << L_COMMANDS) | (1u << L_DISPLAYS)},
    {"launch_app", 1u << L_COMMANDS},
    {"open_url", 1u << L_HOSTS},
    {"vnc_connect", 1u << L_HOSTS},
    {"webdriver_connect", 1u << L_HOSTS},
    /* Not a tool: the windows every input tool must keep away from. */
    {"input", (1u << L_BLOCKED_WINDOWS) | (1u << L_BLOCKED_APPS)},
};
#define N_RULE_TOOLS (sizeof rule_tools / sizeof rule_tools[0])

struct policy_rules {
    /* lists[t][k]: NULL-terminated patterns, or NULL when the rule does not
     * say (no restriction, except displays: none listed, none allowed). */
    char **lists[N_RULE_TOOLS][L_COUNT];
    /* The commands rule (L_COMMANDS is unused in lists), NULL when unsaid. */
    struct policy_commands *commands[N_RULE_TOOLS];
};

void policy_rules_destroy(struct policy_rules *r)
{
    if (!r)
        return;
    for (size_t t = 0; t < N_RULE_TOOLS; t++)
        for (int k = 0; k < L_COUNT; k++)
            policy_patterns_free(r->lists[t][k]);
    for (size_t t = 0; t < N_RULE_TOOLS; t++)
        policy_commands_destroy(r->commands[t]);
    free(r);
}

static int tool_index(const char *tool)
{
    for (size_t t = 0; t < N_RULE_TOOLS; t++)
        if (strcmp(rule_tools[t].tool, tool) == 0)
            return (int)t;
    return -1;
}

static char *known_lists(unsigned bits)
{
    char buf[128] = "";
    for (int k = 0; k < L_COUNT; k++)
        if (bits & (1u << k))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     list_names[k]);
    return xstrdup(buf);
}

struct policy_rules *policy_rules_parse(const json_t *doc, char **err)
{
    struct policy_rules *r = xcalloc(1, sizeof *r);
    if (!doc)
        return r;
    if (!json_is_object(doc)) {
        *err = xstrdup(
            "\"rules\" must be an object: {\"terminal_start\": {\"commands\": [...]}, ...}");
        policy_rules_destroy(r);
        return NULL;
    }
    const char *tool;
    const json_t *rule;
    json_object_foreach((json_t *)doc, tool, rule)
    {
        if (strcmp(tool, "$comment") == 0)
            continue;
        int t = tool_index(tool);
        if (t < 0) {
            *err = xasprintf("unknown field \"rules.%.100s\" (rules exist for terminal_start, "
                             "desktop_start, launch_app, open_url, vnc_connect, "
                             "webdriver_connect and input)",
                             tool);
            policy_rules_destroy(r);
            return NULL;
        }
        if (!json_is_object(rule)) {
            *err = xasprintf("\"rules.%s\" must be an object", tool);
            policy_rules_destroy(r);
            return NULL;
        }
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)rule, key, v)
        {
            if (strcmp(key, "$comment") == 0)
                continue;
            int k = 0;
            while (k < L_COUNT && strcmp(list_names[k], key) != 0)
                k++;
            /* launch_app's list may be called "apps", as people say it. */
            if (k == L_COUNT && strcmp(key, "apps") == 0 && strcmp(tool, "launch_app") == 0)
                k = L_COMMANDS;
            if (k == L_COUNT || !(rule_tools[t].lists & (1u << k))) {
                char *ok = known_lists(rule_tools[t].lists);
                *err = xasprintf("unknown field \"rules.%s.%.100s\" (expected %s)", tool, key, ok);
                free(ok);
                policy_rules_destroy(r);
                return NULL;
            }
            char *where = xasprintf("rules.%s.%s", tool, key);
            bool ok;
            if (k == L_COMMANDS)
                ok = (r->commands[t] = policy_commands_parse(v, where, err)) != NULL;
            else
                ok = (r->lists[t][k] =
                          policy_patterns_parse(v, where, "patterns", "string", err)) != NULL;
            free(where);
            if (!ok) {
                policy_rules_destroy(r);
                return NULL;
            }
        }
    }
    return r;
}

static char *joined(char *const *list)
{
    size_t n = 1;
    for (char *const *s = list; *s; s++)
        n += strlen(*s) + 2;
    char *out = xcalloc(n, 1);
    for (char *const *s = list; *s; s++) {
        if (s != list)
            strcat(out, ", ");
        strcat(out, *s);
    }
    return out;
}

static char *refuse(const char *tool, const char *verb, const char *value, const char *what,
                    char *const *list, const char *key)
{
    char *allowed = joined(list);
    char *msg = xasprintf("Denied by policy: %s may not %s \"%.200s\": allowed %s are %s "
                          "(policy rules.%s.%s)",
                          tool, verb, value, what, allowed[0] ? allowed : "none", tool, key);
    free(allowed);
    return msg;
}

static const char *program_of(const char *tool, const json_t *args)
{
    const char *prog = json_string_value(json_array_get(json_object_get(args, "command"), 0));
    if (!prog && strcmp(tool, "terminal_start") == 0) {
        /* What terminal_start runs without a command. */
        const char *shell = getenv("SHELL");
        prog = shell && *shell ? shell : "/bin/sh";
    }
    return prog;
}

static char *host_of(const json_t *args)
{
    const char *s = json_string_value(json_object_get(args, "url"));
    if (!s)
        s = json_string_value(json_object_get(args, "host"));
    if (!s)
        return NULL;
    const char *start = strstr(s, "://");
    start = start ? start + 3 : s;
    const char *at = strpbrk(start, "@/");
    if (at && *at == '@')
        start = at + 1;
    size_t n = strcspn(start, ":/?#");
    if (*start == '[') /* IPv6 literal */
        n = strcspn(start, "]") + 1;
    return xasprintf("%.*s", (int)n, start);
}

static bool any(char *const *list, const char *value)
{
    return policy_patterns_first_match(list, value) != NULL;
}

static char *check_env(char *const *allowed, const char *tool, const json_t *env)
{
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)env, name, v)
    {
        if (any((char *const *)safe_env, name) || (allowed && any(allowed, name)))
            continue;
        return xasprintf("Denied by policy: %s may not set the environment variable \"%.100s\": "
                         "variables can make an allowed program run other code, so only inert "
                         "ones are accepted (LANG, LC_*, TERM, COLORTERM, COLUMNS, LINES, TZ, "
                         "NO_COLOR, FORCE_COLOR, CLICOLOR, CLICOLOR_FORCE) and those listed in "
                         "rules.%s.env; add \"%.100s\" there to allow it",
                         tool, name, tool, name);
    }
    return NULL;
}

char *policy_rules_check_exec(const struct policy_rules *r, const char *tool, const char *path,
                              const char *const *argv)
{
    int t = tool_index(tool);
    if (t < 0 || !r || !r->commands[t])
        return NULL;
    char *where = xasprintf("rules.%s.commands", tool);
    char *msg = policy_commands_check(r->commands[t], tool, where, path, argv);
    free(where);
    return msg;
}

/* The checks on what the call will execute, resolved as the tool will
 * resolve it (tools/exec_target.h does the same from the same arguments). */
static char *check_program(const struct policy_rules *r, const char *tool, const json_t *args)
{
    const json_t *command = json_object_get(args, "command");
    const char *prog = program_of(tool, args);
    if (!prog)
        return NULL;
    char *err = NULL;
    const char *env_path = json_string_value(json_object_get(json_object_get(args, "env"), "PATH"));
    char *path =
        program_path_resolve(prog, json_string_value(json_object_get(args, "cwd")), env_path, &err);
    /* Not found: nothing proves it allowed; refuse by the name as given. */
    free(err);
    size_t n = json_array_size(command);
    const char **argv = xcalloc(n + 2, sizeof *argv);
    argv[0] = prog;
    for (size_t i = 1; i < n; i++)
        argv[i] = json_string_value(json_array_get(command, i));
    char *msg = policy_rules_check_exec(r, tool, path ? path : prog, argv);
    free(argv);
    free(path);
    return msg;
}

char *policy_rules_check(const struct policy_rules *r, const char *tool, const json_t *args)
{
    int t = tool_index(tool);
    if (t < 0 || !r)
        return NULL;
    char **const *l = r->lists[t];
    if (strcmp(tool, "desktop_start") == 0) {
        const char *display = json_string_value(json_object_get(args, "display"));
        /* Attaching reaches a real screen: only where the person said. */
        if (display && !(l[L_DISPLAYS] && any(l[L_DISPLAYS], display)))
            return l[L_DISPLAYS] ? refuse(tool, "attach to display", display, "displays",
                                          l[L_DISPLAYS], "displays")
                                 : xasprintf("Denied by policy: desktop_start may not attach to "
                                             "the existing display \"%.100s\"; list it in "
                                             "rules.desktop_start.displays to allow it (private "
                                             "desktops need no rule)",
                                             display);
    }
    if (rule_tools[t].lists & (1u << L_ENV)) {
        char *msg = check_env(l[L_ENV], tool, json_object_get(args, "env"));
        if (msg)
            return msg;
    }
    if (r->commands[t]) {
        char *msg = check_program(r, tool, args);
        if (msg)
            return msg;
    }
    if (l[L_HOSTS]) {
        char *host = host_of(args);
        char *msg = host && !any(l[L_HOSTS], host)
                        ? refuse(tool, "reach", host, "hosts", l[L_HOSTS], "hosts")
                        : NULL;
        free(host);
        return msg;
    }
    return NULL;
}

bool policy_rules_input_blocked(const struct policy_rules *r, const char *title, const char *app)
{
    if (!r)
        return false;
    char **const *l = r->lists[tool_index("input")];
    return (title && l[L_BLOCKED_WINDOWS] && any(l[L_BLOCKED_WINDOWS], title)) ||
           (app && l[L_BLOCKED_APPS] && any(l[L_BLOCKED_APPS], app));
}

json_t *policy_rules_describe(const struct policy_rules *r)
{
    json_t *o = json_object();
    for (size_t t = 0; r && t < N_RULE_TOOLS; t++) {
        json_t *rule = NULL;
        for (int k = 0; k < L_COUNT; k++) {
            json_t *v = k == L_COMMANDS
                            ? (r->commands[t] ? policy_commands_json(r->commands[t]) : NULL)
                        : r->lists[t][k] ? policy_patterns_json(r->lists[t][k])
                                         : NULL;
            if (!v)
                continue;
            if (!rule)
                rule = json_object();
            json_object_set_new(rule, list_names[k], v);
        }
        if (rule)
            json_object_set_new(o, rule_tools[t].tool, rule);
    }
    return o;
}
