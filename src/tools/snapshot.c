/* snapshot: a structured picture of the screen: for a terminal its lines,
 * cursor, title, alternate-screen flag, size and exit status. */
#include "backend/backend.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(snapshot), "take a snapshot", false);
}

const struct tool tool_snapshot = {
    .name = "snapshot",
    .title = "Snapshot the screen",
    .description = "A structured view of the screen. Terminal sessions: lines, cursor, window "
                   "title, whether the alternate screen is active (full-screen programs such as "
                   "vim, less, top), size, and the exit status once the program has ended.",
    .input_schema = "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY
                    "},\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{"
                     "\"session\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
                     "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                     "\"cursor\":{\"type\":\"object\"},\"title\":{\"type\":\"string\"},"
                     "\"alternate_screen\":{\"type\":\"boolean\"},"
                     "\"cols\":{\"type\":\"integer\"},\"rows\":{\"type\":\"integer\"},"
                     "\"exited\":{\"type\":\"boolean\"},"
                     "\"exit_status\":{\"type\":[\"integer\",\"null\"]}},"
                     "\"required\":[\"session\",\"kind\"]}",
    .annotations = {.read_only = true},
    .handler = handle,
};
