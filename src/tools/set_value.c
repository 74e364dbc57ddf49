/* set_value: a slider's or spin button's value, through AT-SPI Value. */
#include "backend/backend.h"
#include "set_value.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(set_value), "set a value", true);
}

const struct tool tool_set_value = {
    .name = "set_value",
    .title = "Set a value",
    .description = "Desktop: sets a slider or spin button (AT-SPI Value); answers the value kept.",
    .input_schema = tool_set_value_input_schema,
    .output_schema = tool_set_value_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = true},
    .handler = handle,
    .group = "elements",
};
