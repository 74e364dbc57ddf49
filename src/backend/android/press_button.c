/* press_button: presses a phone's hardware or navigation button (home, back, app_switch, power,
 * volumes…). Compiled into the executable; the session's backend does the work (android: apps.c,
 * device.c). */
#include "backend/android/android.h"
#include "backend/backend.h"
#include "press_button.schema.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(press_button), "press a button", true);
}

const struct tool tool_press_button = {
    .name = "press_button",
    .title = "Press a phone button",
    .description = "Presses a phone's hardware or navigation button (home, back, app_switch, "
                   "power, volumes…).",
    .input_schema = tool_press_button_input_schema,
    .output_schema = tool_press_button_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = false},
    .handler = handle,
    .group = "android",
};
