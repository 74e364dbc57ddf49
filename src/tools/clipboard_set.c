/* clipboard_set: put text on a desktop's clipboard (or primary selection). */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(clipboard_set), "set the clipboard", true);
}

const struct tool tool_clipboard_set = {
    .name = "clipboard_set",
    .title = "Set the clipboard",
    .description =
        "Puts UTF-8 text on a desktop session's clipboard (selection \"clipboard\", what ctrl+v "
        "pastes) or primary selection (\"primary\", what a middle click pastes). glovebox owns "
        "the selection and gives the text to programs that ask (as UTF-8, or Latin-1 when it "
        "fits) until another program copies something or the session ends. secret: true marks "
        "the text as sensitive (a password), for the audit log to leave out.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
        "\"text\":{\"type\":\"string\",\"description\":\"The text (up to the server's largest "
        "message, 16 MiB by default)\"},"
        "\"selection\":{\"type\":\"string\",\"enum\":[\"clipboard\",\"primary\"],"
        "\"description\":\"Which X selection (default clipboard)\"},"
        "\"secret\":{\"type\":\"boolean\",\"description\":\"The text is sensitive: keep it "
        "out of logs (default false)\"}},"
        "\"required\":[\"text\"],\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"selection\":{\"type\":\"string\",\"enum\":[\"clipboard\",\"primary\"]},"
                     "\"bytes\":{\"type\":\"integer\"}},"
                     "\"required\":[\"session\",\"selection\",\"bytes\"]}",
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
};
