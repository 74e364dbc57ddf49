/* Input on a device: taps, drags, scrolls and computer's touches as evdev
 * events when the session has a touch stream (touch_events.c), else (and
 * keys, buttons, text always) through its `input` command, one line in the
 * session's long-lived shell per call (input_shell.c). The session caches
 * the screen size, so a tap is one round trip. */
#include "backend/android/internal.h"
#include "backend/android/perceive.h"
#include "core/args.h"
#include "core/base64.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an input call answers once its command has run. */
struct act {
    json_t *result;
    char *text; /* the caption */
};

static void act_free(struct act *x)
{
    json_decref(x->result);
    free(x->text);
    free(x);
}

static void acted(struct backend_call *bc, const struct adb_reply *r)
{
    struct act *x = bc->backend_data;
    if (!android_step_failed(bc, r, "send the input")) {
        backend_call_done(bc, x->result, "%s", x->text);
        x->result = NULL;
    }
    act_free(x);
}

void android_act(struct backend_call *bc, json_t *result, char *caption, const char *cmd)
{
    struct act *x = xcalloc(1, sizeof *x);
    x->result = result;
    x->text = caption;
    bc->backend_data = x;
    android_shell_run(bc, cmd, acted);
}

/* A ref of the latest snapshot or find; false when bc was answered. */
static bool ref_bounds(struct backend_call *bc, const char *ref, struct android_ref *out)
{
    const struct android_ref *r = android_ref_lookup(bc, ref, "");
    if (r)
        *out = *r;
    return r != NULL;
}

/* target (stolen, or NULL): what was tapped, for the answer. */
static void tap(struct backend_call *bc, int x, int y, json_t *target)
{
    int count = (int)args_int(bc->args, "count", 1);
    int hold = (int)args_int(bc->args, "hold_ms", 0);
    struct android *a = android_of(bc->session);
    a->pointer_x = x;
    a->pointer_y = y;
    a->pointer_known = true;
    if (hold > 0)
        count = 1;
    json_t *result = json_pack("{s:s, s:i, s:i, s:s, s:i}", "session", bc->session->id, "x", x, "y",
                               y, "button", "left", "count", hold > 0 ? 1 : count);
    if (target)
        json_object_set_new(result, "target", target);
    char *caption = xasprintf("%s %d,%d%s", hold > 0 ? "long-pressed" : "tapped", x, y,
                              hold > 0     ? ""
                              : count == 2 ? " twice"
                              : count == 3 ? " three times"
                                           : "");
    if (android_touch_live(a)) {
        android_touch_tap(bc, x, y, count, hold, result, caption);
        return;
    }
    struct strbuf cmd = {0};
    if (hold > 0) {
        /* A swipe that stays put is a long press. */
        strbuf_printf(&cmd, "input swipe %d %d %d %d %d", x, y, x, y, hold);
        count = 1;
    } else {
        for (int i = 0; i < count; i++)
            strbuf_printf(&cmd, "%sinput tap %d %d", i ? " && " : "", x, y);
    }
    android_act(bc, result, caption, cmd.data);
    strbuf_finish(&cmd);
}

static int centre(int start, int size)
{
    return start + size / 2;
}

struct by_text {
    char *text, *role;
    bool exact;
};

static void tap_seen(struct backend_call *bc, int x, int y, const json_t *match)
{
    tap(bc, x, y,
        json_pack("{s:O, s:i, s:i, s:s, s:s}", "text", json_object_get(match, "text"), "x", x, "y",
                  y, "by", "pointer", "source", "ocr"));
}

static void click_dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct by_text *q = bc->backend_data;
    bc->backend_data = NULL;
    struct android_ref t;
    bool missing = false;
    bool found = android_find_target(bc, r, q->text, q->role, q->exact, &t, &missing);
    if (found) {
        tap(bc, centre(t.x, t.w), centre(t.y, t.h), NULL);
    } else if (missing) {
        /* No element has it: the pixels may (a game, a canvas, an image),
         * as find reads them; a role only the tree knows. */
        enum error_code code;
        char *err = NULL;
        if (!q->role && android_ocr_usable(bc, &code, &err))
            android_locate_ocr(bc, q->text, q->exact, tap_seen);
        else
            android_no_text(bc, q->text, q->role, false);
        free(err);
    }
    free(q->text);
    free(q->role);
    free(q);
}

