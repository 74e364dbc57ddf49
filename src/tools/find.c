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
    .description =
        "Finds elements on a desktop by text (a substring of the accessible name or value, "
        "ignoring case; exact: the whole name or value) and/or role (\"push button\", \"text\", "
        "\"check box\", …). Takes a fresh look at the accessibility tree: matches come with refs "
        "for click, type_text and read_text, and refs from earlier snapshots stop working. When "
        "no element matches a text (and no role was given), the screen is read with OCR and the "
        "matching words are returned with their bounds and confidence (no ref: click them with "
        "\"text\" or x/y).",
    .input_schema = tool_find_input_schema,
    .output_schema = tool_find_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
