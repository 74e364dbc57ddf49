/* set_network: turns a phone's Wi-Fi, mobile data or airplane mode on or off; answers the state of
 * all three. Compiled into the executable; the session's backend does the work (android: apps.c,
 * device.c). */
#include "backend/android/android.h"
#include "backend/backend.h"
#include "set_network.schema.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(set_network), "switch the network", true);
}

const struct tool tool_set_network = {
    .name = "set_network",
    .title = "Switch the radios",
    .description = "Turns a phone's Wi-Fi, mobile data or airplane mode on or off; answers the "
                   "state of all three.",
    .input_schema = tool_set_network_input_schema,
    .output_schema = tool_set_network_output_schema,
    .annotations = {.read_only = false,
                    .destructive = false,
                    .idempotent = true,
                    .open_world = false},
    .handler = handle,
    .group = "android",
};
