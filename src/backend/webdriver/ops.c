/* Acting on webdriver sessions: W3C actions for the pointer, the keys and
 * the wheel; scripts for text; navigation. Each operation is one or two
 * WebDriver commands whose answers come back on the loop. */
#include "backend/webdriver/internal.h"

#include "backend/webdriver/url.h"
#include "core/args.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <math.h>
#include <string.h>

/* Pixels one wheel click scrolls (Chromium's own step is about 100). */
#define WHEEL_STEP 100

/* The result's JSON, kept until the command answers. */
struct pending {
    struct backend_call *bc;
    json_t *result;
    char *text;
    const char *verb;
};

static struct pending *pending_new(struct backend_call *bc, json_t *result, char *text,
                                   const char *verb)
{
    struct pending *p = xcalloc(1, sizeof *p);
    p->bc = bc;
    p->result = result;
    p->text = text;
    p->verb = verb;
    return p;
}

static void pending_free(struct pending *p)
{
    json_decref(p->result);
    free(p->text);
    free(p);
}

/* Answers with the prepared result, or the command's error. */
static void acted(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    (void)value;
    struct pending *p = ud;
    if (err)
        backend_call_fail_code(p->bc, code, "cannot %s: %s", p->verb, err);
    else {
        backend_call_done(p->bc, p->result, "%s", p->text);
        p->result = NULL;
    }
    pending_free(p);
}

static void perform(struct backend_call *bc, json_t *source, json_t *result, char *text,
                    const char *verb)
{
    wd_command(wd_of(bc->session), "POST", "/actions", json_pack("{s:[o]}", "actions", source),
               acted, pending_new(bc, result, text, verb));
}

/* Fields of the shared tool schemas that only other kinds understand. */
static bool refuse_fields(struct backend_call *bc, const char *verb, const char *const *fields)
{
    for (const char *const *f = fields; *f; f++)
        if (json_object_get(bc->args, *f)) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot %s: argument \"%s\" is not supported on webdriver "
                                   "sessions yet (use x and y)",
                                   verb, *f);
            return true;
        }
    return false;
}

static int coord(const struct backend_call *bc, const char *key, int fallback)
{
    double scale = args_number(bc->args, "scale", 1);
    const json_t *v = json_object_get(bc->args, key);
    return v ? (int)lround(json_number_value(v) / scale) : fallback;
}

/* The mouse's input source: its state (buttons held) lasts between
 * commands, which is what lets a pointer "down" and a later "up" pair. */
static json_t *mouse(json_t *actions)
{
    return json_pack("{s:s, s:s, s:{s:s}, s:o}", "type", "pointer", "id", "mouse", "parameters",
                     "pointerType", "mouse", "actions", actions);
}

static void moved(struct backend_call *bc, int x, int y)
{
    struct wd *w = wd_of(bc->session);
    w->pointer_x = x;
    w->pointer_y = y;
    w->pointer_known = true;
}

static json_t *move_to(int x, int y, int duration_ms)
{
    return json_pack("{s:s, s:i, s:i, s:i, s:s}", "type", "pointerMove", "duration", duration_ms,
                     "x", x, "y", y, "origin", "viewport");
}

static int button_number(const char *button)
{
    return strcmp(button, "middle") == 0 ? 1 : strcmp(button, "right") == 0 ? 2 : 0;
}

/* A point of the page, or false after answering bc: the viewport glovebox
 * knows of bounds it (WebDriver would refuse with a vaguer error). */
static bool in_view(struct backend_call *bc, const char *field, int x, int y)
{
    struct wd *w = wd_of(bc->session);
    if (x >= 0 && y >= 0 && (!w->width || x < w->width) && (!w->height || y < w->height))
        return true;
    backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s %d,%d is outside the %dx%d viewport",
                           field, x, y, w->width, w->height);
    return false;
}

static void click_at(struct backend_call *bc, int x, int y, const char *ref);

/* A ref or text found: the middle of its bounds. */
static void click_target(struct backend_call *bc, const char *ref, const struct screen_rect *r,
                         bool password)
{
    (void)password;
    click_at(bc, r->x + r->width / 2, r->y + r->height / 2, ref);
}

