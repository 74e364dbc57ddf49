/* android_connect: a phone or emulator the adb server sees, as a new
 * session. Compiled into the executable; adb and the session are in the
 * module. */
#include "android_connect.schema.h"
#include "backend/android/android.h"
#include "backend/backend.h"
#include "core/app.h"
#include "core/args.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "tools/host_rules.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

#include <stdlib.h>

static void connected(struct session *s, enum error_code code, const char *err, void *ud)
{
    struct tool_call *call = ud;
    if (!s) {
        tool_call_fail_code(call, code, "cannot connect to the device: %s", err);
        return;
    }
    json_t *out = session_to_json(s);
    tool_call_done(call, out, "connected %s to %s (%s, Android %s, %lldx%lld)", s->id,
                   json_string_value(json_object_get(out, "serial")),
                   json_string_value(json_object_get(out, "model")),
                   json_string_value(json_object_get(out, "version")),
                   (long long)json_integer_value(json_object_get(out, "width")),
                   (long long)json_integer_value(json_object_get(out, "height")));
}

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    char *err = NULL;
    /* The module is loaded on the first connect (the loop pays it once). */
    const struct android_api *android = backend_load("android", &err);
    if (!android) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot connect to a device: %s", err);
        free(err);
        return;
    }
    struct session_client who;
    if (!screen_call_admit(call, &who))
        return;
    struct android_options o = {
        .serial = args_string(a, "serial", NULL),
        .adb_server = args_string(a, "adb_server", NULL),
        .name = args_string(a, "name", NULL),
        .remote_ok = host_rules_listed(call, "android_connect"),
        .stream = args_bool(a, "stream", true),
        .input = args_string(a, "input", NULL),
        .client = &who,
    };
    android->connect(tool_call_app(call), &o, connected, call);
}

static const struct tool_rule_args rule_args = {.host = "adb_server"};

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *serial = json_object_get(args, "serial");
    strbuf_puts(q, "control the Android device ");
    if (json_is_string(serial))
        confirm_quote_json(q, serial, CONFIRM_QUOTE_MAX);
    else
        strbuf_puts(q, "connected to this computer");
    return true;
}

const struct tool tool_android_connect = {
    .name = "android_connect",
    .group = "android",
    .title = "Connect to an Android device",
    .description = "Connects to a phone or emulator through adb. Then snapshot and find (refs), "
                   "click, type_text, press_key, scroll, screenshot.",
    .input_schema = tool_android_connect_input_schema,
    .output_schema = tool_android_connect_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
    .confirm_phrase = confirm_phrase,
};
