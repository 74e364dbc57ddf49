/* window_list: the top-level windows of a desktop. */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "window_list.schema.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(window_list), "list windows", true);
}

const struct tool tool_window_list = {
    .name = "window_list",
    .group = "windows",
    .title = "List windows",
    .description = "Lists a desktop's windows, top-most first: id, title, app, pid, bounds, focus.",
    .input_schema = tool_window_list_input_schema,
    .output_schema = tool_window_list_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
