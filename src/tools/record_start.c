/* record_start: begin recording a session. */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(record_start), "record", true);
}

const struct tool tool_record_start = {
    .name = "record_start",
    .title = "Start recording",
    .description = "Starts recording the session: a frame on each change of the screen, at "
                   "most fps per second (default 10). record_stop writes the recording (an "
                   "animated GIF for terminals). A recording survives the program exiting.",
    .input_schema = "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
                    "\"fps\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50}},"
                    "\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"recording\":{\"type\":\"string\"},\"fps\":{\"type\":\"integer\"}},"
                     "\"required\":[\"session\",\"recording\",\"fps\"]}",
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
