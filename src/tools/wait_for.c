/* wait_for: wait for what you expect instead of sleeping. */
#include "backend/backend.h"
#include "core/args.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "tools/wait_control.h"
#include "wait_for.schema.h"

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    if (json_object_get(a, "control")) {
        wait_control_run(call);
        return;
    }
    bool any = json_object_get(a, "text") || json_object_get(a, "regex") ||
               json_object_get(a, "ref") || json_object_get(a, "stable_ms") ||
               args_bool(a, "exit", false);
    if (!any) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "wait_for needs something to wait for: \"text\", \"regex\", "
                            "\"ref\", \"stable_ms\", \"exit\": true or \"control\": \"agent\"");
        return;
    }
    if (json_object_get(a, "text") && json_object_get(a, "regex")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "give either \"text\" or \"regex\", not both");
        return;
    }
    /* Waiting for the exit of an ended session answers at once, so it need
     * not be live; the backend checks the rest. */
    screen_call_run(call, BACKEND_OP(wait_for), "wait", false);
}

const struct tool tool_wait_for = {
    .name = "wait_for",
    .group = "perception",
    .title = "Wait for the screen",
    .description =
        "Waits until text or regex appears (gone: disappears), ref exists, the screen is still for "
        "stable_ms, or the program exits (exit). A timeout answers matched: false, not an error. "
        "control: \"agent\" waits until a person who took the session over in the live viewer "
        "hands it back (their note in the answer; a timeout is then an error).",
    .input_schema = tool_wait_for_input_schema,
    .output_schema = tool_wait_for_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
