/* resize: change a session's screen size. */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(resize), "resize", true);
}

const struct tool tool_resize = {
    .name = "resize",
    .title = "Resize the screen",
    .description = "Changes the size of a session's screen. Terminals: cols and rows (2–1000); "
                   "the program receives SIGWINCH.",
    .input_schema = "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
                    "\"cols\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":1000},"
                    "\"rows\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":1000}},"
                    "\"required\":[\"cols\",\"rows\"],\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
                     "\"cols\":{\"type\":\"integer\"},\"rows\":{\"type\":\"integer\"}},"
                     "\"required\":[\"session\",\"cols\",\"rows\"]}",
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
};