void android_click_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    const char *button = args_string(bc->args, "button", "left");
    if (strcmp(button, "left") != 0) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "button: touch screens have no %s button; a tap is \"left\", a "
                               "long press is hold_ms",
                               button);
        return;
    }
    const char *ref = args_string(bc->args, "ref", NULL);
    const char *text = args_string(bc->args, "text", NULL);
    if (ref) {
        struct android_ref b;
        if (ref_bounds(bc, ref, &b))
            tap(bc, centre(b.x, b.w), centre(b.y, b.h),
                json_pack("{s:s, s:i, s:i, s:s}", "ref", ref, "x", centre(b.x, b.w), "y",
                          centre(b.y, b.h), "by", "pointer"));
        return;
    }
    if (text) {
        struct by_text *q = xcalloc(1, sizeof *q);
        q->text = xstrdup(text);
        q->role = args_string(bc->args, "role", NULL) ? xstrdup(args_string(bc->args, "role", NULL))
                                                      : NULL;
        q->exact = args_bool(bc->args, "exact", false);
        bc->backend_data = q;
        android_run(bc, ADB_SHELL_V2, "uiautomator dump /dev/tty", ANDROID_TIMEOUT_MS,
                    ANDROID_MAX_TEXT, click_dumped);
        return;
    }
    if (!json_object_get(bc->args, "x") || !json_object_get(bc->args, "y")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "click needs x and y, ref or text");
        return;
    }
    double scale = args_number(bc->args, "scale", 1.0);
    double fx = args_number(bc->args, "x", 0) / scale, fy = args_number(bc->args, "y", 0) / scale;
    int x = (int)lround(fx), y = (int)lround(fy);
    if (x >= a->width || y >= a->height) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "x, y: (%d,%d) is outside the %dx%d screen%s", x, y, a->width,
                               a->height, scale != 1.0 ? " (after dividing by scale)" : "");
        return;
    }
    tap(bc, x, y, NULL);
}

#define ADB_IME "com.android.adbkeyboard/.AdbIME"

static void type_with(struct backend_call *bc, char *typing);

/* Text `input text` cannot type goes through ADBKeyBoard when it is the
 * current input method: base64 in a broadcast, so no character reaches sh. */
static void ime_checked(struct backend_call *bc, const struct adb_reply *r)
{
    char *why = bc->backend_data;
    bc->backend_data = NULL;
    if (android_step_failed(bc, r, "check the input method")) {
        free(why);
        return;
    }
    const char *out = (const char *)r->out;
    size_t n = strcspn(out, "\r\n");
    if (n == strlen(ADB_IME) && strncmp(out, ADB_IME, n) == 0) {
        free(why);
        const char *text = args_string(bc->args, "text", "");
        char *b64 = base64_encode((const uint8_t *)text, strlen(text));
        /* -p: delivered to ADBKeyBoard alone, not to every app that
         * listens for the action (the text may be a password). */
        type_with(bc, xasprintf("am broadcast -a ADB_INPUT_B64 -p com.android.adbkeyboard --es "
                                "msg %s",
                                b64));
        free(b64);
        return;
    }
    bool installed = strstr(out + n, ADB_IME) != NULL;
    backend_call_fail_code(bc, ERROR_NOT_SUPPORTED, "%s. %s", why,
                           installed ? "ADBKeyBoard is installed but is not the current input "
                                       "method: run `adb shell ime enable " ADB_IME
                                       "` and `adb shell ime set " ADB_IME "`, then type again"
                                     : "Install ADBKeyBoard (https://github.com/senzhk/"
                                       "ADBKeyBoard: adb install ADBKeyboard.apk; adb shell ime "
                                       "enable " ADB_IME "; adb shell ime set " ADB_IME
                                       "), then type again");
    free(why);
}

void android_type_text_op(struct backend_call *bc)
{
    const char *text = args_string(bc->args, "text", "");
    char *err = NULL;
    char *typing = android_input_text_command(text, &err);
    if (!typing) {
        /* The current input method first, then the installed ones. */
        bc->backend_data = err;
        android_run(bc, ADB_SHELL_V2, "settings get secure default_input_method; ime list -s",
                    ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, ime_checked);
        return;
    }
    type_with(bc, typing);
}

