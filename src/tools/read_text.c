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
    .description = "Returns the text on the screen, line by line (trailing blanks trimmed, wide "
                   "characters once), optionally with the last N scrollback lines, plus the "
                   "cursor position, the window title and, once the program has exited, its "
                   "exit status. Works on ended sessions too (their last screen). Desktop "
                   "sessions: the accessible text of an element (ref) and everything in it, or "
                   "of every showing element; OCR (Tesseract) with word boxes and confidence "
                   "when there is no accessible text, for a region, or with ocr: true.",
    .input_schema = tool_read_text_input_schema,
    .output_schema = tool_read_text_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
