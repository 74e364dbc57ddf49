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
    .description =
        "The screen as an image, scaled to what clients accept (1568 px, 1 MB); pass the result's "
        "scale to click, drag and scroll. as: link answers a resource link instead.",
    .input_schema = tool_screenshot_input_schema,
    .output_schema = tool_screenshot_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