/* typing (stolen): the command that types the text. */
static void type_with(struct backend_call *bc, char *typing)
{
    const char *text = args_string(bc->args, "text", "");
    const char *ref = args_string(bc->args, "ref", NULL);
    struct strbuf cmd = {0};
    size_t chars = 0;
    for (const char *p = text; *p; p++)
        chars += ((unsigned char)*p & 0xc0) != 0x80;
    json_t *result = json_pack("{s:s, s:I, s:I}", "session", bc->session->id, "bytes",
                               (json_int_t)strlen(text), "characters", (json_int_t)chars);
    if (ref) {
        struct android_ref b;
        if (!ref_bounds(bc, ref, &b)) {
            json_decref(result);
            free(typing);
            return;
        }
        /* Focus the field first: a tap, then the text, in one step. */
        strbuf_printf(&cmd, "input tap %d %d && ", centre(b.x, b.w), centre(b.y, b.h));
        json_object_set_new(result, "target", json_pack("{s:s}", "ref", ref));
    }
    strbuf_puts(&cmd, typing);
    free(typing);
    bool secret = args_bool(bc->args, "secret", false);
    char *caption = secret ? xasprintf("typed %zu characters (secret)", chars)
                           : xasprintf("typed %zu characters", chars);
    android_act(bc, result, caption, cmd.data);
    strbuf_finish(&cmd);
}

void android_press_key_op(struct backend_call *bc)
{
    const char *spec = args_string(bc->args, "key", "");
    int repeat = (int)args_int(bc->args, "repeat", 1);
    int code;
    enum error_code ec;
    char *err = NULL;
    if (!android_keycode(spec, &code, &ec, &err)) {
        backend_call_fail_code(bc, ec, "%s", err);
        free(err);
        return;
    }
    struct strbuf cmd = {0};
    strbuf_puts(&cmd, "input keyevent");
    for (int i = 0; i < repeat; i++)
        strbuf_printf(&cmd, " %d", code);
    json_t *result = json_pack("{s:s, s:s, s:i, s:i}", "session", bc->session->id, "key", spec,
                               "repeat", repeat, "keycode", code);
    android_act(bc, result,
                xasprintf("pressed %s (KEYCODE %d)%s", spec, code, repeat > 1 ? " repeatedly" : ""),
                cmd.data);
    strbuf_finish(&cmd);
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void android_scroll_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    const char *dir = args_string(bc->args, "direction", "down");
    int amount = (int)args_int(bc->args, "amount", 3);
    double scale = args_number(bc->args, "scale", 1.0);
    int x = json_object_get(bc->args, "x") ? (int)lround(args_number(bc->args, "x", 0) / scale)
                                           : a->width / 2;
    int y = json_object_get(bc->args, "y") ? (int)lround(args_number(bc->args, "y", 0) / scale)
                                           : a->height / 2;
    if (x >= a->width || y >= a->height) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "x, y: (%d,%d) is outside the %dx%d "
                               "screen",
                               x, y, a->width, a->height);
        return;
    }
    bool vertical = strcmp(dir, "up") == 0 || strcmp(dir, "down") == 0;
    /* One wheel click is a tenth of the screen; the finger moves against
     * the content: scrolling down drags upwards. */
    int span = (vertical ? a->height : a->width) * amount / 10;
    int limit = (vertical ? a->height : a->width) * 8 / 10;
    if (span > limit)
        span = limit;
    int sign = strcmp(dir, "down") == 0 || strcmp(dir, "right") == 0 ? -1 : 1;
    int x1 = x, y1 = y, x2 = x, y2 = y;
    if (vertical) {
        y1 = clamp(y - sign * span / 2, 0, a->height - 1);
        y2 = clamp(y + sign * span / 2, 0, a->height - 1);
    } else {
        x1 = clamp(x - sign * span / 2, 0, a->width - 1);
        x2 = clamp(x + sign * span / 2, 0, a->width - 1);
    }
    json_t *result = json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "direction", dir,
                               "amount", amount);
    char *caption =
        xasprintf("scrolled %s by %d (swipe %d,%d → %d,%d)", dir, amount, x1, y1, x2, y2);
    if (android_touch_live(a)) {
        android_touch_swipe(bc, x1, y1, x2, y2, 300, result, caption);
        return;
    }
    char *cmd = xasprintf("input swipe %d %d %d %d 300", x1, y1, x2, y2);
    android_act(bc, result, caption, cmd);
    free(cmd);
}

