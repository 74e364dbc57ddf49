#include "policy/rules.h"

#include "core/program_path.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "policy/commands.h"
#include "policy/patterns.h"
#include "policy/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lists a rule can hold; a tool's facts (mcp/tool.h) say which it takes. */
enum list_kind {
    L_COMMANDS,
    L_DISPLAYS,
    L_HOSTS,
    L_BLOCKED_WINDOWS,
    L_BLOCKED_APPS,
    L_ENV,
    L_PATHS,
    L_COUNT
};

static const char *const list_names[L_COUNT] = {
    "commands", "displays", "hosts", "blocked_windows", "blocked_apps", "env", "paths"};

/* Variables a caller may set without a rule: they choose a language, a
 * terminal size, colours or a time zone, and make no program run other code
 * (unlike BASH_ENV, ENV, LD_PRELOAD, PYTHONSTARTUP, GIT_*, PS1, …). */
static const char *const safe_env[] = {
    "LANG", "LANGUAGE", "LC_*",        "TERM",     "COLORTERM",      "COLUMNS", "LINES",
    "TZ",   "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", NULL};

/* Not a tool: the windows every input tool must keep away from. */
#define INPUT_SECTION "input"

/* One section of "rules": a tool's (whose facts say which arguments the
 * rules look at) or the input section. */
struct section {
    char *name;
    /* lists[k]: NULL-terminated patterns, or NULL when the rule does not
     * say (no restriction, except displays: none listed, none allowed).
     * L_COMMANDS is unused here: commands holds that rule. */
    char **lists[L_COUNT];
    struct policy_commands *commands; /* NULL when unsaid */
};

struct policy_rules {
    struct section *sections;
    size_t count;
    json_t *absent; /* sections for tools this build lacks: {tool: why} */
};

void policy_rules_destroy(struct policy_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->count; i++) {
        for (int k = 0; k < L_COUNT; k++)
            policy_patterns_free(r->sections[i].lists[k]);
        policy_commands_destroy(r->sections[i].commands);
        free(r->sections[i].name);
    }
    free(r->sections);
    json_decref(r->absent);
    free(r);
}

static const struct section *find_section(const struct policy_rules *r, const char *name)
{
    for (size_t i = 0; r && i < r->count; i++)
        if (strcmp(r->sections[i].name, name) == 0)
            return &r->sections[i];
    return NULL;
}

/* What the registered tool's argument rules look at, or NULL. */
static const struct tool_rule_args *facts_of(const char *tool)
{
    const struct tool_entry *e = registry_find(tool);
    return e ? e->tool->rule_args : NULL;
}