void wd_click_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"app", "window", NULL};
    if (refuse_fields(bc, "click", unsupported))
        return;
    if (json_object_get(bc->args, "ref") || json_object_get(bc->args, "text")) {
        wd_target(bc, false, click_target);
        return;
    }
    if (!json_object_get(bc->args, "x") || !json_object_get(bc->args, "y")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot click: give \"ref\", \"text\", or \"x\" and \"y\"");
        return;
    }
    click_at(bc, coord(bc, "x", 0), coord(bc, "y", 0), NULL);
}

static void click_at(struct backend_call *bc, int x, int y, const char *ref)
{
    const char *button = args_string(bc->args, "button", "left");
    int b = button_number(button);
    int count = (int)args_int(bc->args, "count", 1);
    int hold = (int)args_int(bc->args, "hold_ms", 0);
    if (wd_of(bc->session)->native) {
        /* A finger: count taps (a double tap), hold_ms a long press. */
        moved(bc, x, y);
        json_t *result = json_pack("{s:s, s:i, s:i, s:s, s:i}", "session", bc->session->id, "x", x,
                                   "y", y, "button", "touch", "count", count);
        if (ref)
            json_object_set_new(result, "ref", json_string(ref));
        perform(bc, wd_touch_tap(x, y, count, hold), result,
                xasprintf("tapped %s%s%d,%d in %s", ref ? ref : "", ref ? " at " : "at ", x, y,
                          bc->session->id),
                "tap");
        return;
    }
    json_t *list = json_array();
    json_array_append_new(list, move_to(x, y, 0));
    for (int i = 0; i < count; i++) {
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerDown", "button", b));
        if (hold > 0)
            json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pause", "duration", hold));
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerUp", "button", b));
    }
    json_t *source = mouse(list);
    moved(bc, x, y);
    json_t *result = json_pack("{s:s, s:i, s:i, s:s, s:i}", "session", bc->session->id, "x", x, "y",
                               y, "button", button, "count", count);
    if (ref)
        json_object_set_new(result, "ref", json_string(ref));
    perform(bc, source, result,
            ref ? xasprintf("clicked %s %s at %d,%d in %s", button, ref, x, y, bc->session->id)
                : xasprintf("clicked %s at %d,%d in %s", button, x, y, bc->session->id),
            "click");
}

void wd_scroll_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    const char *dir = args_string(bc->args, "direction", "down");
    int amount = (int)args_int(bc->args, "amount", 3);
    int dx = 0, dy = 0;
    if (strcmp(dir, "up") == 0)
        dy = -amount * WHEEL_STEP;
    else if (strcmp(dir, "down") == 0)
        dy = amount * WHEEL_STEP;
    else if (strcmp(dir, "left") == 0)
        dx = -amount * WHEEL_STEP;
    else
        dx = amount * WHEEL_STEP;
    /* Without a point: the middle of the window glovebox knows of. */
    int x = coord(bc, "x", w->width / 2), y = coord(bc, "y", w->height / 2);
    if (w->native) {
        perform(bc, wd_touch_scroll(dir, amount, x, y, w->width, w->height),
                json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "direction", dir, "amount",
                          amount),
                xasprintf("swiped to scroll %s %d in %s", dir, amount, bc->session->id), "scroll");
        return;
    }
    json_t *source = json_pack("{s:s, s:s, s:[{s:s, s:i, s:i, s:i, s:i, s:i, s:s}]}", "type",
                               "wheel", "id", "wheel", "actions", "type", "scroll", "x", x, "y", y,
                               "deltaX", dx, "deltaY", dy, "duration", 0, "origin", "viewport");
    json_t *result = json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "direction", dir,
                               "amount", amount);
    perform(bc, source, result, xasprintf("scrolled %s %d in %s", dir, amount, bc->session->id),
            "scroll");
}

#define DRAG_STEPS 12

