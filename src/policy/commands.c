#include "policy/commands.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "policy/patterns.h"
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

/* The last argument pattern that stands for any further arguments. */
#define REST "..."

struct entry {
    char *program;
    char **args; /* NULL-terminated patterns; NULL: any arguments */
    bool rest;   /* args ended with "...": more may follow */
};

struct policy_commands {
    struct entry *entries;
    size_t n;
    json_t *doc; /* as written, for status and glovebox policy check */
};

void policy_commands_destroy(struct policy_commands *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->entries[i].program);
        policy_patterns_free(c->entries[i].args);
    }
    free(c->entries);
    json_decref(c->doc);
    free(c);
}

static bool clean_string(const json_t *s)
{
    return json_is_string(s) && json_string_length(s) > 0 &&
           strlen(json_string_value(s)) == json_string_length(s);
}

static bool parse_program(const json_t *s, const char *where, size_t i, char **out, char **err)
{
    if (!clean_string(s)) {
        *err = xasprintf("\"%s\"[%zu] must be a program name or pattern (\"bash\", "
                         "\"/usr/bin/*\") or {\"program\": ..., \"args\": [...]}",
                         where, i);
        return false;
    }
    const char *v = json_string_value(s);
    /* A relative path would mean a different file in every working directory. */
    if (strchr(v, '/') && v[0] != '/' && v[0] != '*') {
        *err = xasprintf("\"%s\"[%zu]: \"%.100s\" has a '/' but is not an absolute path; write "
                         "the program's name (\"bash\") or its full path (\"/usr/bin/bash\")",
                         where, i, v);
        return false;
    }
    *out = xstrdup(v);
    return true;
}

static bool parse_object(const json_t *o, const char *where, size_t i, struct entry *e, char **err)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        if (strcmp(key, "program") && strcmp(key, "args") && strcmp(key, "$comment")) {
            *err = xasprintf("unknown field \"%s\"[%zu].%.100s (expected program, args)", where, i,
                             key);
            return false;
        }
    }
    const json_t *program = json_object_get(o, "program");
    if (!program) {
        *err =
            xasprintf("\"%s\"[%zu] needs \"program\": the program's name or full path", where, i);
        return false;
    }
    if (!parse_program(program, where, i, &e->program, err))
        return false;
    const json_t *args = json_object_get(o, "args");
    if (!args)
        return true; /* any arguments, as a bare name */
    char *at = xasprintf("%s[%zu].args", where, i);
    e->args = json_array_size(args) || !json_is_array(args)
                  ? policy_patterns_parse(args, at, "argument patterns", "argument pattern", err)
                  : xcalloc(1, sizeof *e->args);
    free(at);
    if (!e->args)
        return false;
    for (char **a = e->args; *a; a++) {
        if (strcmp(*a, REST) != 0)
            continue;
        if (a[1]) {
            *err = xasprintf("\"%s\"[%zu].args: \"" REST "\" (any further arguments) may only "
                             "be the last item",
                             where, i);
            return false;
        }
        free(*a);
        *a = NULL;
        e->rest = true;
    }
    return true;
}

struct policy_commands *policy_commands_parse(const json_t *v, const char *where, char **err)
{
    if (!json_is_array(v)) {
        *err = xasprintf("\"%s\" must be an array of programs (\"bash\", \"/usr/bin/*\") or "
                         "{\"program\": ..., \"args\": [...]}",
                         where);
        return NULL;
    }
    struct policy_commands *c = xcalloc(1, sizeof *c);
    c->entries = xcalloc(json_array_size(v) + 1, sizeof *c->entries);
    c->doc = json_deep_copy(v);
    size_t i;
    const json_t *item;
    json_array_foreach(v, i, item)
    {
        struct entry *e = &c->entries[c->n++];
        bool ok = json_is_object(item) ? parse_object(item, where, i, e, err)
                                       : parse_program(item, where, i, &e->program, err);
        if (!ok) {
            policy_commands_destroy(c);
            return NULL;
        }
    }
    return c;
}

