/* app_reset: clears an app's data and cache on a phone (as after a fresh install). Compiled into
 * the executable; the session's backend does the work (android: apps.c, device.c). */
#include "app_reset.schema.h"
#include "backend/android/android.h"
#include "backend/backend.h"
#include "mcp/confirm.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(app_reset), "clear the app's data", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *app = json_object_get(args, "app");
    if (!json_is_string(app))
        return false;
    strbuf_puts(q, "clear all data of ");
    confirm_quote_json(q, app, CONFIRM_QUOTE_MAX);
    confirm_session_phrase(q, args, "in");
    return true;
}

const struct tool tool_app_reset = {
    .name = "app_reset",
    .title = "Clear an app's data",
    .description = "Clears an app's data and cache on a phone (as after a fresh install).",
    .input_schema = tool_app_reset_input_schema,
    .output_schema = tool_app_reset_output_schema,
    .annotations = {.read_only = false,
                    .destructive = true,
                    .idempotent = true,
                    .open_world = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
    .group = "android",
};
