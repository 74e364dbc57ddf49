/* drag: press at one point, move through the way, release at another. */
#include "backend/backend.h"
#include "drag.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(drag), "drag", true);
}

const struct tool tool_drag = {
    .name = "drag",
    .group = "input",
    .title = "Drag",
    .description = "Drags with a button held from one point to another.",
    .input_schema = tool_drag_input_schema,
    .output_schema = tool_drag_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
