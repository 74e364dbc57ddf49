/* drag: press at one point, move through the way, release at another. */
#include "backend/backend.h"
#include "tools/pointer_schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(drag), "drag", true);
}

const struct tool tool_drag = {
    .name = "drag",
    .title = "Drag",
    .description = "Drags on a desktop: presses the button at from, moves the pointer to to in "
                   "small steps over duration_ms (so toolkits see a real drag), and releases. "
                   "Coordinates are screen pixels, or a scaled screenshot's pixels when scale "
                   "is given.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
        "\"from\":" POINTER_POINT_SCHEMA ",\"to\":" POINTER_POINT_SCHEMA "," POINTER_BUTTON_PROPERTY
        ","
        "\"duration_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000,"
        "\"description\":\"How long the move takes (default 300)\"}," POINTER_SCALE_PROPERTY
        "},\"required\":[\"from\",\"to\"],"
        "\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"from\":{\"type\":\"object\"},\"to\":{\"type\":\"object\"}},"
                     "\"required\":[\"session\",\"from\",\"to\"]}",
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
