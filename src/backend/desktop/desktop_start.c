/* desktop_start: a private X desktop (Xvfb + its own session bus), or an
 * existing display, as a new session. Compiled into the executable; the
 * desktop itself is in the module. */
#include "backend/backend.h"
#include "backend/desktop/desktop.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "desktop_start.schema.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "tools/exec_target.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void started(struct session *s, const char *err, void *ud)
{
    struct tool_call *call = ud;
    if (!s) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot start the desktop: %s", err);
        return;
    }
    json_t *out = session_to_json(s);
    bool attached = !json_is_true(json_object_get(out, "private"));
    tool_call_done(call, out, "started %s on %s (%lldx%lld)%s", s->id,
                   json_string_value(json_object_get(out, "display")),
                   (long long)json_integer_value(json_object_get(out, "width")),
                   (long long)json_integer_value(json_object_get(out, "height")),
                   attached ? ", attached (glovebox will not stop that X server)" : "");
}

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    /* The module is loaded on the first start (the loop pays it once). */
    char *err = NULL;
    const struct desktop_api *desktop = backend_load("desktop", &err);
    if (!desktop) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot start the desktop: %s", err);
        free(err);
        return;
    }
    struct session_client who;
    if (!screen_call_admit(call, &who))
        return;
    const json_t *cmd = json_object_get(a, "command");
    size_t n = json_array_size(cmd);
    const char **argv = n ? xcalloc(n + 1, sizeof *argv) : NULL;
    for (size_t i = 0; i < n; i++)
        argv[i] = json_string_value(json_array_get(cmd, i));
    char *program = NULL;
    if (argv && !(program = exec_target(call, "desktop_start", argv, NULL, NULL))) {
        free(argv);
        return;
    }
    /* The checked file runs, not a new PATH search for argv[0]. */
    if (argv)
        argv[0] = program;
    struct desktop_options o = {
        .display = args_string(a, "display", NULL),
        .width = (int)args_int(a, "width", 1280),
        .height = (int)args_int(a, "height", 800),
        .command = argv,
        .name = args_string(a, "name", NULL),
        .client = &who,
        .window_manager = args_bool(a, "window_manager", true),
    };
    if (o.display && json_object_get(a, "window_manager")) {
        free(program);
        free(argv);
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "window_manager is for private desktops; an existing display (%s) "
                            "keeps its own",
                            o.display);
        return;
    }
    if (o.display && json_object_get(a, "width")) {
        free(program);
        free(argv);
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "width/height are for private desktops; an existing display (%s) "
                            "keeps its own size",
                            o.display);
        return;
    }
    desktop->start(tool_call_app(call), &o, started, call);
    free(program);
    free(argv);
}

static const struct tool_rule_args rule_args = {.command = "command", .display = "display"};

const struct tool tool_desktop_start = {
    .name = "desktop_start",
    .group = "desktop",
    .title = "Start a desktop session",
    .description = "Starts a private Linux desktop (Xvfb with its own D-Bus and accessibility "
                   "bus), optionally running command, or attaches to an X display; launch_app "
                   "starts more programs.",
    .input_schema = tool_desktop_start_input_schema,
    .output_schema = tool_desktop_start_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
};
