/* record_stop: finish a recording and write it out. */
#include "backend/backend.h"
#include "record_stop.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    /* Recordings outlive the program, so ended sessions can be stopped. */
    screen_call_run(call, BACKEND_OP(record_stop), "stop recording", false);
}

const struct tool tool_record_stop = {
    .name = "record_stop",
    .group = "recording",
    .title = "Stop recording",
    .description = "Stops the recording and writes the file; answers its path and a resource link.",
    .input_schema = tool_record_stop_input_schema,
    .output_schema = tool_record_stop_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
