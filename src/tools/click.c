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
        "Clicks on a desktop: at x,y (screen pixels, or the pixels of a scaled screenshot when "
        "scale is given), or on an element by ref (from snapshot or find) or by text (the "
        "element whose name or value contains it, else words read by OCR). A plain left click "
        "on an element uses its accessibility action (a button is pressed, a text field "
        "focused) as assistive technology would; otherwise the pointer moves to the element's "
        "centre and clicks. count 2 or 3 for double and triple clicks, hold_ms for a long "
        "press.",
    .input_schema = tool_click_input_schema,
    .output_schema = tool_click_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
