/* terminal_start: run a program in a new terminal session. Compiled into
 * the executable; the terminal itself is in the module. */
#include "backend/backend.h"
#include "backend/terminal/terminal.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "terminal_start.schema.h"
#include "tools/exec_target.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

#include <stdlib.h>
#include <string.h>

/* A NULL-terminated copy of a JSON array of strings; NULL if absent. */
static char **string_list(const json_t *arr)
{
    if (!json_is_array(arr))
        return NULL;
    size_t n = json_array_size(arr);
    char **out = xcalloc(n + 1, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = xstrdup(json_string_value(json_array_get(arr, i)));
    return out;
}

static char **env_list(const json_t *obj, char **err)
{
    if (!json_is_object(obj))
        return NULL;
    char **out = xcalloc(json_object_size(obj) + 1, sizeof *out);
    const char *key;
    const json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)obj, key, v)
    {
        if (!key[0] || strchr(key, '=')) {
            *err = xasprintf("argument \"env\": variable names must be non-empty and contain no "
                             "'=', got \"%s\"",
                             key);
            for (size_t j = 0; j < i; j++)
                free(out[j]);
            free(out);
            return NULL;
        }
        out[i++] = xasprintf("%s=%s", key, json_string_value(v));
    }
    return out;
}

static void free_list(char **l)
{
    for (char **p = l; p && *p; p++)
        free(*p);
    free(l);
}

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    char *err = NULL;
    /* The module is loaded on the first start (the loop pays it once). */
    const struct terminal_api *terminal = backend_load("terminal", &err);
    if (!terminal) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot start a terminal: %s", err);
        free(err);
        return;
    }
    struct session_client who;
    if (!screen_call_admit(call, &who))
        return;
    char **argv = string_list(json_object_get(a, "command"));
    char **env = env_list(json_object_get(a, "env"), &err);
    if (err) {
        free_list(argv);
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    /* What the terminal runs without a command (as term_pty does). */
    const char *shell = getenv("SHELL");
    const char *shell_argv[] = {shell && *shell ? shell : "/bin/sh", NULL};
    const char *cwd = args_string(a, "cwd", NULL);
    const char *env_path = json_string_value(json_object_get(json_object_get(a, "env"), "PATH"));
    char *program = exec_target(call, "terminal_start",
                                argv ? (const char *const *)argv : shell_argv, cwd, env_path);
    if (!program) {
        free_list(argv);
        free_list(env);
        return;
    }
    struct terminal_options o = {
        .argv = (const char *const *)argv,
        .program = program,
        .cwd = cwd,
        .env = (const char *const *)env,
        .cols = (int)args_int(a, "cols", 120),
        .rows = (int)args_int(a, "rows", 40),
        .scrollback = (int)args_int(a, "scrollback", 10000),
        .name = args_string(a, "name", NULL),
        .client = &who,
    };
    struct session *s = terminal->start(tool_call_app(call), &o, &err);
    free(program);
    free_list(argv);
    free_list(env);
    if (!s) {
        tool_call_fail(call, "%s", err);
        free(err);
        return;
    }
    json_t *out = session_to_json(s);
    json_t *pid = json_object_get(out, "pid");
    tool_call_done(call, out, "started %s (pid %lld, %dx%d)", s->id,
                   (long long)json_integer_value(pid), o.cols, o.rows);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *cmd = json_object_get(args, "command");
    strbuf_puts(q, "start a terminal running ");
    if (json_is_array(cmd))
        confirm_command_phrase(q, cmd);
    else
        strbuf_puts(q, "your login shell ($SHELL)");
    const json_t *cwd = json_object_get(args, "cwd");
    if (json_is_string(cwd)) {
        strbuf_puts(q, " in ");
        confirm_quote_json(q, cwd, CONFIRM_QUOTE_MAX);
    }
    if (json_object_size(json_object_get(args, "env")) > 0) {
        strbuf_puts(q, " with environment ");
        confirm_quote_value(q, json_object_get(args, "env"));
    }
    return true;
}

static const struct tool_rule_args rule_args = {
    .command = "command", .runs_shell = true, .cwd = "cwd", .env = "env"};

const struct tool tool_terminal_start = {
    .name = "terminal_start",
    .group = "terminal",
    .title = "Start a terminal session",
    .description =
        "Runs a program (default: your shell) in a new terminal (xterm-256color). Drive it with "
        "type_text and press_key, read it with read_text, wait for output with wait_for.",
    .input_schema = tool_terminal_start_input_schema,
    .output_schema = tool_terminal_start_output_schema,
    .annotations = {.read_only = false,
                    .destructive = false,
                    .idempotent = false,
                    .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
    .confirm_phrase = confirm_phrase,
};
