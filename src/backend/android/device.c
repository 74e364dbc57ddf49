/* The device itself: hardware buttons (`input keyevent`), the screen's
 * orientation (the system settings user_rotation and
 * accelerometer_rotation, read back from `dumpsys input`), the radios (svc
 * wifi/data, cmd connectivity airplane-mode) and URLs (a VIEW intent). What
 * a device refuses is not_supported with its own words. */
#include "backend/android/internal.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- press_button ------------------------------------------------------- */

static const struct {
    const char *name;
    int keycode; /* KeyEvent.KEYCODE_* */
} buttons[] = {
    {"home", 3},       {"back", 4},         {"app_switch", 187},  {"power", 26},
    {"volume_up", 24}, {"volume_down", 25}, {"volume_mute", 164}, {"enter", 66},
    {"menu", 82},      {"search", 84},      {"camera", 27},       {"wakeup", 224},
    {"sleep", 223},    {"forward", 125},
};

void android_press_button_op(struct backend_call *bc)
{
    const char *button = args_string(bc->args, "button", "");
    for (size_t i = 0; i < sizeof buttons / sizeof buttons[0]; i++) {
        if (strcmp(buttons[i].name, button) != 0)
            continue;
        char *cmd = xasprintf("input keyevent %d", buttons[i].keycode);
        android_act(bc,
                    json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "button", button,
                              "keycode", buttons[i].keycode),
                    xasprintf("pressed %s (KEYCODE %d)", button, buttons[i].keycode), cmd);
        free(cmd);
        return;
    }
    /* The schema's enum stops this first; kept for callers without it. */
    backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "button: \"%.50s\" is not a button", button);
}

/* ---- orientation -------------------------------------------------------- */

static const char *const rotation_names[] = {"portrait", "landscape", "reverse_portrait",
                                             "reverse_landscape"};

/* A device's refusal (a missing command or service, a permission) rather
 * than a failure of the moment. */
static bool refused(const char *s)
{
    return strstr(s, "inaccessible or not found") || strstr(s, "Can't find service") ||
           strstr(s, "Unknown command") || strstr(s, "Permission denial") ||
           strstr(s, "Permission Denial") || strstr(s, "SecurityException");
}

/* The line of out that says why (refused), for messages; caller frees. */
static char *refusal_line(const char *out)
{
    for (const char *l = out; *l;) {
        size_t n = strcspn(l, "\r\n");
        char *line = xasprintf("%.*s", (int)(n > 300 ? 300 : n), l);
        if (refused(line))
            return line;
        free(line);
        l += n;
        l += strspn(l, "\r\n");
    }
    return xasprintf("%.300s", out);
}

static json_t *orientation_result(struct backend_call *bc, bool auto_rotate)
{
    struct android *a = android_of(bc->session);
    return json_pack("{s:s, s:s, s:i, s:b, s:i, s:i}", "session", bc->session->id, "orientation",
                     rotation_names[a->rotation], "rotation", a->rotation * 90, "auto_rotate",
                     auto_rotate, "width", a->width, "height", a->height);
}

static void oriented(struct backend_call *bc, const struct adb_reply *r)
{
    struct android *a = android_of(bc->session);
    const char *set = args_string(bc->args, "set", NULL);
    const char *out = (const char *)r->out;
    if (r->ok && set && (refused(out) || (r->err_len && refused((const char *)r->err)))) {
        char *why = refusal_line(refused(out) ? out : (const char *)r->err);
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "orientation: %s does not let adb set the rotation: %s", a->serial,
                               why);
        free(why);
        return;
    }
    if (android_step_failed(bc, r, set ? "set the orientation" : "read the orientation"))
        return;
    /* The first line: accelerometer_rotation; then the input dump. */
    bool auto_rotate = strncmp(out, "1", 1) == 0;
    int rot = -1;
    if (set && strcmp(set, "auto") != 0) {
        /* The requested one: a device takes a moment to turn, so the dump may still
         * show the old rotation. */
        for (int i = 0; i < 4; i++)
            if (strcmp(set, rotation_names[i]) == 0)
                rot = i;
    } else {
        rot = android_parse_rotation(out);
    }
    if (rot < 0) {
        backend_call_fail(bc,
                          "cannot read the orientation of %s: `dumpsys input` has no "
                          "SurfaceOrientation or orientation= line",
                          a->serial);
        return;
    }
    android_set_rotation(a, rot);
    backend_call_done(bc, orientation_result(bc, auto_rotate), "%s (%d°)%s, screen %dx%d",
                      rotation_names[a->rotation], a->rotation * 90,
                      auto_rotate ? ", auto-rotate on" : "", a->width, a->height);
}

