/* click: a point, or an element found by ref or text. */
#include "backend/backend.h"
#include "tools/perceive_schema.h"
#include "tools/pointer_schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(click), "click", true);
}

const struct tool tool_click = {
    .name = "click",
    .title = "Click",
    .description =
        "Clicks on a desktop: at x,y (screen pixels, or the pixels of a scaled screenshot when "
        "scale is given), or on an element by ref (from snapshot or find) or by text (the "
        "element whose name or value contains it, else words read by OCR). A plain left click "
        "on an element uses its accessibility action (a button is pressed, a text field "
        "focused) as assistive technology would; otherwise the pointer moves to the element's "
        "centre and clicks. count 2 or 3 for double and triple clicks, hold_ms for a long "
        "press.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
        "\"x\":" POINTER_COORD(
            "Pixels from the left edge") ","
                                         "\"y\":" POINTER_COORD(
                                             "Pixels from the top edge") ","
                                                                         "\"ref\":{\"type\":"
                                                                         "\"string\",\"pattern\":"
                                                                         "\"^e[0-9]{1,9}$\","
                                                                         "\"description\":\"An "
                                                                         "element ref from the "
                                                                         "latest snapshot or find "
                                                                         "(e.g. e12)\"},"
                                                                         "\"text\":{\"type\":"
                                                                         "\"string\",\"minLength\":"
                                                                         "1,\"maxLength\":1000,"
                                                                         "\"description\":"
                                                                         "\"Click the element (or "
                                                                         "visible words) with this "
                                                                         "text\"},"
                                                                         "\"role\":{\"type\":"
                                                                         "\"string\",\"minLength\":"
                                                                         "1,\"maxLength\":100,"
                                                                         "\"description\":"
                                                                         "\"With text: only "
                                                                         "elements of this AT-SPI "
                                                                         "role (e.g. push "
                                                                         "button)\"},"
                                                                         "\"exact\":{\"type\":"
                                                                         "\"boolean\","
                                                                         "\"description\":\"With "
                                                                         "text: match the whole "
                                                                         "name\"}"
                                                                         "," POINTER_BUTTON_PROPERTY
                                                                         ","
                                                                         "\"count\":{\"type\":"
                                                                         "\"integer\",\"minimum\":"
                                                                         "1,\"maximum\":3,"
                                                                         "\"description\":\"1 "
                                                                         "(default), 2 for a "
                                                                         "double click, 3 for a "
                                                                         "triple click\"},"
                                                                         "\"hold_ms\":{\"type\":"
                                                                         "\"integer\",\"minimum\":"
                                                                         "0,\"maximum\":10000,"
                                                                         "\"description\":"
                                                                         "\"Hold the button down "
                                                                         "this long (a long "
                                                                         "press)\"}"
                                                                         "," POINTER_SCALE_PROPERTY
                                                                         "," PERCEIVE_APP_PROPERTY
                                                                         "," PERCEIVE_LANG_PROPERTY
                                                                         "},"
                                                                         "\"additionalProperties\":"
                                                                         "false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"},"
                     "\"button\":{\"type\":\"string\"},\"count\":{\"type\":\"integer\"},"
                     "\"target\":{\"type\":\"object\",\"properties\":{\"ref\":{\"type\":"
                     "\"string\"},\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"},"
                     "\"by\":{\"type\":\"string\",\"enum\":[\"action\",\"focus\",\"pointer\"]},"
                     "\"done\":{\"type\":\"boolean\"}}}},\"required\":[\"session\"]}",
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