void wd_drag_op(struct backend_call *bc)
{
    const json_t *from = json_object_get(bc->args, "from"), *to = json_object_get(bc->args, "to");
    static const char *const unsupported[] = {"ref", NULL};
    if (json_object_get(from, "ref") || json_object_get(to, "ref")) {
        refuse_fields(bc, "drag", unsupported);
        return;
    }
    double scale = args_number(bc->args, "scale", 1);
    int x = (int)lround(json_number_value(json_object_get(from, "x")) / scale);
    int y = (int)lround(json_number_value(json_object_get(from, "y")) / scale);
    int x2 = (int)lround(json_number_value(json_object_get(to, "x")) / scale);
    int y2 = (int)lround(json_number_value(json_object_get(to, "y")) / scale);
    if (!in_view(bc, "from", x, y) || !in_view(bc, "to", x2, y2))
        return;
    const char *button = args_string(bc->args, "button", "left");
    int b = button_number(button);
    int duration = (int)args_int(bc->args, "duration_ms", 300);
    if (wd_of(bc->session)->native) {
        moved(bc, x2, y2);
        perform(bc, wd_touch_swipe(x, y, x2, y2, duration),
                json_pack("{s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:s}", "session", bc->session->id,
                          "from", "x", x, "y", y, "to", "x", x2, "y", y2, "button", "touch"),
                xasprintf("swiped from %d,%d to %d,%d in %s", x, y, x2, y2, bc->session->id),
                "drag");
        return;
    }
    json_t *list = json_array();
    json_array_append_new(list, move_to(x, y, 0));
    json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerDown", "button", b));
    /* In steps, so pages that track pointermove see a path. */
    for (int i = 1; i <= DRAG_STEPS; i++)
        json_array_append_new(list, move_to(x + (x2 - x) * i / DRAG_STEPS,
                                            y + (y2 - y) * i / DRAG_STEPS, duration / DRAG_STEPS));
    json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerUp", "button", b));
    moved(bc, x2, y2);
    json_t *result = json_pack("{s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:s}", "session", bc->session->id,
                               "from", "x", x, "y", y, "to", "x", x2, "y", y2, "button", button);
    perform(bc, mouse(list), result,
            xasprintf("dragged from %d,%d to %d,%d in %s", x, y, x2, y2, bc->session->id), "drag");
}

/* The pointer alone: move, press or let go of a button (held between
 * commands), or where it is. */
void wd_pointer_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    const char *what = args_string(bc->args, "action", "where");
    bool has_point = json_object_get(bc->args, "x") && json_object_get(bc->args, "y");
    int x = has_point ? coord(bc, "x", 0) : w->pointer_x;
    int y = has_point ? coord(bc, "y", 0) : w->pointer_y;
    if (strcmp(what, "where") == 0) {
        json_t *data = json_pack("{s:s, s:i, s:i}", "session", bc->session->id, "x", x, "y", y);
        if (!w->pointer_known) {
            json_object_set_new(data, "known", json_false());
            backend_call_done(bc, data,
                              "glovebox has not moved the pointer of this webdriver session yet "
                              "(WebDriver does not say where it is): 0,0 is a guess");
        } else {
            backend_call_done(bc, data, "the pointer is at %d,%d", x, y);
        }
        return;
    }
    if (!has_point && strcmp(what, "move") == 0) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "a pointer move needs x and y");
        return;
    }
    if (has_point && !in_view(bc, "point", x, y))
        return;
    json_t *list = json_array();
    json_array_append_new(list, move_to(x, y, 0));
    if (strcmp(what, "move") != 0)
        json_array_append_new(
            list,
            json_pack("{s:s, s:i}", "type", strcmp(what, "down") == 0 ? "pointerDown" : "pointerUp",
                      "button", button_number(args_string(bc->args, "button", "left"))));
    moved(bc, x, y);
    perform(bc, mouse(list),
            json_pack("{s:s, s:i, s:i}", "session", bc->session->id, "x", x, "y", y),
            xasprintf("the pointer is at %d,%d", x, y), "move the pointer");
}

