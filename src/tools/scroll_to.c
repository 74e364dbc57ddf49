/* scroll_to: scroll until an element shows. */
#include "backend/backend.h"
#include "scroll_to.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(scroll_to), "scroll to an element", true);
}

const struct tool tool_scroll_to = {
    .name = "scroll_to",
    .title = "Scroll to an element",
    .description = "Desktop: scrolls until the element (text, ref, role) shows; answers its ref, "
                   "bounds and scrolls. Fails at the end or after max_scrolls.",
    .input_schema = tool_scroll_to_input_schema,
    .output_schema = tool_scroll_to_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
    .group = "elements",
};
