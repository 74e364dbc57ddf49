/* app_uninstall: removes an app from a phone (pm uninstall). Compiled into
 * the executable; the session's backend does the work (android: apps.c). */
#include "app_uninstall.schema.h"
#include "backend/android/android.h"
#include "backend/backend.h"
#include "mcp/confirm.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(app_uninstall), "uninstall the app", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *app = json_object_get(args, "app");
    if (!json_is_string(app))
        return false;
    strbuf_puts(q, "uninstall the app ");
    confirm_quote_json(q, app, CONFIRM_QUOTE_MAX);
    if (json_is_true(json_object_get(args, "keep_data")))
        strbuf_puts(q, " (keeping its data)");
    confirm_session_phrase(q, args, "from");
    return true;
}

const struct tool tool_app_uninstall = {
    .name = "app_uninstall",
    .title = "Uninstall an app",
    .description = "Removes an app from a phone, with its data unless keep_data.",
    .input_schema = tool_app_uninstall_input_schema,
    .output_schema = tool_app_uninstall_output_schema,
    .annotations = {.read_only = false,
                    .destructive = true,
                    .idempotent = false,
                    .open_world = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
    .group = "android",
};
