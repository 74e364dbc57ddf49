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
    .description = "Puts text on a desktop's clipboard or primary selection.",
    .input_schema = tool_clipboard_set_input_schema,
    .output_schema = tool_clipboard_set_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
};
