/* screenshot: the screen as an image. */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(screenshot), "take a screenshot", false);
}

const struct tool tool_screenshot = {
    .name = "screenshot",
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
    .input_schema = "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
                    "\"format\":{\"type\":\"string\",\"enum\":[\"png\",\"jpeg\",\"webp\"]},"
                    "\"quality\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
                    "\"description\":\"JPEG/WebP quality (default 85)\"},"
                    "\"max_width\":{\"type\":\"integer\",\"minimum\":16,\"maximum\":16384,"
                    "\"description\":\"Scale down to at most this many pixels wide "
                    "(instead of the default fit)\"},"
                    "\"fit\":{\"type\":\"boolean\",\"description\":\"Scale down to what "
                    "clients accept: long side <= 1568 px, <= 1 MB (default true; false: the "
                    "screen's own size however large)\"},"
                    "\"region\":{\"type\":\"object\",\"description\":\"Desktops: only this "
                    "rectangle of the screen\",\"properties\":{"
                    "\"x\":{\"type\":\"integer\",\"minimum\":0},"
                    "\"y\":{\"type\":\"integer\",\"minimum\":0},"
                    "\"width\":{\"type\":\"integer\",\"minimum\":1},"
                    "\"height\":{\"type\":\"integer\",\"minimum\":1}},"
                    "\"required\":[\"x\",\"y\",\"width\",\"height\"],"
                    "\"additionalProperties\":false},"
                    "\"cursor\":{\"type\":\"boolean\",\"description\":\"Desktops: draw "
                    "the mouse pointer (default false)\"},"
                    "\"as\":{\"type\":\"string\",\"enum\":[\"image\",\"link\"]}},"
                    "\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"width\":{\"type\":\"integer\"},\"height\":{\"type\":\"integer\"},"
                     "\"format\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},"
                     "\"scale\":{\"type\":\"number\"},\"uri\":{\"type\":\"string\"},"
                     "\"region\":{\"type\":\"object\"},\"redacted\":{\"type\":\"integer\"}},"
                     "\"required\":[\"session\",\"width\",\"height\",\"format\",\"bytes\"]}",
    .annotations = {.read_only = true},
    .handler = handle,
};
