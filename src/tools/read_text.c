/* read_text: the text on a screen. */
#include "backend/backend.h"
#include "read_text.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(read_text), "read text", false);
}

const struct tool tool_read_text = {
    .name = "read_text",
    .group = "perception",
    .title = "Read screen text",
    .description =
        "The screen's text, line by line (terminals: with scrollback, cursor and exit status; also "
        "after the session ended). Desktops: accessible text of ref or of the screen, else OCR.",
    .input_schema = tool_read_text_input_schema,
    .output_schema = tool_read_text_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
