/* read_text: the text on a screen. */
#include "backend/backend.h"
#include "tools/perceive_schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(read_text), "read text", false);
}

const struct tool tool_read_text = {
    .name = "read_text",
    .title = "Read screen text",
    .description = "Returns the text on the screen, line by line (trailing blanks trimmed, wide "
                   "characters once), optionally with the last N scrollback lines, plus the "
                   "cursor position, the window title and, once the program has exited, its "
                   "exit status. Works on ended sessions too (their last screen). Desktop "
                   "sessions: the accessible text of an element (ref) and everything in it, or "
                   "of every showing element; OCR (Tesseract) with word boxes and confidence "
                   "when there is no accessible text, for a region, or with ocr: true.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
        "\"scrollback\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000,"
        "\"description\":\"Also return up to this many lines that scrolled off the "
        "top (default 0)\"},"
        "\"ref\":{\"type\":\"string\",\"pattern\":\"^e[0-9]+$\","
        "\"description\":\"Desktop: an element from the latest snapshot or find\"},"
        "\"region\":{\"type\":\"object\",\"properties\":{"
        "\"x\":{\"type\":\"integer\",\"minimum\":0},"
        "\"y\":{\"type\":\"integer\",\"minimum\":0},"
        "\"width\":{\"type\":\"integer\",\"minimum\":1},"
        "\"height\":{\"type\":\"integer\",\"minimum\":1}},"
        "\"required\":[\"x\",\"y\",\"width\",\"height\"],"
        "\"additionalProperties\":false,"
        "\"description\":\"Desktop: read this rectangle of the screen with OCR\"},"
        "\"ocr\":{\"type\":\"boolean\",\"description\":\"Desktop: read the "
        "pixels even when accessible text exists (default false)\"}," PERCEIVE_APP_PROPERTY
        "," PERCEIVE_LANG_PROPERTY "},\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{"
                     "\"session\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},"
                     "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                     "\"scrollback\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                     "\"cursor\":{\"type\":\"object\",\"properties\":{\"row\":{\"type\":"
                     "\"integer\"},\"col\":{\"type\":\"integer\"},\"visible\":{\"type\":"
                     "\"boolean\"}}},\"title\":{\"type\":\"string\"},"
                     "\"exited\":{\"type\":\"boolean\"},"
                     "\"exit_status\":{\"type\":[\"integer\",\"null\"]},"
                     "\"signal\":{\"type\":[\"string\",\"null\"]},"
                     "\"source\":{\"type\":\"string\",\"enum\":[\"accessibility\",\"ocr\"]},"
                     "\"words\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
                     "\"properties\":{\"text\":{\"type\":\"string\"},\"line\":{\"type\":"
                     "\"integer\"},\"confidence\":{\"type\":\"number\"},"
                     "\"bounds\":" PERCEIVE_BOUNDS_SCHEMA "}}}},"
                     "\"required\":[\"session\",\"text\",\"lines\"]}",
    .annotations = {.read_only = true},
    .handler = handle,
};
