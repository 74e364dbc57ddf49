/* launch_app: start a program inside a desktop session, or an app on a
 * phone ({app}: the session's app_launch operation). Compiled into the
 * executable; the desktop module does the work. */
#include "backend/backend.h"
#include "backend/desktop/desktop.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "launch_app.schema.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "tools/exec_target.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

#include <string.h>

/* {app}: no program runs here, so the commands rule is checked with the app
 * named /android/<app> (a rule lists "/android/com.example.*"). */
static void launch_on_phone(struct tool_call *call, const char *app)
{
    if (!exec_target_app(call, "launch_app", "android", app))
        return;
    screen_call_run(call, BACKEND_OP(app_launch), "launch an app", true);
}

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    char *err = NULL;
    const char *app = json_string_value(json_object_get(a, "app"));
    if (app && json_object_get(a, "command")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "command, app: give command (desktops) or app (phones), not both");
        return;
    }
    if (app) {
        launch_on_phone(call, app);
        return;
    }
    if (!json_object_get(a, "command")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "command: required (the program to start on a desktop; on a phone "
                            "give app)");
        return;
    }
    struct session *s = screen_call_resolve(call, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return;
    }
    if (strcmp(s->impl->kind, "desktop") != 0) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                            "cannot launch an app: %s is a %s session (launch_app needs a desktop "
                            "session; see desktop_start)",
                            s->id, s->impl->kind);
        return;
    }
    if (s->state == SESSION_STARTING) {
        tool_call_fail(call,
                       "cannot launch an app: session %s is still starting; call launch_app "
                       "once desktop_start has answered",
                       s->id);
        return;
    }
    if (s->state != SESSION_LIVE) {
        tool_call_fail_code(call, ERROR_SESSION_EXPIRED,
                            "cannot launch an app: session %s has ended (%s)", s->id,
                            s->end_reason ? s->end_reason : "stopped");
        return;
    }
    const json_t *cmd = json_object_get(a, "command");
    size_t n = json_array_size(cmd);
    const char **argv = xcalloc(n + 1, sizeof *argv);
    for (size_t i = 0; i < n; i++)
        argv[i] = json_string_value(json_array_get(cmd, i));
    char *program = exec_target(call, "launch_app", argv, NULL, NULL);
    if (!program) {
        free(argv);
        return;
    }
    /* The checked file runs, not a new PATH search for argv[0]. */
    argv[0] = program;
    /* Loaded already: s is a desktop session. */
    const struct desktop_api *desktop = backend_load("desktop", &err);
    int pid = desktop ? desktop->launch(s, argv, &err) : -1;
    free(program);
    free(argv);
    if (pid < 0) {
        tool_call_fail(call, "cannot launch the app: %s", err);
        free(err);
        return;
    }
    tool_call_done(call, json_pack("{s:s, s:i}", "session", s->id, "pid", pid),
                   "started %s in %s (pid %d)", json_string_value(json_array_get(cmd, 0)), s->id,
                   pid);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *app = json_object_get(args, "app");
    if (json_is_string(app)) {
        strbuf_puts(q, "launch the app ");
        confirm_quote_json(q, app, CONFIRM_QUOTE_MAX);
        confirm_session_phrase(q, args, "on");
        return true;
    }
    const json_t *cmd = json_object_get(args, "command");
    if (!json_is_array(cmd))
        return false;
    strbuf_puts(q, "launch ");
    confirm_command_phrase(q, cmd);
    confirm_session_phrase(q, args, "in");
    return true;
}

/* People call the list of programs apps, so rules.launch_app.apps works too. */
static const struct tool_rule_args rule_args = {.command = "command", .command_alias = "apps"};

const struct tool tool_launch_app = {
    .name = "launch_app",
    .group = "desktop",
    .title = "Launch an app on a desktop",
    .description = "Starts a program on a desktop session (it ends with the session), or an "
                   "app on a phone.",
    .input_schema = tool_launch_app_input_schema,
    .output_schema = tool_launch_app_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
    .confirm_phrase = confirm_phrase,
};
