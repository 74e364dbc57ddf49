/* orientation: reads the phone's screen orientation, or sets it (auto: follow the sensor). Compiled
 * into the executable; the session's backend does the work (android: apps.c, device.c). */
#include "backend/android/android.h"
#include "backend/backend.h"
#include "orientation.schema.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(orientation), "read or set the orientation", true);
}

const struct tool tool_orientation = {
    .name = "orientation",
    .title = "Screen orientation",
    .description = "Reads the phone's screen orientation, or sets it (auto: follow the sensor).",
    .input_schema = tool_orientation_input_schema,
    .output_schema = tool_orientation_output_schema,
    .annotations = {.read_only = false,
                    .destructive = false,
                    .idempotent = true,
                    .open_world = false},
    .handler = handle,
    .group = "android",
};
