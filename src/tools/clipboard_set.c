/* clipboard_set: put text on a desktop's clipboard (or primary selection). */
#include "backend/backend.h"
#include "clipboard_set.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(clipboard_set), "set the clipboard", true);
}

const struct tool tool_clipboard_set = {
    .name = "clipboard_set",
    .group = "clipboard",
    .title = "Set the clipboard",
    .description =
        "Puts UTF-8 text on a desktop session's clipboard (selection \"clipboard\", what ctrl+v "
        "pastes) or primary selection (\"primary\", what a middle click pastes). glovebox owns "
        "the selection and gives the text to programs that ask (as UTF-8, or Latin-1 when it "
        "fits) until another program copies something or the session ends. secret: true marks "
        "the text as sensitive (a password), for the audit log to leave out.",
    .input_schema = tool_clipboard_set_input_schema,
    .output_schema = tool_clipboard_set_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
};