/* Whether dir is one of the absolute folders of glovebox's PATH, comparing
 * real paths so /bin and /usr/bin (a symlink) agree. */
static bool in_path(const char *dir)
{
    const char *path = getenv("PATH");
    char *want = realpath(dir, NULL);
    bool found = false;
    for (const char *p = path; want && p && *p && !found;) {
        size_t n = strcspn(p, ":");
        char *entry = xasprintf("%.*s", (int)n, p);
        char *real = entry[0] == '/' ? realpath(entry, NULL) : NULL;
        found = real && strcmp(real, want) == 0;
        free(real);
        free(entry);
        p += n + (p[n] == ':');
    }
    free(want);
    return found;
}

bool policy_program_matches(const char *pattern, const char *program)
{
    if (strchr(pattern, '/'))
        return policy_glob_match(pattern, program);
    /* A bare name means that program where the system keeps programs:
     * "bash" is /bin/bash or /usr/bin/bash, never /tmp/x/bash. */
    const char *slash = strrchr(program, '/');
    if (!slash || !policy_glob_match(pattern, slash + 1))
        return false;
    char *dir = xasprintf("%.*s", slash == program ? 1 : (int)(slash - program), program);
    bool ok = in_path(dir);
    free(dir);
    return ok;
}

static bool args_match(const struct entry *e, const char *const *argv)
{
    if (!e->args)
        return true;
    size_t i = 0;
    for (; e->args[i]; i++)
        if (!argv[i + 1] || !policy_glob_match(e->args[i], argv[i + 1]))
            return false;
    return e->rest || !argv[i + 1];
}

static void describe_entry(struct strbuf *b, const struct entry *e)
{
    strbuf_puts(b, e->program);
    if (!e->args)
        return;
    for (char **a = e->args; *a; a++)
        strbuf_printf(b, " %s", *a);
    strbuf_puts(b, e->rest ? " " REST : e->args[0] ? "" : " (no arguments)");
}

/* argv as one line for a message, cut short: it is the agent's text. */
static void describe_argv(struct strbuf *b, const char *const *argv)
{
    for (const char *const *a = argv; *a && b->len < 200; a++)
        strbuf_printf(b, "%s%.100s", a == argv ? "" : " ", *a);
    if (b->len >= 200)
        strbuf_puts(b, " …");
}

char *policy_commands_check(const struct policy_commands *c, const char *tool, const char *where,
                            const char *path, const char *const *argv)
{
    const struct entry *matched = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct entry *e = &c->entries[i];
        if (!policy_program_matches(e->program, path))
            continue;
        if (args_match(e, argv))
            return NULL;
        if (!matched)
            matched = e;
    }
    struct strbuf b;
    strbuf_init(&b);
    strbuf_printf(&b, "Denied by policy: %s may not run \"", tool);
    if (matched) {
        describe_argv(&b, argv);
        strbuf_printf(&b, "\": the arguments do not match rule \"");
        describe_entry(&b, matched);
        strbuf_printf(&b,
                      "\" in %s (each argument pattern matches one argument; \"" REST
                      "\" allows any further ones)",
                      where);
    } else {
        strbuf_printf(&b, "%.200s\"", argv[0]);
        if (strcmp(argv[0], path) != 0)
            strbuf_printf(&b, " (%.200s)", path);
        strbuf_puts(&b, ": allowed commands are ");
        for (size_t i = 0; i < c->n; i++) {
            if (i)
                strbuf_puts(&b, ", ");
            describe_entry(&b, &c->entries[i]);
        }
        if (!c->n)
            strbuf_puts(&b, "none");
        strbuf_printf(&b, " (policy %s)", where);
    }
    return strbuf_steal(&b);
}

json_t *policy_commands_json(const struct policy_commands *c)
{
    return json_incref(c->doc);
}
