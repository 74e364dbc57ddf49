/* scroll: wheel clicks, at a point or wherever the pointer is. */
#include "backend/backend.h"
#include "tools/pointer_schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(scroll), "scroll", true);
}

const struct tool tool_scroll = {
    .name = "scroll",
    .title = "Scroll",
    .description = "Scrolls on a desktop with the mouse wheel: direction up, down, left or "
                   "right, amount wheel clicks (default 3), at x,y when given (the pointer "
                   "moves there first), else where the pointer is.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
        "\"direction\":{\"type\":\"string\",\"enum\":[\"up\",\"down\",\"left\","
        "\"right\"]},"
        "\"amount\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
        "\"description\":\"Wheel clicks (default 3)\"},"
        "\"x\":" POINTER_COORD(
            "Pixels from the left edge") ","
                                         "\"y\":" POINTER_COORD(
                                             "Pixels from the top edge") "," POINTER_SCALE_PROPERTY
                                                                         "},\"required\":["
                                                                         "\"direction\"],"
                                                                         "\"additionalProperties\":"
                                                                         "false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"direction\":{\"type\":\"string\"},\"amount\":{\"type\":\"integer\"}},"
                     "\"required\":[\"session\",\"direction\",\"amount\"]}",
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
