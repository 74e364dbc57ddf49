/* screenshot: the screen as an image. */
#include "backend/backend.h"
#include "screenshot.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(screenshot), "take a screenshot", false);
}

const struct tool tool_screenshot = {
    .name = "screenshot",
    .group = "perception",
    .title = "Screenshot",
    .description = "The screen as an image. Terminals are rendered from their cells with real "
                   "fonts (colours, bold, italic, underline, wide characters, cursor). format: "
                   "png (default), jpeg or webp. By default the image fits what clients "
                   "accept: long side at most 1568 px and at most 1 MB, scaled down (area "
                   "averaging) when larger; scale in the result maps image coordinates back "
                   "(pass it to click, drag and scroll). max_width scales to that width "
                   "instead; fit: false keeps the screen's own size. "
                   "as: image returns the picture inline, as: link returns a resource link "
                   "(glovebox://session/{id}/screen) to read with resources/read. Desktops: "
                   "region crops, cursor: true draws the mouse pointer in; password fields the "
                   "accessibility tree has shown are painted over (redacted: how many).",
    .input_schema = tool_screenshot_input_schema,
    .output_schema = tool_screenshot_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