void wd_key_hold_op(struct backend_call *bc)
{
    const char *spec = args_string(bc->args, "key", "");
    bool down = strcmp(args_string(bc->args, "state", "down"), "down") == 0;
    json_t *list;
    char *err = NULL;
    if (!wd_key_hold_actions(spec, down, &list, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    json_t *source = json_pack("{s:s, s:s, s:o}", "type", "key", "id", "keyboard", "actions", list);
    perform(bc, source,
            json_pack("{s:s, s:s, s:s}", "session", bc->session->id, "key", spec, "state",
                      down ? "down" : "up"),
            xasprintf("%s %s", spec, down ? "held down" : "let go"), "hold a key");
}

void wd_press_key_op(struct backend_call *bc)
{
    if (json_object_get(bc->args, "window")) {
        static const char *const unsupported[] = {"window", NULL};
        refuse_fields(bc, "press a key", unsupported);
        return;
    }
    const char *spec = args_string(bc->args, "key", "");
    int repeat = (int)args_int(bc->args, "repeat", 1);
    json_t *list;
    char *err = NULL;
    if (!wd_key_actions(spec, repeat, &list, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    json_t *source = json_pack("{s:s, s:s, s:o}", "type", "key", "id", "keyboard", "actions", list);
    json_t *result =
        json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "key", spec, "repeat", repeat);
    perform(bc, source, result, xasprintf("pressed %s in %s", spec, bc->session->id),
            "press a key");
}

/* type_text: first whether the focused field is a password field (the
 * audit log then keeps no text), then one key action per character. */
static void type_now(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct backend_call *bc = ud;
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED ||
                code == ERROR_TIMEOUT)) {
        backend_call_fail_code(bc, code, "cannot type: %s", err);
        return;
    }
    if (json_is_true(value) && bc->note)
        bc->note(bc, "redacted", json_true());
    const char *text = args_string(bc->args, "text", "");
    size_t len = strlen(text), chars = 0;
    json_t *list = json_array();
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode((const unsigned char *)text + i, len - i, &cp);
        if (n == 0)
            n = 1; /* schema-checked text is valid UTF-8; be safe anyway */
        /* A line break is the Enter key, a tab the Tab key. */
        char one[8];
        const char *v = one;
        if (text[i] == '\n')
            v = "\xee\x80\x87";
        else if (text[i] == '\t')
            v = "\xee\x80\x84";
        else if (text[i] == '\r') {
            i += n;
            continue;
        } else {
            memcpy(one, text + i, n);
            one[n] = '\0';
        }
        json_array_append_new(list, json_pack("{s:s, s:s}", "type", "keyDown", "value", v));
        json_array_append_new(list, json_pack("{s:s, s:s}", "type", "keyUp", "value", v));
        i += n;
        chars++;
    }
    json_t *source = json_pack("{s:s, s:s, s:o}", "type", "key", "id", "keyboard", "actions", list);
    json_t *result = json_pack("{s:s, s:I, s:I}", "session", bc->session->id, "bytes",
                               (json_int_t)len, "characters", (json_int_t)chars);
    perform(
        bc, source, result,
        xasprintf("typed %zu character%s into %s", chars, chars == 1 ? "" : "s", bc->session->id),
        "type");
}

static void tapped(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)value;
    struct backend_call *bc = ud;
    if (err) {
        backend_call_fail_code(bc, code, "cannot type: the tap on the field failed: %s", err);
        return;
    }
    type_now(w, bc, json_false(), 0, NULL);
}

/* A ref focused: type there (its password-ness is known already). In a
 * native app the field is tapped first, which gives it the focus. */
static void type_target(struct backend_call *bc, const char *ref, const struct screen_rect *r,
                        bool password)
{
    (void)ref;
    struct wd *w = wd_of(bc->session);
    if (w->native) {
        wd_command(w, "POST", "/actions",
                   json_pack("{s:[o]}", "actions",
                             wd_touch_tap(r->x + r->width / 2, r->y + r->height / 2, 1, 0)),
                   tapped, bc);
        return;
    }
    type_now(w, bc, password ? json_true() : json_false(), 0, NULL);
}

void wd_type_text_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"window", NULL};
    if (refuse_fields(bc, "type", unsupported))
        return;
    if (json_object_get(bc->args, "ref")) {
        wd_target(bc, true, type_target);
        return;
    }
    wd_command(wd_of(bc->session), "POST", "/execute/sync",
               json_pack("{s:s, s:[]}", "script",
                         "var e=document.activeElement;return !!e&&e.type==='password';", "args"),
               type_now, bc);
}