/* The rule kinds a section takes (bits of enum list_kind). */
static unsigned kinds_of(const char *name)
{
    if (strcmp(name, INPUT_SECTION) == 0)
        return (1u << L_BLOCKED_WINDOWS) | (1u << L_BLOCKED_APPS);
    const struct tool_rule_args *f = facts_of(name);
    if (!f)
        return 0;
    return (f->command ? 1u << L_COMMANDS : 0) | (f->env ? 1u << L_ENV : 0) |
           (f->display ? 1u << L_DISPLAYS : 0) | (f->host ? 1u << L_HOSTS : 0) |
           (f->path ? 1u << L_PATHS : 0);
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

/* "terminal_start, desktop_start, launch_app and input": the sections a
 * policy may have, from the registered tools' facts. */
static char *known_sections(void)
{
    struct strbuf b;
    strbuf_init(&b);
    for (size_t i = 0; i < registry_count(); i++) {
        const struct tool *t = registry_at(i)->tool;
        if (t->rule_args)
            strbuf_printf(&b, "%s, ", t->name);
    }
    if (b.len)
        b.len -= 2;
    strbuf_printf(&b, "%s" INPUT_SECTION, b.len ? " and " : "");
    return strbuf_steal(&b);
}

static char *unknown_section(const char *name)
{
    char *known = known_sections();
    char *err = xasprintf(
        "unknown field \"rules.%.100s\" (%s; rules exist for %s)", name,
        registry_find(name) ? "this tool takes no argument rules" : "no tool has this name", known);
    free(known);
    return err;
}

/* The rule kind key names in a section, or L_COUNT. */
static int kind_named(const char *section, const char *key)
{
    int k = 0;
    while (k < L_COUNT && strcmp(list_names[k], key) != 0)
        k++;
    const struct tool_rule_args *f = k == L_COUNT ? facts_of(section) : NULL;
    if (f && f->command_alias && strcmp(key, f->command_alias) == 0)
        k = L_COMMANDS;
    return k;
}

static bool parse_section(struct section *sec, const json_t *rule, char **err)
{
    const char *tool = sec->name;
    if (!json_is_object(rule)) {
        *err = xasprintf("\"rules.%s\" must be an object", tool);
        return false;
    }
    unsigned kinds = kinds_of(tool);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)rule, key, v)
    {
        if (strcmp(key, "$comment") == 0)
            continue;
        int k = kind_named(tool, key);
        if (k == L_COUNT || !(kinds & (1u << k))) {
            char *ok = known_lists(kinds);
            *err = xasprintf("unknown field \"rules.%s.%.100s\" (expected %s)", tool, key, ok);
            free(ok);
            return false;
        }
        char *where = xasprintf("rules.%s.%s", tool, key);
        bool ok;
        if (k == L_COMMANDS)
            ok = (sec->commands = policy_commands_parse(v, where, err)) != NULL;
        else
            ok = (sec->lists[k] = policy_patterns_parse(v, where, "patterns", "string", err)) !=
                 NULL;
        free(where);
        if (!ok)
            return false;
    }
    return true;
}

