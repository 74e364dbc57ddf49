/* window_manage: focus, move, resize or close a desktop window. */
#include "backend/backend.h"
#include "core/args.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "window_manage.schema.h"

#include <string.h>

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    const char *action = args_string(a, "action", "");
    bool moves = json_object_get(a, "x") || json_object_get(a, "y");
    bool sizes = json_object_get(a, "width") || json_object_get(a, "height");
    if (strcmp(action, "move") == 0 && !moves) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "action \"move\" needs x and/or y (the new top-left corner)");
        return;
    }
    if (strcmp(action, "resize") == 0 && !sizes) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "action \"resize\" needs width and/or height");
        return;
    }
    screen_call_run(call, BACKEND_OP(window_manage), "manage windows", true);
}

const struct tool tool_window_manage = {
    .name = "window_manage",
    .group = "windows",
    .title = "Manage a window",
    .description = "Focuses, moves, resizes or closes a desktop window (id or part of its title).",
    .input_schema = tool_window_manage_input_schema,
    .output_schema = tool_window_manage_output_schema,
    .annotations = {.read_only = false, .destructive = true, .idempotent = false},
    .handler = handle,
};
