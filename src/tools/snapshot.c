/* snapshot: a structured picture of the screen: for a terminal its lines,
 * cursor, title, alternate-screen flag, size and exit status; for a desktop
 * its accessibility tree with element refs. */
#include "backend/backend.h"
#include "snapshot.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    if (json_object_get(a, "max_elements") && json_object_get(a, "max_nodes")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "max_elements, max_nodes: the same budget by two names; give one");
        return;
    }
    screen_call_run(call, BACKEND_OP(snapshot), "take a snapshot", false);
}

const struct tool tool_snapshot = {
    .name = "snapshot",
    .group = "perception",
    .title = "Snapshot the screen",
    .description =
        "The screen as structure. Terminals: lines, cursor, title, exit status. Desktops and "
        "phones: elements with refs (e1, e2, ...) for the other tools, "
        "with role, name, value, states and bounds; refs last until the next snapshot or find.",
    .input_schema = tool_snapshot_input_schema,
    .output_schema = tool_snapshot_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