void android_orientation_op(struct backend_call *bc)
{
    const char *set = args_string(bc->args, "set", NULL);
    const char *read =
        "settings get system accelerometer_rotation; dumpsys input | grep rientation";
    char *cmd;
    if (!set) {
        cmd = xstrdup(read);
    } else if (strcmp(set, "auto") == 0) {
        cmd = xasprintf("settings put system accelerometer_rotation 1 2>&1 && %s", read);
    } else {
        int rot = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(set, rotation_names[i]) == 0)
                rot = i;
        if (rot < 0) {
            backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                                   "set: expected portrait, landscape, reverse_portrait, "
                                   "reverse_landscape or auto, got \"%.50s\"",
                                   set);
            return;
        }
        /* Auto-rotate off first, or the sensor turns the screen back. */
        cmd = xasprintf("settings put system accelerometer_rotation 0 2>&1 && settings put "
                        "system user_rotation %d 2>&1 && %s",
                        rot, read);
    }
    android_run(bc, ADB_SHELL_V2, cmd, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, oriented);
    free(cmd);
}

/* ---- set_network -------------------------------------------------------- */

static const struct {
    const char *arg;
    const char *on, *off; /* the commands */
    const char *setting;  /* settings global, read back */
} radios[] = {
    {"wifi", "svc wifi enable", "svc wifi disable", "wifi_on"},
    {"data", "svc data enable", "svc data disable", "mobile_data"},
    {"airplane", "cmd connectivity airplane-mode enable", "cmd connectivity airplane-mode disable",
     "airplane_mode_on"},
};
#define N_RADIOS (sizeof radios / sizeof radios[0])

static void networked(struct backend_call *bc, const struct adb_reply *r)
{
    struct android *a = android_of(bc->session);
    if (android_step_failed(bc, r, "set the network"))
        return;
    /* One section per radio asked for, then the settings read back. */
    const char *p = (const char *)r->out;
    for (size_t i = 0; i < N_RADIOS; i++) {
        if (!json_is_boolean(json_object_get(bc->args, radios[i].arg)))
            continue;
        const char *end = strstr(p, "@@\n");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *said = xasprintf("%.*s", (int)n, p);
        bool no = refused(said) || strstr(said, "usage:") || strstr(said, "Usage:") ||
                  strstr(said, "Available commands:");
        if (no) {
            char *why = refusal_line(said);
            free(said);
            said = why;
            backend_call_fail_code(
                bc, ERROR_NOT_SUPPORTED, "%s: %s does not let adb switch it (`%s`: %s)%s",
                radios[i].arg, a->serial, radios[i].on, said,
                strcmp(radios[i].arg, "airplane") == 0 ? "; airplane mode needs Android 11 or later"
                                                       : "");
            free(said);
            return;
        }
        free(said);
        p = end ? end + 3 : p + n;
    }
    json_t *state = json_object();
    struct strbuf text = {0};
    for (size_t i = 0; i < N_RADIOS; i++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        /* wifi_on 2: on, remembered across airplane mode. "null": never set. */
        bool on = n > 0 && p[0] != '0' && strncmp(p, "null", 4) != 0;
        json_object_set_new(state, radios[i].arg, json_boolean(on));
        strbuf_printf(&text, "%s%s %s", i ? ", " : "", radios[i].arg, on ? "on" : "off");
        p = nl ? nl + 1 : p + n;
    }
    backend_call_done(bc, json_pack("{s:s, s:o}", "session", bc->session->id, "state", state), "%s",
                      text.data);
    strbuf_finish(&text);
}

void android_set_network_op(struct backend_call *bc)
{
    struct strbuf cmd = {0};
    for (size_t i = 0; i < N_RADIOS; i++) {
        const json_t *v = json_object_get(bc->args, radios[i].arg);
        if (json_is_boolean(v))
            strbuf_printf(&cmd, "%s 2>&1; echo @@; ",
                          json_is_true(v) ? radios[i].on : radios[i].off);
    }
    for (size_t i = 0; i < N_RADIOS; i++)
        strbuf_printf(&cmd, "%ssettings get global %s", i ? "; " : "", radios[i].setting);
    android_run(bc, ADB_SHELL_V2, cmd.data, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, networked);
    strbuf_finish(&cmd);
}

/* ---- open_url ----------------------------------------------------------- */

static void opened(struct backend_call *bc, const struct adb_reply *r)
{
    const char *url = args_string(bc->args, "url", "");
    if (android_step_failed(bc, r, "open the URL"))
        return;
    backend_call_done(bc, json_pack("{s:s, s:s}", "session", bc->session->id, "url", url),
                      "opened %s", url);
}

void android_open_url_op(struct backend_call *bc)
{
    /* The tool has checked the scheme (http, https) and the policy's hosts. */
    char *q = android_sh_quote(args_string(bc->args, "url", ""));
    char *cmd = xasprintf("am start -a android.intent.action.VIEW -d %s", q);
    android_run(bc, ADB_SHELL_V2, cmd, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, opened);
    free(cmd);
    free(q);
}
