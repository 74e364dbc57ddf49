/* vnc_connect: a session on a VNC (RFB) server. Compiled into the
 * executable: the arguments are checked, the password read from the
 * environment when asked, and the policy has seen the host before the
 * module, with GLib, is loaded. The password goes to the module, and
 * from it over a socket to the connection's process, and nowhere else:
 * not into results, messages, logs, argv or the environment (the audit
 * log replaces password-like arguments itself). */
#include "backend/backend.h"
#include "backend/vnc/vnc.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "input/keys.h"
#include "mcp/confirm.h"
#include "ocr/ocr.h"
#include "session/session.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "vnc_connect.schema.h"

#include <stdlib.h>
#include <string.h>

#define VNC_BASE_PORT 5900

static void connected(void *ud, struct session *s, enum error_code code, const char *err)
{
    struct tool_call *call = ud;
    if (!s) {
        tool_call_fail_code(call, code, "cannot connect: %s", err);
        return;
    }
    json_t *out = session_to_json(s);
    tool_call_done(call, out, "connected %s to %s:%lld (%lldx%lld, security %s)", s->id,
                   json_string_value(json_object_get(out, "host")),
                   json_integer_value(json_object_get(out, "port")),
                   json_integer_value(json_object_get(out, "width")),
                   json_integer_value(json_object_get(out, "height")),
                   json_string_value(json_object_get(out, "security_type")));
}

/* viewport is {x, y, width, height} or {window}: one shape, whole. */
static bool viewport_shape(struct tool_call *call, const json_t *vp, const char *window)
{
    static const char *const numbers[] = {"x", "y", "width", "height"};
    int given = 0;
    for (int i = 0; i < 4; i++)
        given += json_object_get(vp, numbers[i]) != NULL;
    if (window && given) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "argument \"viewport\": give {x, y, width, height} or {window: "
                            "\"<title>\"}, not both");
        return false;
    }
    if (!window && given < 4) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "argument \"viewport\": give all of x, y, width and height, or "
                            "{window: \"<title>\"}");
        return false;
    }
    char *err = NULL;
    if (window && !ocr_in_build(&err)) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                            "argument \"viewport\": a window is found by OCR: %s", err);
        free(err);
        return false;
    }
    return true;
}

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    const char *host = args_string(a, "host", "");
    const char *password = args_string(a, "password", NULL);
    const char *password_env = args_string(a, "password_env", NULL);
    if (json_object_get(a, "port") && json_object_get(a, "display")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "give \"port\" or \"display\" (port 5900 + display), not both");
        return;
    }
    if (password && password_env) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "give \"password\" or \"password_env\", not both");
        return;
    }
    if (password_env) {
        password = getenv(password_env);
        if (!password || !*password) {
            tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                                "argument \"password_env\": the environment variable %s is not "
                                "set in the glovebox process",
                                password_env);
            return;
        }
    }
    long long port = json_object_get(a, "port") ? args_int(a, "port", VNC_BASE_PORT)
                                                : VNC_BASE_PORT + args_int(a, "display", 0);
    /* type_text's paste chord: a chord press_key would take. */
    const char *paste_keys = args_string(a, "paste_keys", NULL);
    struct input_key chord;
    char *chord_err = NULL;
    if (paste_keys && !input_keys_parse("paste_keys", paste_keys, &chord, &chord_err)) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT, "%s", chord_err);
        free(chord_err);
        return;
    }
    const json_t *vp = json_object_get(a, "viewport");
    const char *vp_window = vp ? args_string(vp, "window", NULL) : NULL;
    if (vp && !viewport_shape(call, vp, vp_window))
        return;
    int vp_w = vp ? (int)args_int(vp, "width", 0) : 0,
        vp_h = vp ? (int)args_int(vp, "height", 0) : 0;
    char *err = NULL;
    const struct vnc_api *vnc = backend_load("vnc", &err);
    if (!vnc) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot connect: %s", err);
        free(err);
        return;
    }
    struct session_client who;
    if (!screen_call_admit(call, &who))
        return;
    struct vnc_options o = {
        .host = host,
        .port = (int)port,
        .password = password,
        .username = args_string(a, "username", NULL),
        .name = args_string(a, "name", NULL),
        .timeout_ms = (int)args_int(a, "timeout_ms", 10000),
        .vp_x = vp ? (int)args_int(vp, "x", 0) : 0,
        .vp_y = vp ? (int)args_int(vp, "y", 0) : 0,
        .reconnect_s = (int)args_int(a, "reconnect_s", 0),
        .tls_verify = args_bool(a, "tls_verify", true),
        .ca_file = args_string(a, "ca_file", NULL),
        .iphone_mirroring = args_bool(a, "iphone_mirroring", false),
        .paste_keys = paste_keys,
        .vp_w = vp_w,
        .vp_h = vp_h,
        .vp_window = vp_window,
        .client = &who,
    };
    vnc->connect(tool_call_app(call), &o, connected, call);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    /* Host and port only: what a person reads never holds the password. */
    json_t *host = json_object_get(args, "host");
    if (!json_is_string(host))
        return false;
    strbuf_puts(q, "connect to the VNC server ");
    confirm_quote_json(q, host, CONFIRM_QUOTE_MAX);
    return true;
}

static const struct tool_rule_args rule_args = {.host = "host"};

const struct tool tool_vnc_connect = {
    .name = "vnc_connect",
    .group = "vnc",
    .title = "Connect to a remote desktop (VNC)",
    .description = "A remote desktop over VNC (password, TLS or macOS account); then screen tools; "
                   "OCR reads text.",
    .input_schema = tool_vnc_connect_input_schema,
    .output_schema = tool_vnc_connect_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
    .confirm_phrase = confirm_phrase,
};
