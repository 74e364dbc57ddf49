/* device_list: the devices the adb server sees, with what an unusable
 * state means. Compiled into the executable; adb is in the module. */
#include "backend/android/android.h"
#include "backend/backend.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "device_list.schema.h"
#include "tools/host_rules.h"
#include "tools/tools.h"

#include <stdlib.h>

static void listed(json_t *out, enum error_code code, const char *err, void *ud)
{
    struct tool_call *call = ud;
    if (!out) {
        tool_call_fail_code(call, code, "cannot list devices: %s", err);
        return;
    }
    struct strbuf sb = {0};
    strbuf_printf(&sb, "%lld device(s) on %s",
                  (long long)json_integer_value(json_object_get(out, "count")),
                  json_string_value(json_object_get(out, "adb_server")));
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(out, "devices"), i, d)
    {
        const char *model = json_string_value(json_object_get(d, "model"));
        const char *why = json_string_value(json_object_get(d, "explanation"));
        strbuf_printf(&sb, "\n%s %s%s%s%s%s", json_string_value(json_object_get(d, "serial")),
                      json_string_value(json_object_get(d, "state")), model ? " " : "",
                      model ? model : "", why ? ": " : "", why ? why : "");
    }
    tool_call_done(call, out, "%s", sb.data);
    strbuf_finish(&sb);
}

static void handle(struct tool_call *call)
{
    char *err = NULL;
    const struct android_api *android = backend_load("android", &err);
    if (!android) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot list devices: %s", err);
        free(err);
        return;
    }
    android->list(tool_call_app(call), args_string(tool_call_args(call), "adb_server", NULL),
                  host_rules_listed(call, "device_list"), listed, call);
}

static const struct tool_rule_args rule_args = {.host = "adb_server"};

const struct tool tool_device_list = {
    .name = "device_list",
    .group = "android",
    .title = "List Android devices",
    .description = "Lists the phones and emulators adb sees: serial, state, model.",
    .input_schema = tool_device_list_input_schema,
    .output_schema = tool_device_list_output_schema,
    .annotations = {.read_only = true, .idempotent = true, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
};