/* A point of drag's from/to, divided by scale and inside the screen; false
 * when bc was answered. */
static bool drag_point(struct backend_call *bc, const char *field, int *x, int *y)
{
    struct android *a = android_of(bc->session);
    const json_t *p = json_object_get(bc->args, field);
    double scale = args_number(bc->args, "scale", 1.0);
    *x = (int)lround(json_number_value(json_object_get(p, "x")) / scale);
    *y = (int)lround(json_number_value(json_object_get(p, "y")) / scale);
    if (*x < a->width && *y < a->height)
        return true;
    backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s: (%d,%d) is outside the %dx%d screen",
                           field, *x, *y, a->width, a->height);
    return false;
}

void android_drag_op(struct backend_call *bc)
{
    const char *button = args_string(bc->args, "button", "left");
    if (strcmp(button, "left") != 0) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "button: touch screens have no %s button; a drag is one finger",
                               button);
        return;
    }
    int x1, y1, x2, y2;
    if (!drag_point(bc, "from", &x1, &y1) || !drag_point(bc, "to", &x2, &y2))
        return;
    /* A finger down at from, moved to to over duration_ms, lifted: `input
     * swipe` (the duration keeps it from being a fling). */
    int ms = (int)args_int(bc->args, "duration_ms", 300);
    json_t *result = json_pack("{s:s, s:{s:i, s:i}, s:{s:i, s:i}}", "session", bc->session->id,
                               "from", "x", x1, "y", y1, "to", "x", x2, "y", y2);
    char *caption = xasprintf("dragged from %d,%d to %d,%d over %d ms", x1, y1, x2, y2, ms);
    struct android *a = android_of(bc->session);
    if (android_touch_live(a)) {
        android_touch_swipe(bc, x1, y1, x2, y2, ms, result, caption);
        return;
    }
    char *cmd = xasprintf("input swipe %d %d %d %d %d", x1, y1, x2, y2, ms);
    android_act(bc, result, caption, cmd);
    free(cmd);
}

/* computer's pointer on a touch screen: a finger put down, moved and lifted
 * (`input motionevent`, Android 11 and later), or where the last touch was.
 * With no finger down a move only says where the next touch starts: a
 * touch screen has no pointer hovering. */
void android_pointer_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    const char *what = args_string(bc->args, "action", "where");
    bool has_point = json_object_get(bc->args, "x") && json_object_get(bc->args, "y");
    int x = has_point ? (int)json_integer_value(json_object_get(bc->args, "x")) : a->pointer_x;
    int y = has_point ? (int)json_integer_value(json_object_get(bc->args, "y")) : a->pointer_y;
    if (has_point && (x < 0 || y < 0 || x >= a->width || y >= a->height)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "point %d,%d is outside the %dx%d screen", x, y, a->width,
                               a->height);
        return;
    }
    json_t *data = json_pack("{s:s, s:i, s:i}", "session", bc->session->id, "x", x, "y", y);
    const char *event = NULL;
    if (!strcmp(what, "down"))
        event = "DOWN";
    else if (!strcmp(what, "up"))
        event = a->finger_down ? "UP" : NULL;
    else if (!strcmp(what, "move"))
        event = a->finger_down ? "MOVE" : NULL;
    if (strcmp(what, "where")) {
        a->pointer_x = x;
        a->pointer_y = y;
        a->pointer_known = true;
    }
    if (!event) {
        if (!a->pointer_known)
            json_object_set_new(data, "known", json_false());
        backend_call_done(bc, data, "the last touch is at %d,%d", x, y);
        return;
    }
    a->finger_down = !strcmp(event, "DOWN") || !strcmp(event, "MOVE");
    if (android_touch_live(a)) {
        android_touch_pointer(bc, !strcmp(event, "DOWN"), !strcmp(event, "UP"), x, y, data,
                              xasprintf("touch %s at %d,%d", event, x, y));
        return;
    }
    char *cmd = xasprintf("input motionevent %s %d %d", event, x, y);
    android_act(bc, data, xasprintf("touch %s at %d,%d", event, x, y), cmd);
    free(cmd);
}
