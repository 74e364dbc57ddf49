/* read_text: the text on a screen. */
#include "backend/backend.h"
#include "read_text.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

#include <stdlib.h>
#include <string.h>

static void handle(struct tool_call *call)
{
    /* Output since the last read is a stream only terminals have. */
    if (json_object_get(tool_call_args(call), "since")) {
        char *err = NULL;
        struct session *s = screen_call_resolve(call, &err);
        free(err);
        if (s && strcmp(s->impl->kind, "terminal") != 0) {
            tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                                "\"since\" reads a terminal's output stream; %s is a %s session "
                                "(read its screen without \"since\")",
                                s->id, s->impl->kind);
            return;
        }
    }
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
