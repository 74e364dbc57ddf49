/* click: a point, or an element found by ref or text. */
#include "backend/backend.h"
#include "click.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(click), "click", true);
}

const struct tool tool_click = {
    .name = "click",
    .group = "input",
    .title = "Click",
    .description =
        "Clicks at x,y, on a ref, or on text (an element's name or value, else words read by OCR). "
        "count 2 or 3 for double and triple clicks, hold_ms for a long press.",
    .input_schema = tool_click_input_schema,
    .output_schema = tool_click_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
