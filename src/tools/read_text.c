/* read_text: the text on a screen. */
#include "backend/backend.h"
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
                   "exit status. Works on ended sessions too (their last screen).",
    .input_schema = "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
                    "\"scrollback\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100000,"
                    "\"description\":\"Also return up to this many lines that scrolled off the "
                    "top (default 0)\"}},\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{"
                     "\"session\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},"
                     "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                     "\"scrollback\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                     "\"cursor\":{\"type\":\"object\",\"properties\":{\"row\":{\"type\":"
                     "\"integer\"},\"col\":{\"type\":\"integer\"},\"visible\":{\"type\":"
                     "\"boolean\"}}},\"title\":{\"type\":\"string\"},"
                     "\"exited\":{\"type\":\"boolean\"},"
                     "\"exit_status\":{\"type\":[\"integer\",\"null\"]},"
                     "\"signal\":{\"type\":[\"string\",\"null\"]}},"
                     "\"required\":[\"session\",\"text\",\"lines\"]}",
    .annotations = {.read_only = true},
    .handler = handle,
};
