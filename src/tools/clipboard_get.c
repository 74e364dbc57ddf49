/* clipboard_get: the text on a desktop's clipboard (or primary selection). */
#include "backend/backend.h"
#include "clipboard_get.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(clipboard_get), "read the clipboard", true);
}

const struct tool tool_clipboard_get = {
    .name = "clipboard_get",
    .group = "clipboard",
    .title = "Read the clipboard",
    .description = "Returns the text on a desktop's clipboard or primary selection.",
    .input_schema = tool_clipboard_get_input_schema,
    .output_schema = tool_clipboard_get_output_schema,
    .annotations = {.read_only = true, .idempotent = true},
    .handler = handle,
};