static void got_text(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct backend_call *bc = ud;
    if (err) {
        backend_call_fail_code(bc, code, "cannot read text: %s", err);
        return;
    }
    const char *text = json_is_string(value) ? json_string_value(value) : "";
    size_t len = json_is_string(value) ? json_string_length(value) : 0;
    json_t *o = json_pack("{s:s, s:s%}", "session", bc->session->id, "text", text, len);
    backend_call_done(bc, o, "%s", text);
}

/* read_text {ref}: the element's text (a field's value; never a password
 * field's), or "gone". */
static const char ELEMENT_TEXT_SCRIPT[] =
    "var m=window.__glovebox_refs,e=m&&m.get(arguments[0]);"
    "if(!e||!e.isConnected)return {gone:1};if(e.type==='password')return '';"
    "return /^(INPUT|TEXTAREA|SELECT)$/.test(e.tagName)?String(e.value):e.innerText;";

static void got_element_text(struct wd *w, void *ud, json_t *value, enum error_code code,
                             const char *err)
{
    struct backend_call *bc = ud;
    if ((err && code == ERROR_NOT_FOUND) || json_is_object(value)) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "cannot read text: ref %s is gone: the page changed or navigated "
                               "since the snapshot (take a new snapshot or find)",
                               args_string(bc->args, "ref", "?"));
        return;
    }
    got_text(w, bc, value, code, err);
}

static void got_frame_text(struct wd *w, void *ud, json_t *value, int dx, int dy,
                           enum error_code code, const char *err)
{
    (void)dx, (void)dy;
    got_element_text(w, ud, value, code, err);
}

void wd_read_text_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"region", "ocr", "scrollback", NULL};
    if (refuse_fields(bc, "read text", unsupported))
        return;
    struct wd *w = wd_of(bc->session);
    const char *ref = args_string(bc->args, "ref", NULL);
    if (w->native) {
        if (ref) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot read text: argument \"ref\" is not supported on "
                                   "native apps (their snapshot shows each element's text)");
            return;
        }
        wd_native_read_text(bc);
        return;
    }
    if (ref) {
        json_t *body = json_pack("{s:s, s:[s]}", "script", ELEMENT_TEXT_SCRIPT, "args", ref);
        int frame = wd_ref_frame(ref);
        if (frame > 0)
            wd_frame_command(w, frame, "POST", "/execute/sync", body, w->timeout_ms, got_frame_text,
                             bc);
        else
            wd_command_quiet(w, "POST", "/execute/sync", body, got_element_text, bc);
        return;
    }
    /* Reading changes nothing on the page: a screenshot's last capture
     * still holds (cast.c). */
    wd_command_quiet(wd_of(bc->session), "POST", "/execute/sync",
                     json_pack("{s:s, s:[]}", "script",
                               "return document.body ? document.body.innerText : '';", "args"),
                     got_text, bc);
}

/* open_url: navigate, then say where the page ended up and its title. */
static void got_title(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    (void)code;
    struct pending *p = ud;
    if (!err && json_is_string(value))
        json_object_set(p->result, "title", value);
    acted(w, p, NULL, 0, NULL);
}

static void navigated(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct pending *p = ud;
    if (err) {
        acted(w, p, value, code, err);
        return;
    }
    wd_command(w, "GET", "/title", NULL, got_title, p);
}

void wd_open_url_op(struct backend_call *bc)
{
    const char *url = args_string(bc->args, "url", "");
    char *shown = wd_url_display(url);
    json_t *result = json_pack("{s:s, s:s}", "session", bc->session->id, "url", shown);
    struct pending *p = pending_new(
        bc, result, xasprintf("opened %s in %s", shown, bc->session->id), "open the URL");
    free(shown);
    wd_command(wd_of(bc->session), "POST", "/url", json_pack("{s:s}", "url", url), navigated, p);
}

/* Android's KeyEvent codes of press_button's buttons (Appium's
 * press_keycode). */
