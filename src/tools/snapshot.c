/* snapshot: a structured picture of the screen: for a terminal its lines,
 * cursor, title, alternate-screen flag, size and exit status; for a desktop
 * its accessibility tree with element refs. */
#include "backend/backend.h"
#include "tools/perceive_schema.h"
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
                   "vim, less, top), size, and the exit status once the program has ended. "
                   "Desktop sessions: the accessibility tree as an indented outline and as a "
                   "list of elements, each with a ref (e1, e2, …) for click, type_text, "
                   "read_text and wait_for, its role, name, value or text, states (focused, "
                   "enabled, checked, selected, editable, showing, …) and screen bounds. "
                   "Unnamed grouping elements with one child are folded away and do not count "
                   "towards depth. Refs stay valid until the next snapshot or find.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY "," PERCEIVE_APP_PROPERTY ","
        "\"depth\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100,"
        "\"description\":\"Desktop: levels of meaningful elements below each "
        "application (default 30)\"},"
        "\"max_nodes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,"
        "\"description\":\"Desktop: at most this many elements (default 500)\"},"
        "\"include_hidden\":{\"type\":\"boolean\",\"description\":\"Desktop: "
        "also elements that are not showing (default false)\"}"
        "},\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{"
                     "\"session\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
                     "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                     "\"cursor\":{\"type\":\"object\"},\"title\":{\"type\":\"string\"},"
                     "\"alternate_screen\":{\"type\":\"boolean\"},"
                     "\"cols\":{\"type\":\"integer\"},\"rows\":{\"type\":\"integer\"},"
                     "\"exited\":{\"type\":\"boolean\"},"
                     "\"exit_status\":{\"type\":[\"integer\",\"null\"]},"
                     "\"outline\":{\"type\":\"string\"},\"count\":{\"type\":\"integer\"},"
                     "\"truncated\":{\"type\":\"boolean\"},\"truncation\":{\"type\":\"string\"},"
                     "\"note\":{\"type\":\"string\"},"
                     "\"elements\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
                     "\"properties\":{\"ref\":{\"type\":\"string\"},\"role\":{\"type\":"
                     "\"string\"},\"name\":{\"type\":\"string\"},\"value\":{\"type\":"
                     "\"string\"},\"states\":{\"type\":\"array\",\"items\":{\"type\":"
                     "\"string\"}},\"bounds\":" PERCEIVE_BOUNDS_SCHEMA ","
                     "\"parent\":{\"type\":\"string\"},\"depth\":{\"type\":\"integer\"},"
                     "\"actionable\":{\"type\":\"boolean\"}},"
                     "\"required\":[\"ref\",\"role\",\"name\",\"states\"]}}},"
                     "\"required\":[\"session\",\"kind\"]}",
    .annotations = {.read_only = true},
    .handler = handle,
};
