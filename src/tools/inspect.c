/* inspect: everything known about one element, looked at again. */
#include "backend/backend.h"
#include "inspect.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(inspect), "inspect an element", true);
}

const struct tool tool_inspect = {
    .name = "inspect",
    .title = "Inspect an element",
    .description = "Desktop: all about one element, read live: role, name, value, states, actions, "
                   "bounds, range, app, window, path.",
    .input_schema = tool_inspect_input_schema,
    .output_schema = tool_inspect_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
    .group = "elements",
};