static int android_keycode(const char *button)
{
    static const struct {
        const char *name;
        int code;
    } codes[] = {{"home", 3},     {"back", 4},       {"forward", 125},    {"app_switch", 187},
                 {"power", 26},   {"volume_up", 24}, {"volume_down", 25}, {"volume_mute", 164},
                 {"enter", 66},   {"menu", 82},      {"search", 84},      {"camera", 27},
                 {"wakeup", 224}, {"sleep", 223}};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(codes[i].name, button))
            return codes[i].code;
    return -1;
}

static void pressed(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct pending *p = ud;
    if (err && (code == ERROR_NOT_SUPPORTED || code == ERROR_NOT_FOUND ||
                strstr(err, "unknown command") || strstr(err, "not implemented"))) {
        backend_call_fail_code(p->bc, ERROR_NOT_SUPPORTED,
                               "cannot press the button: this Appium driver has no way to "
                               "(%s)",
                               err);
        pending_free(p);
        return;
    }
    acted(w, p, value, code, err);
}

/* press_button: a phone's buttons through Appium; a browser's own. */
void wd_press_button_op(struct backend_call *bc)
{
    const char *button = args_string(bc->args, "button", "");
    struct wd *w = wd_of(bc->session);
    if (w->native) {
        json_t *result = json_pack("{s:s, s:s}", "session", bc->session->id, "button", button);
        struct pending *p = pending_new(
            bc, result, xasprintf("pressed %s in %s", button, bc->session->id), "press the button");
        if (w->platform && !strcmp(w->platform, "ios")) {
            /* XCUITest: home, volumeup, volumedown. */
            const char *name = !strcmp(button, "home")          ? "home"
                               : !strcmp(button, "volume_up")   ? "volumeup"
                               : !strcmp(button, "volume_down") ? "volumedown"
                                                                : NULL;
            if (!name) {
                pending_free(p);
                backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                       "button: an iOS device has home, volume_up and "
                                       "volume_down, not \"%s\"",
                                       button);
                return;
            }
            wd_command(w, "POST", "/execute/sync",
                       json_pack("{s:s, s:[{s:s}]}", "script", "mobile: pressButton", "args",
                                 "name", name),
                       pressed, p);
            return;
        }
        json_object_set_new(result, "keycode", json_integer(android_keycode(button)));
        wd_command(w, "POST", "/appium/device/press_keycode",
                   json_pack("{s:i}", "keycode", android_keycode(button)), pressed, p);
        return;
    }
    json_t *result = json_pack("{s:s, s:s}", "session", bc->session->id, "button", button);
    if (!strcmp(button, "back") || !strcmp(button, "forward")) {
        char *path = xasprintf("/%s", button);
        wd_command(wd_of(bc->session), "POST", path, NULL, acted,
                   pending_new(bc, result, xasprintf("went %s in %s", button, bc->session->id),
                               "press the button"));
        free(path);
        return;
    }
    if (!strcmp(button, "enter")) {
        json_t *list;
        char *err = NULL;
        if (!wd_key_actions("Enter", 1, &list, &err)) {
            json_decref(result);
            backend_call_fail(bc, "%s", err);
            free(err);
            return;
        }
        perform(bc, json_pack("{s:s, s:s, s:o}", "type", "key", "id", "keyboard", "actions", list),
                result, xasprintf("pressed enter in %s", bc->session->id), "press the button");
        return;
    }
    json_decref(result);
    backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                           "button: a browser has back, forward and enter, not \"%s\"", button);
}

/* launch_app {app} on a native session: Appium's activate_app (a package
 * on Android, a bundle id on iOS). */
void wd_app_launch_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    const char *app = args_string(bc->args, "app", "");
    if (!w->native) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "cannot launch an app: %s is a browser; open_url opens pages",
                               bc->session->id);
        return;
    }
    json_t *result = json_pack("{s:s, s:s}", "session", bc->session->id, "app", app);
    wd_command(w, "POST", "/appium/device/activate_app",
               json_pack("{s:s, s:s}", "appId", app, "bundleId", app), pressed,
               pending_new(bc, result, xasprintf("launched %s in %s", app, bc->session->id),
                           "launch the app"));
}
