/* element_at: the element under a point of a desktop, with a ref. */
#include "backend/backend.h"
#include "element_at.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(element_at), "find the element at a point", true);
}

const struct tool tool_element_at = {
    .name = "element_at",
    .title = "Element at a point",
    .description = "Desktop: the element at x,y, as inspect tells it, with a ref.",
    .input_schema = tool_element_at_input_schema,
    .output_schema = tool_element_at_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
    .group = "elements",
};
