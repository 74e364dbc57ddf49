/* app_install: copy an APK from the glovebox machine to a phone and install
 * it (replacing an older version). Compiled into the executable; the
 * session's backend does the work (android: apps.c). */
#include "app_install.schema.h"
#include "backend/android/android.h"
#include "backend/backend.h"
#include "mcp/confirm.h"
#include "tools/screen_call.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(app_install), "install an app", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *path = json_object_get(args, "path");
    if (!json_is_string(path))
        return false;
    strbuf_puts(q, "install the app ");
    confirm_quote_json(q, path, CONFIRM_QUOTE_MAX);
    confirm_session_phrase(q, args, "on");
    return true;
}

const struct tool tool_app_install = {
    .name = "app_install",
    .title = "Install an app",
    .description = "Copies an APK from the glovebox machine to a phone and installs it "
                   "(replacing an older version), with progress.",
    .input_schema = tool_app_install_input_schema,
    .output_schema = tool_app_install_output_schema,
    .annotations = {.read_only = false, .destructive = true, .open_world = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
    .group = "android",
};
