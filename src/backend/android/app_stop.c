/* app_stop: force-stops an app on a phone. Compiled into the executable;
 * the session's backend does the work (android: apps.c, device.c). */
#include "app_stop.schema.h"
#include "backend/android/android.h"
#include "backend/backend.h"
#include "mcp/confirm.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(app_stop), "stop the app", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *app = json_object_get(args, "app");
    if (!json_is_string(app))
        return false;
    strbuf_puts(q, "stop ");
    confirm_quote_json(q, app, CONFIRM_QUOTE_MAX);
    confirm_session_phrase(q, args, "in");
    return true;
}

const struct tool tool_app_stop = {
    .name = "app_stop",
    .title = "Stop an app",
    .description = "Force-stops an app on a phone.",
    .input_schema = tool_app_stop_input_schema,
    .output_schema = tool_app_stop_output_schema,
    .annotations = {.read_only = false,
                    .destructive = false,
                    .idempotent = true,
                    .open_world = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
    .group = "android",
};
