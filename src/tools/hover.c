/* hover: the pointer moved over a point or an element, nothing pressed. */
#include "backend/backend.h"
#include "hover.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(hover), "hover", true);
}

const struct tool tool_hover = {
    .name = "hover",
    .title = "Hover",
    .description = "Desktop: moves the pointer to x,y or an element (ref, text), pressing nothing.",
    .input_schema = tool_hover_input_schema,
    .output_schema = tool_hover_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
    .group = "elements",
};
