/* find: elements by text and role, from the accessibility tree, with OCR
 * words when no element says the text. */
#include "backend/backend.h"
#include "find.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

#include <jansson.h>

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    if (!json_object_get(a, "text") && !json_object_get(a, "role")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "find needs \"text\" (a name or value to look for), \"role\" "
                            "(such as \"push button\"), or both");
        return;
    }
    screen_call_run(call, BACKEND_OP(find), "find elements", true);
}

const struct tool tool_find = {
    .name = "find",
    .group = "perception",
    .title = "Find elements",
    .description = "Finds elements by text (in name or value) and/or role, with fresh refs; when "
                   "nothing matches, OCR words with their bounds.",
    .input_schema = tool_find_input_schema,
    .output_schema = tool_find_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
