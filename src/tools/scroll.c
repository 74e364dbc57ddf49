/* scroll: wheel clicks, at a point or wherever the pointer is. */
#include "backend/backend.h"
#include "scroll.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(scroll), "scroll", true);
}

const struct tool tool_scroll = {
    .name = "scroll",
    .group = "input",
    .title = "Scroll",
    .description = "Turns the mouse wheel (direction, amount) at x,y or where the pointer is.",
    .input_schema = tool_scroll_input_schema,
    .output_schema = tool_scroll_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
