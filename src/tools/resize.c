/* resize: change a session's screen size. */
#include "backend/backend.h"
#include "resize.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(resize), "resize", true);
}

const struct tool tool_resize = {
    .name = "resize",
    .group = "sessions",
    .title = "Resize the screen",
    .description = "Resizes a session's screen (terminals: cols and rows).",
    .input_schema = tool_resize_input_schema,
    .output_schema = tool_resize_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
};
