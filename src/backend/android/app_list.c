/* app_list: lists a phone's launchable apps (all: every package), marking system ones. Compiled
 * into the executable; the session's backend does the work (android: apps.c, device.c). */
#include "app_list.schema.h"
#include "backend/android/android.h"
#include "backend/backend.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(app_list), "list the apps", true);
}

const struct tool tool_app_list = {
    .name = "app_list",
    .title = "List apps",
    .description = "Lists a phone's launchable apps (all: every package), marking system ones.",
    .input_schema = tool_app_list_input_schema,
    .output_schema = tool_app_list_output_schema,
    .annotations = {.read_only = true, .idempotent = true, .open_world = false},
    .handler = handle,
    .group = "android",
};
