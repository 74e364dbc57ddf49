/* snapshot: a structured picture of the screen: for a terminal its lines,
 * cursor, title, alternate-screen flag, size and exit status; for a desktop
 * its accessibility tree with element refs. */
#include "backend/backend.h"
#include "snapshot.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(snapshot), "take a snapshot", false);
}

const struct tool tool_snapshot = {
    .name = "snapshot",
    .group = "perception",
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
    .input_schema = tool_snapshot_input_schema,
    .output_schema = tool_snapshot_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
