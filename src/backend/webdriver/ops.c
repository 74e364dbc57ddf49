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

void wd_click_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "text", "role", "app", "window", NULL};
    if (refuse_fields(bc, "click", unsupported))
        return;
    if (!json_object_get(bc->args, "x") || !json_object_get(bc->args, "y")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot click: arguments \"x\" and \"y\" are required on webdriver "
                               "sessions");
        return;
    }
    int x = coord(bc, "x", 0), y = coord(bc, "y", 0);
    const char *button = args_string(bc->args, "button", "left");
    int b = strcmp(button, "middle") == 0 ? 1 : strcmp(button, "right") == 0 ? 2 : 0;
    int count = (int)args_int(bc->args, "count", 1);
    int hold = (int)args_int(bc->args, "hold_ms", 0);
    json_t *list = json_array();
    json_array_append_new(list, json_pack("{s:s, s:i, s:i, s:i, s:s}", "type", "pointerMove",
                                          "duration", 0, "x", x, "y", y, "origin", "viewport"));
    for (int i = 0; i < count; i++) {
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerDown", "button", b));
        if (hold > 0)
            json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pause", "duration", hold));
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerUp", "button", b));
    }
    json_t *source = json_pack("{s:s, s:s, s:{s:s}, s:o}", "type", "pointer", "id", "mouse",
                               "parameters", "pointerType", "mouse", "actions", list);
    json_t *result = json_pack("{s:s, s:i, s:i, s:s, s:i}", "session", bc->session->id, "x", x, "y",
                               y, "button", button, "count", count);
    perform(bc, source, result,
            xasprintf("clicked %s at %d,%d in %s", button, x, y, bc->session->id), "click");
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
    json_t *source = json_pack("{s:s, s:s, s:[{s:s, s:i, s:i, s:i, s:i, s:i, s:s}]}", "type",
                               "wheel", "id", "wheel", "actions", "type", "scroll", "x", x, "y", y,
                               "deltaX", dx, "deltaY", dy, "duration", 0, "origin", "viewport");
    json_t *result = json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "direction", dir,
                               "amount", amount);
    perform(bc, source, result, xasprintf("scrolled %s %d in %s", dir, amount, bc->session->id),
            "scroll");
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

void wd_type_text_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "window", NULL};
    if (refuse_fields(bc, "type", unsupported))
        return;
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

void wd_read_text_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "region", "ocr", "scrollback", NULL};
    if (refuse_fields(bc, "read text", unsupported))
        return;
    wd_command(wd_of(bc->session), "POST", "/execute/sync",
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
