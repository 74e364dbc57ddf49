/* clipboard_get: the text on a desktop's clipboard (or primary selection). */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(clipboard_get), "read the clipboard", true);
}

const struct tool tool_clipboard_get = {
    .name = "clipboard_get",
    .title = "Read the clipboard",
    .description =
        "Returns the text on a desktop session's clipboard (selection \"clipboard\", what "
        "ctrl+c copies) or primary selection (\"primary\", the last text selected with the "
        "mouse). The owning program is asked for UTF-8 text (STRING/Latin-1 if it has none); "
        "an empty clipboard returns text \"\" with empty: true. A program that does not answer "
        "within 2 s is an error naming its window. owner: true when glovebox itself set it "
        "(clipboard_set).",
    .input_schema = "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
                    "\"selection\":{\"type\":\"string\",\"enum\":[\"clipboard\",\"primary\"],"
                    "\"description\":\"Which X selection (default clipboard)\"}},"
                    "\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"selection\":{\"type\":\"string\",\"enum\":[\"clipboard\",\"primary\"]},"
                     "\"text\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},"
                     "\"empty\":{\"type\":\"boolean\"},\"owner\":{\"type\":\"boolean\"},"
                     "\"owner_window\":{\"type\":\"string\"}},"
                     "\"required\":[\"session\",\"selection\",\"text\",\"bytes\",\"empty\"]}",
    .annotations = {.read_only = true, .idempotent = true},
    .handler = handle,
};
