/* record_start: begin recording a session. */
#include "backend/backend.h"
#include "record_start.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(record_start), "record", true);
}

const struct tool tool_record_start = {
    .name = "record_start",
    .group = "recording",
    .title = "Start recording",
    .description = "Starts recording the session (gif, animated webp, or webm video); record_stop "
                   "writes the file.",
    .input_schema = tool_record_start_input_schema,
    .output_schema = tool_record_start_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