struct policy_rules *policy_rules_parse(const json_t *doc, char **err)
{
    struct policy_rules *r = xcalloc(1, sizeof *r);
    if (!doc)
        return r;
    if (!json_is_object(doc)) {
        *err = xstrdup("\"rules\" must be an object: {\"<tool>\": {\"commands\": [...]}, ...}");
        policy_rules_destroy(r);
        return NULL;
    }
    r->sections = xcalloc(json_object_size(doc), sizeof *r->sections);
    const char *tool;
    const json_t *rule;
    json_object_foreach((json_t *)doc, tool, rule)
    {
        if (strcmp(tool, "$comment") == 0)
            continue;
        /* A rule for a tool of a kind this build was configured without
         * restricts nothing here, but the same policy serves a fuller
         * build: kept aside and warned about. */
        const char *absent_why = kinds_of(tool) ? NULL : registry_absent_why(tool);
        if (absent_why) {
            if (!r->absent)
                r->absent = json_object();
            json_object_set_new(r->absent, tool, json_string(absent_why));
            continue;
        }
        /* A rule for a tool that does not exist (a typo) would restrict
         * nothing: refused rather than ignored. */
        if (!kinds_of(tool)) {
            *err = unknown_section(tool);
            policy_rules_destroy(r);
            return NULL;
        }
        struct section *sec = &r->sections[r->count++];
        sec->name = xstrdup(tool);
        if (!parse_section(sec, rule, err)) {
            policy_rules_destroy(r);
            return NULL;
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

static const char *program_of(const struct tool_rule_args *f, const json_t *args)
{
    const char *prog = json_string_value(json_array_get(json_object_get(args, f->command), 0));
    if (!prog && f->runs_shell) {
        /* What the tool runs without a command. */
        const char *shell = getenv("SHELL");
        prog = shell && *shell ? shell : "/bin/sh";
    }
    return prog;
}

static char *host_of(const struct tool_rule_args *f, const json_t *args)
{
    const char *s = json_string_value(json_object_get(args, f->host));
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
    const struct section *sec = find_section(r, tool);
    if (!sec || !sec->commands)
        return NULL;
    char *where = xasprintf("rules.%s.commands", tool);
    char *msg = policy_commands_check(sec->commands, tool, where, path, argv);
    free(where);
    return msg;
}

/* The checks on what the call will execute, resolved as the tool will
 * resolve it (tools/exec_target.h does the same from the same arguments). */
static char *check_program(const struct policy_rules *r, const char *tool,
                           const struct tool_rule_args *f, const json_t *args)
{
    const json_t *command = json_object_get(args, f->command);
    const char *prog = program_of(f, args);
    if (!prog)
        return NULL;
    char *err = NULL;
    const char *env_path =
        f->env ? json_string_value(json_object_get(json_object_get(args, f->env), "PATH")) : NULL;
    const char *cwd = f->cwd ? json_string_value(json_object_get(args, f->cwd)) : NULL;
    char *path = program_path_resolve(prog, cwd, env_path, &err);
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
    const struct tool_rule_args *f = facts_of(tool);
    if (!f || !r)
        return NULL;
    const struct section *sec = find_section(r, tool);
    char **const none[L_COUNT] = {NULL};
    char **const *l = sec ? sec->lists : none;
    const char *display = f->display ? json_string_value(json_object_get(args, f->display)) : NULL;
    /* Attaching reaches a real screen: only where the person said. */
    if (display && !(l[L_DISPLAYS] && any(l[L_DISPLAYS], display)))
        return l[L_DISPLAYS] ? refuse(tool, "attach to display", display, "displays", l[L_DISPLAYS],
                                      "displays")
                             : xasprintf("Denied by policy: %s may not attach to the existing "
                                         "display \"%.100s\"; list it in rules.%s.displays to "
                                         "allow it (private desktops need no rule)",
                                         tool, display, tool);
    if (f->env) {
        char *msg = check_env(l[L_ENV], tool, json_object_get(args, f->env));
        if (msg)
            return msg;
    }
    if (sec && sec->commands && f->command) {
        char *msg = check_program(r, tool, f, args);
        if (msg)
            return msg;
    }
    const char *path = f->path ? json_string_value(json_object_get(args, f->path)) : NULL;
    if (path) {
        /* The file itself, symbolic links and ".." resolved: a pattern
         * names what is read, not how it is spelled. */
        char *real = realpath(path, NULL);
        char *msg = NULL;
        if (!real)
            msg = xasprintf("Denied by policy: %s may read only files listed in rules.%s.paths, "
                            "and \"%.200s\" is not a file that exists",
                            tool, tool, path);
        else if (!l[L_PATHS])
            msg = xasprintf("Denied by policy: %s may not read \"%.200s\": no files are allowed "
                            "until rules.%s.paths lists them (e.g. \"/home/me/uploads/*\")",
                            tool, real, tool);
        else if (!any(l[L_PATHS], real))
            msg = refuse(tool, "read", real, "paths", l[L_PATHS], "paths");
        free(real);
        if (msg)
            return msg;
    }
    if (l[L_HOSTS] && f->host) {
        char *host = host_of(f, args);
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
    const struct section *sec = find_section(r, INPUT_SECTION);
    if (!sec)
        return false;
    char **const *l = sec->lists;
    return (title && l[L_BLOCKED_WINDOWS] && any(l[L_BLOCKED_WINDOWS], title)) ||
           (app && l[L_BLOCKED_APPS] && any(l[L_BLOCKED_APPS], app));
}

json_t *policy_rules_describe(const struct policy_rules *r)
{
    json_t *o = json_object();
    for (size_t i = 0; r && i < r->count; i++) {
        const struct section *sec = &r->sections[i];
        json_t *rule = NULL;
        for (int k = 0; k < L_COUNT; k++) {
            json_t *v = k == L_COMMANDS
                            ? (sec->commands ? policy_commands_json(sec->commands) : NULL)
                        : sec->lists[k] ? policy_patterns_json(sec->lists[k])
                                        : NULL;
            if (!v)
                continue;
            if (!rule)
                rule = json_object();
            json_object_set_new(rule, list_names[k], v);
        }
        if (rule)
            json_object_set_new(o, sec->name, rule);
    }
    return o;
}

void policy_rules_warnings(const struct policy_rules *r, const char *source, json_t *out)
{
    const char *tool;
    json_t *why;
    json_object_foreach(r ? r->absent : NULL, tool, why)
    {
        json_array_append_new(out, json_sprintf("%s: \"rules.%s\" is for %s, %s; it has no effect",
                                                source, tool, tool, json_string_value(why)));
    }
}
