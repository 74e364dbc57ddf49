/* Acting on a desktop: click, drag, scroll, type_text and press_key, and
 * the pointer and held keys alone (the computer tool's steps). The
 * arguments are read on the loop (so bad coordinates fail at once), the
 * events are sent from the desktop's own input thread (input_queue.h: a
 * long press or a drag sleeps between events, and must not hold a shared
 * worker), and an element named by ref or text is found and, where
 * a person's plain click would do the same, pressed through accessibility
 * (perceive/) before the pointer is used. */
#define LOG_MODULE "desktop"
#include "backend/desktop/input_queue.h"
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/typed_check.h"
#include "backend/desktop/windows.h"
#include "backend/desktop/xinput.h"
#include "core/app.h"
#include "core/args.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "input/keys.h"
#include "session/session.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define XK_MISCELLANY
#define XK_LATIN1
#include <X11/keysymdef.h>

enum act_kind { ACT_CLICK, ACT_DRAG, ACT_SCROLL, ACT_TYPE, ACT_KEY, ACT_POINTER, ACT_HOLD };

/* What ACT_POINTER does. */
enum pointer_action { POINTER_MOVE, POINTER_DOWN, POINTER_UP, POINTER_WHERE };

struct act {
    struct input_job job; /* first: the job is the act */
    struct backend_call *bc;
    struct desktop *d;
    enum act_kind kind;
    bool click_first; /* type_text on an element that could not be focused */
    int x, y, to_x, to_y;
    bool has_point;
    int button, count, hold_ms, duration_ms, amount, repeat;
    int scroll_button;
    enum pointer_action pointer; /* ACT_POINTER */
    bool down;                   /* ACT_HOLD: press (else release) */
    bool mods_only;              /* ACT_HOLD: key holds modifiers alone */
    char *text;
    struct input_key key;
    json_t *target; /* the element acted on, for the answer */
    size_t chars;
    bool restore_focus;  /* restore_focus: focus and active window put back after */
    unsigned click_mods; /* click: INPUT_MOD_* held around the click */
    int delay_ms;        /* type_text: pause after each character (delay_ms, wpm) */
    bool secret;         /* typed into a password field: kept out of the audit log */
    /* type_text: control characters (Tab, Enter) may move the focus as they
     * are typed, so the focus is asked about before each run of text, here;
     * plain text is asked about after typing, off the call's path
     * (typed_check.h). */
    bool check_inline;
    bool check_after; /* plain text was typed: ask (typed_check) */
    int settle_ms;    /* for the check: input was just given */
    char *err;
    enum error_code err_code; /* of err: tool_failed unless said */
    atomic_bool stop;         /* the call was cancelled (or a person paused input) */
    /* Instead of answering bc: a step of a longer operation (scroll_to). */
    desktop_input_done on_done;
    void *ud;
};

static void free_act(struct act *a)
{
    free(a->text);
    free(a->err);
    json_decref(a->target);
    free(a);
}

/* Holds or releases a keysym (a modifier), looked up in the keymap. */
static bool hold(struct xinput *xi, uint32_t keysym, bool down, char **err)
{
    uint8_t code;
    if (!xinput_modifier_keycode(xi, keysym, &code, err))
        return false;
    xinput_key(xi, code, down);
    return true;
}

static bool tap(struct xinput *xi, uint32_t keysym, bool with_shift, char **err)
{
    uint8_t code;
    bool shift;
    if (!xinput_keycode(xi, keysym, &code, &shift, err))
        return false;
    shift = shift || with_shift;
    if (shift && !hold(xi, XK_Shift_L, true, err))
        return false;
    xinput_key(xi, code, true);
    xinput_key(xi, code, false);
    if (shift && !hold(xi, XK_Shift_L, false, err))
        return false;
    return true;
}

/* Waits ms, in slices, unless the call is stopped; false when it was. */
static bool wait_unless_stopped(struct act *a, int ms)
{
    for (int left = ms; left > 0; left -= 10) {
        if (atomic_load(&a->stop))
            return false;
        clock_sleep_ms(left < 10 ? left : 10);
    }
    return !atomic_load(&a->stop);
}

static void stopped(struct act *a, const char *what)
{
    free(a->err);
    a->err = xasprintf("stopped before it was done: %s", what);
}

/* The keysym held for each modifier, in the order they go down. */
static const struct {
    unsigned mod;
    uint32_t keysym;
} mod_keys[] = {
    {INPUT_MOD_CTRL, XK_Control_L}, {INPUT_MOD_ALT, XK_Alt_L},   {INPUT_MOD_SHIFT, XK_Shift_L},
    {INPUT_MOD_SUPER, XK_Super_L},  {INPUT_MOD_META, XK_Meta_L}, {INPUT_MOD_HYPER, XK_Hyper_L},
};
#define N_MOD_KEYS (sizeof mod_keys / sizeof *mod_keys)

/* Modifiers down (in order) or up (the other way round). */
static bool hold_mods(struct xinput *xi, unsigned mods, bool down, char **err)
{
    for (size_t k = 0; k < N_MOD_KEYS; k++) {
        size_t i = down ? k : N_MOD_KEYS - 1 - k;
        if ((mods & mod_keys[i].mod) && !hold(xi, mod_keys[i].keysym, down, err))
            return false;
    }
    return true;
}

static void click_at(struct act *a, struct xinput *xi)
{
    xinput_move(xi, a->x, a->y);
    if (a->click_mods && !hold_mods(xi, a->click_mods, true, &a->err))
        return;
    for (int i = 0; i < a->count; i++) {
        xinput_button(xi, a->button, true);
        bool held = true;
        if (a->hold_ms > 0) {
            xinput_sync(xi, &a->err);
            held = wait_unless_stopped(a, a->hold_ms);
        }
        /* Never leave a button down, stopped or not. */
        xinput_button(xi, a->button, false);
        if (!held) {
            stopped(a, "the button was released early");
            break;
        }
    }
    /* Nor a modifier. */
    char *err = NULL;
    if (a->click_mods && !hold_mods(xi, a->click_mods, false, &err) && !a->err)
        a->err = err, err = NULL;
    free(err);
}

static void drag(struct act *a, struct xinput *xi)
{
    xinput_move(xi, a->x, a->y);
    xinput_button(xi, a->button, true);
    double dx = a->to_x - a->x, dy = a->to_y - a->y;
    /* Enough steps for toolkits to see motion, and a pace a person could
     * have: some widgets ignore a jump from press to release. */
    int steps = (int)fmax(8, fmin(100, hypot(dx, dy) / 10));
    for (int i = 1; i <= steps; i++) {
        xinput_move(xi, a->x + (int)lround(dx * i / steps), a->y + (int)lround(dy * i / steps));
        if (!xinput_sync(xi, &a->err))
            return;
        if (!wait_unless_stopped(a, a->duration_ms / steps)) {
            xinput_button(xi, a->button, false);
            stopped(a, "the drag was let go midway");
            return;
        }
    }
    xinput_button(xi, a->button, false);
}

static void scroll(struct act *a, struct xinput *xi)
{
    if (a->has_point)
        xinput_move(xi, a->x, a->y);
    for (int i = 0; i < a->amount; i++) {
        xinput_button(xi, a->scroll_button, true);
        xinput_button(xi, a->scroll_button, false);
    }
}

/* Text typed within this long of a click, drag or key press, or of giving
 * the focus, may
 * reach a field the program has not yet shown as focused: the password
 * check then asks again for up to FOCUS_SETTLE_MS while the answer is no. */
#define RECENT_INPUT_MS 1000
/* restore_focus: how long a window manager gets to react to the input
 * before the focus is put back, and (three times this) to carry it out. */
#define RESTORE_WM_MS   150
#define FOCUS_SETTLE_MS 200

static bool is_control(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7f;
}

/* Whether typing text may move the focus (Tab, Enter, Escape…). */
static bool moves_focus(const char *text)
{
    for (const char *c = text; *c; c++)
        if (is_control((unsigned char)*c))
            return true;
    return false;
}

/* Whatever way the field got the focus (a click, Tab, a ref), what is typed
 * into a password field is a secret: asked before the text that follows. */
static void check_now(struct act *a, struct xinput *xi, int settle_ms)
{
    uint64_t t0 = uv_hrtime();
    char *ignored = NULL; /* a display gone shows when the keys are sent */
    xinput_sync(xi, &ignored);
    free(ignored);
    a->secret = perceive_focus_is_secret(a->d->perceive, settle_ms);
    log_debug("focus check: %s, %.1f ms", a->secret ? "a password field" : "not a secret",
              (double)(uv_hrtime() - t0) / 1e6);
}

static void type(struct act *a, struct xinput *xi)
{
    const unsigned char *s = (const unsigned char *)a->text;
    size_t n = strlen(a->text);
    bool after_control = false;
    while (n > 0) {
        uint32_t cp;
        size_t len = utf8_decode(s, n, &cp);
        if (len == 0)
            len = 1, cp = 0xfffd;
        /* A run of text after a key that may have moved the focus: the
         * focus is asked about again, with a moment for it to settle. */
        if (a->check_inline && !a->secret && !is_control(cp) && (a->chars == 0 || after_control))
            check_now(a, xi, a->chars == 0 ? a->settle_ms : FOCUS_SETTLE_MS);
        after_control = is_control(cp);
        if (atomic_load(&a->stop)) {
            char what[64];
            snprintf(what, sizeof what, "typed %zu characters", a->chars);
            stopped(a, what);
            return;
        }
        if (!tap(xi, xinput_keysym_for(cp), false, &a->err))
            return;
        a->chars++;
        s += len;
        n -= len;
        /* Paced: each key reaches the program before the pause. */
        if (a->delay_ms > 0 && xinput_sync(xi, &a->err) && !wait_unless_stopped(a, a->delay_ms)) {
            char what[64];
            snprintf(what, sizeof what, "typed %zu characters", a->chars);
            stopped(a, what);
            return;
        }
        if (a->err)
            return;
    }
}

static uint32_t named_keysym(const struct input_key *k)
{
    static const uint32_t syms[] = {
        [INPUT_KEY_ENTER] = XK_Return,  [INPUT_KEY_TAB] = XK_Tab,
        [INPUT_KEY_ESCAPE] = XK_Escape, [INPUT_KEY_BACKSPACE] = XK_BackSpace,
        [INPUT_KEY_DELETE] = XK_Delete, [INPUT_KEY_INSERT] = XK_Insert,
        [INPUT_KEY_UP] = XK_Up,         [INPUT_KEY_DOWN] = XK_Down,
        [INPUT_KEY_LEFT] = XK_Left,     [INPUT_KEY_RIGHT] = XK_Right,
        [INPUT_KEY_HOME] = XK_Home,     [INPUT_KEY_END] = XK_End,
        [INPUT_KEY_PAGEUP] = XK_Prior,  [INPUT_KEY_PAGEDOWN] = XK_Next,
    };
    /* XK_F1..XK_F24 are consecutive, as the names are. */
    if (k->named >= INPUT_KEY_F1 && k->named <= INPUT_KEY_F24)
        return XK_F1 + (uint32_t)(k->named - INPUT_KEY_F1);
    if (k->named == INPUT_KEY_CHAR) {
        uint32_t cp = k->codepoint;
        /* ctrl+C means the C key; Shift comes from the modifier list. */
        if ((k->mods & INPUT_MOD_CTRL) && cp >= 'A' && cp <= 'Z')
            cp += 'a' - 'A';
        return xinput_keysym_for(cp);
    }
    return syms[k->named];
}

static void press_key(struct act *a, struct xinput *xi)
{
    /* Each modifier is its left key, held around the key; one the keymap
     * lacks is bound to a spare keycode like any character. */
    static const struct {
        unsigned mod;
        uint32_t keysym;
    } held[] = {
        {INPUT_MOD_CTRL, XK_Control_L}, {INPUT_MOD_ALT, XK_Alt_L},
        {INPUT_MOD_SUPER, XK_Super_L},  {INPUT_MOD_META, XK_Meta_L},
        {INPUT_MOD_HYPER, XK_Hyper_L},
    };
    uint32_t mods[sizeof held / sizeof *held];
    int n = 0;
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        if (a->key.mods & held[i].mod)
            mods[n++] = held[i].keysym;
    bool shift = a->key.mods & INPUT_MOD_SHIFT;
    uint32_t sym = named_keysym(&a->key);
    for (int r = 0; r < a->repeat; r++) {
        if (atomic_load(&a->stop)) {
            stopped(a, "some presses were left out");
            return;
        }
        for (int i = 0; i < n; i++)
            if (!hold(xi, mods[i], true, &a->err))
                return;
        if (!tap(xi, sym, shift, &a->err))
            return;
        for (int i = n - 1; i >= 0; i--)
            if (!hold(xi, mods[i], false, &a->err))
                return;
    }
}

/* The pointer moved, pressed or let go, then read back: the answer says
 * where it is. */
static void pointer_act(struct act *a, struct xinput *xi)
{
    if (a->has_point && a->pointer != POINTER_WHERE)
        xinput_move(xi, a->x, a->y);
    if (a->pointer == POINTER_DOWN || a->pointer == POINTER_UP)
        xinput_button(xi, a->button, a->pointer == POINTER_DOWN);
    if (xinput_sync(xi, &a->err))
        xinput_pointer(xi, &a->x, &a->y, &a->err);
}

/* Modifiers (in order) then the key go down; up, the other way round. */
static void key_hold(struct act *a, struct xinput *xi)
{
    uint8_t code = 0;
    bool shift = false;
    if (!a->mods_only && !xinput_keycode(xi, named_keysym(&a->key), &code, &shift, &a->err))
        return;
    if (shift)
        a->key.mods |= INPUT_MOD_SHIFT;
    if (!a->down && code)
        xinput_key(xi, code, false);
    if (!hold_mods(xi, a->key.mods, a->down, &a->err))
        return;
    if (a->down && code)
        xinput_key(xi, code, true);
}

/* The policy may keep input away from some windows (a password manager):
 * the window that would receive this action is looked at first, and the
 * call's guard asked (on this thread: the guard is the call's and lives
 * until it is answered). */
static bool blocked_window(struct act *a, const char *title, const char *app)
{
    const struct screen_guard *g = a->bc->guard;
    if (g->input_allowed(g, title, app, &a->err))
        return false;
    a->err_code = ERROR_DENIED;
    return true;
}

static bool input_blocked(struct act *a, struct xinput *xi)
{
    bool keys = a->kind == ACT_TYPE || a->kind == ACT_KEY || a->kind == ACT_HOLD;
    char *title = NULL, *app = NULL;
    bool blocked = false;
    /* Keys go to the focused window; the pointer to the one under it (a
     * scroll without a point: under the pointer too). */
    int x = keys && !a->click_first ? -1 : a->x, y = a->y;
    if (a->kind == ACT_SCROLL && !a->has_point)
        x = -1;
    if (windows_input_target(xi, x, y, &title, &app))
        blocked = blocked_window(a, title, app);
    free(title);
    free(app);
    title = app = NULL;
    if (!blocked && a->kind == ACT_DRAG && windows_input_target(xi, a->to_x, a->to_y, &title, &app))
        blocked = blocked_window(a, title, app);
    free(title);
    free(app);
    return blocked;
}

static void act_run(struct input_job *job)
{
    struct act *a = (struct act *)job;
    struct xinput *xi = a->d->input;
    /* Cancelled (or paused) while it waited its turn: nothing is sent. */
    if (atomic_load(&a->stop)) {
        stopped(a, "nothing was done");
        return;
    }
    /* Admitted before a person took control, and reaching the desktop only
     * now (it looked an element up first): refused here too. Asking where
     * the pointer is gives no input. */
    if (atomic_load(&a->d->person_control) &&
        !(a->kind == ACT_POINTER && a->pointer == POINTER_WHERE)) {
        a->err = xasprintf("a person has control of session %s (in the live viewer); wait until "
                           "they hand it back (wait_for {\"control\": \"agent\"})",
                           a->d->session->id);
        a->err_code = ERROR_DENIED;
        return;
    }
    if (!xinput_lock(xi, &a->err))
        return;
    struct windows_focus_saved saved;
    if (a->restore_focus)
        windows_focus_save(xi, &saved);
    const char *window = args_string(a->bc->args, "window", NULL);
    uint32_t win;
    bool focused = a->click_first;
    if (window && (a->kind == ACT_TYPE || a->kind == ACT_KEY)) {
        if (!windows_find(xi, window, &win, &a->err)) {
            a->err_code = ERROR_NOT_FOUND;
            xinput_unlock(xi);
            return;
        }
        windows_focus(xi, win);
        focused = true;
    } else if (a->kind == ACT_TYPE || a->kind == ACT_KEY) {
        if (a->target)
            xinput_focus_at(xi, a->x, a->y), focused = true;
        else
            focused = xinput_focus_default(xi);
    }
    /* At the pointer's place: the window there is the one checked. */
    if (a->kind == ACT_POINTER && !a->has_point && !xinput_pointer(xi, &a->x, &a->y, &a->err)) {
        xinput_unlock(xi);
        return;
    }
    if (a->bc->guard->input_allowed && !(a->kind == ACT_POINTER && a->pointer == POINTER_WHERE) &&
        input_blocked(a, xi)) {
        xinput_unlock(xi);
        return;
    }
    if (a->click_first) {
        int keep = a->count;
        a->count = 1;
        click_at(a, xi);
        a->count = keep;
    }
    if (a->kind == ACT_TYPE && !a->secret && a->d->perceive) {
        /* Input just given (this call's focusing, a click a moment ago) may
         * not have reached the program yet: the check gives it a moment. */
        bool recent = focused || uv_hrtime() / 1000000 < a->d->input_at_ms + RECENT_INPUT_MS;
        a->settle_ms = recent ? FOCUS_SETTLE_MS : 0;
        a->check_inline = moves_focus(a->text);
    }
    switch (a->kind) {
    case ACT_CLICK:
        click_at(a, xi);
        break;
    case ACT_DRAG:
        drag(a, xi);
        break;
    case ACT_SCROLL:
        scroll(a, xi);
        break;
    case ACT_TYPE:
        type(a, xi);
        break;
    case ACT_KEY:
        press_key(a, xi);
        break;
    case ACT_POINTER:
        pointer_act(a, xi);
        break;
    case ACT_HOLD:
        key_hold(a, xi);
        break;
    }
    if (!a->err)
        xinput_sync(xi, &a->err);
    if (a->restore_focus) {
        /* After the program has had the input (events still queued would
         * otherwise reach the window given the focus back), and after the
         * window manager has reacted to it: it focuses a clicked window on
         * its own time, which would undo the restoring. */
        windows_focus_settle(xi, &saved, RESTORE_WM_MS);
        windows_focus_restore(xi, &saved);
        char *ignored = NULL;
        xinput_sync(xi, &ignored);
        free(ignored);
        windows_focus_wait(xi, &saved, RESTORE_WM_MS * 3);
    }
    /* Plain text went somewhere: what had the focus is asked about after
     * the answer (typed_check.h). */
    a->check_after =
        a->kind == ACT_TYPE && !a->secret && !a->check_inline && a->chars > 0 && a->d->perceive;
    /* Typing leaves the focus where it was; anything else may move it. */
    if (a->kind != ACT_TYPE && a->kind != ACT_SCROLL &&
        !(a->kind == ACT_POINTER && a->pointer == POINTER_WHERE))
        a->d->input_at_ms = uv_hrtime() / 1000000;
    xinput_unlock(xi);
}

static const char *button_name(int b)
{
    return b == 2 ? "middle" : b == 3 ? "right" : "left";
}

/* Answers the call with what was done, and frees a. */
static void answer(struct act *a)
{
    struct backend_call *bc = a->bc;
    const char *id = bc->session->id;
    json_t *data = json_pack("{s:s}", "session", id);
    if (a->target)
        json_object_set(data, "target", a->target);
    switch (a->kind) {
    case ACT_CLICK:
        json_object_set_new(data, "x", json_integer(a->x));
        json_object_set_new(data, "y", json_integer(a->y));
        json_object_set_new(data, "button", json_string(button_name(a->button)));
        json_object_set_new(data, "count", json_integer(a->count));
        backend_call_done(bc, data, "%s-clicked%s at %d,%d", button_name(a->button),
                          a->count == 2   ? " twice"
                          : a->count == 3 ? " three times"
                                          : "",
                          a->x, a->y);
        break;
    case ACT_DRAG:
        json_object_set_new(data, "from", json_pack("{s:i, s:i}", "x", a->x, "y", a->y));
        json_object_set_new(data, "to", json_pack("{s:i, s:i}", "x", a->to_x, "y", a->to_y));
        backend_call_done(bc, data, "dragged from %d,%d to %d,%d", a->x, a->y, a->to_x, a->to_y);
        break;
    case ACT_SCROLL:
        json_object_set_new(data, "direction", json_string(args_string(bc->args, "direction", "")));
        json_object_set_new(data, "amount", json_integer(a->amount));
        backend_call_done(bc, data, "scrolled %s by %d", args_string(bc->args, "direction", ""),
                          a->amount);
        break;
    case ACT_TYPE:
        json_object_set_new(data, "bytes", json_integer((json_int_t)strlen(a->text)));
        json_object_set_new(data, "characters", json_integer((json_int_t)a->chars));
        backend_call_done(bc, data, "typed %zu characters", a->chars);
        break;
    case ACT_KEY:
        json_object_set_new(data, "key", json_string(args_string(bc->args, "key", "")));
        json_object_set_new(data, "repeat", json_integer(a->repeat));
        backend_call_done(bc, data, "pressed %s%s", args_string(bc->args, "key", ""),
                          a->repeat > 1 ? " repeatedly" : "");
        break;
    case ACT_POINTER:
        json_object_set_new(data, "x", json_integer(a->x));
        json_object_set_new(data, "y", json_integer(a->y));
        backend_call_done(bc, data, "the pointer is at %d,%d", a->x, a->y);
        break;
    case ACT_HOLD:
        backend_call_done(bc, data, "%s %s", args_string(bc->args, "key", ""),
                          a->down ? "held down" : "let go");
        break;
    }
    free_act(a);
}

static void settled(struct backend_call *bc, const struct perceive_target *t)
{
    (void)t;
    struct act *a = bc->backend_data;
    bc->backend_data = NULL;
    answer(a);
}

static void act_done(struct input_job *job, bool dropped)
{
    struct act *a = (struct act *)job;
    struct desktop *d = a->d;
    bool typing = a->kind == ACT_TYPE;
    int settle_ms = a->settle_ms;
    a->bc->cancel = NULL;
    a->bc->backend_data = NULL;
    if (a->secret && a->bc->note)
        a->bc->note(a->bc, "redacted", json_true());
    /* Held before the answer, so that the record waits for the check and
     * is redacted should it never come. */
    struct backend_hold *h = a->check_after && !dropped
                                 ? backend_call_hold(a->bc, json_pack("{s:b}", "redacted", 1))
                                 : NULL;
    if (dropped)
        stopped(a, "the session ended");
    if (a->on_done) {
        desktop_input_done fn = a->on_done;
        void *ud = a->ud;
        char *err = a->err;
        a->err = NULL;
        free_act(a);
        fn(ud, err);
        free(err);
    } else if (a->err) {
        backend_call_fail_code(a->bc, a->err_code, "%s", a->err);
        free_act(a);
    } else if (a->kind == ACT_TYPE && json_object_get(a->target, "ref")) {
        a->bc->backend_data = a;
        perceive_settle_typed(a->d->perceive, a->bc, settled);
    } else {
        answer(a);
    }
    if (typing)
        typed_check_typed(d, h, settle_ms);
}

void desktop_input_ensure(struct desktop *d)
{
    if (!d->input)
        d->input = xinput_create(d->display);
    if (!d->input_queue)
        d->input_queue = input_queue_create(d->app->loop);
}

static void act_cancel(struct backend_call *bc)
{
    struct act *a = bc->backend_data;
    atomic_store(&a->stop, true);
}

static void queue(struct act *a)
{
    desktop_input_ensure(a->d);
    a->bc->cancel = act_cancel;
    a->bc->backend_data = a;
    a->job.run = act_run;
    a->job.done = act_done;
    if (a->kind == ACT_TYPE)
        typed_check_typing(a->d);
    input_queue_push(a->d->input_queue, &a->job);
}

static struct act *act_new(struct backend_call *bc, enum act_kind kind)
{
    struct act *a = xcalloc(1, sizeof *a);
    a->bc = bc;
    a->d = desktop_of(bc->session);
    a->kind = kind;
    a->button = 1;
    a->count = 1;
    a->repeat = 1;
    a->restore_focus = (kind == ACT_CLICK || kind == ACT_TYPE || kind == ACT_KEY) &&
                       args_bool(bc->args, "restore_focus", false);
    return a;
}

/* A point from args[xkey], args[ykey] in screen pixels: divided by "scale"
 * when the caller read it off a scaled screenshot. false (answered) when it
 * is off the screen. */
static bool point(struct act *a, const json_t *args, const char *xkey, const char *ykey, int *x,
                  int *y)
{
    double scale = args_number(a->bc->args, "scale", 1.0);
    double fx = args_number(args, xkey, 0) / scale, fy = args_number(args, ykey, 0) / scale;
    *x = (int)floor(fx);
    *y = (int)floor(fy);
    if (*x < 0 || *y < 0 || *x >= a->d->width || *y >= a->d->height) {
        backend_call_fail_code(
            a->bc, ERROR_INVALID_ARGUMENT, "%s,%s = %g,%g is off the screen: %s is %dx%d pixels%s",
            xkey, ykey, args_number(args, xkey, 0), args_number(args, ykey, 0), a->bc->session->id,
            a->d->width, a->d->height, scale != 1.0 ? " (after dividing by scale)" : "");
        free_act(a);
        return false;
    }
    return true;
}

/* click's "modifiers": ["ctrl", "shift", …] into INPUT_MOD_* bits. */
static unsigned parse_mods(const json_t *args)
{
    unsigned mods = 0, m;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(args, "modifiers"), i,
                       v) if (input_keys_parse_mods("modifiers", json_string_value(v), &m, NULL))
        mods |= m;
    return mods;
}

static int parse_button(const json_t *args)
{
    const char *b = args_string(args, "button", "left");
    return strcmp(b, "middle") == 0 ? 2 : strcmp(b, "right") == 0 ? 3 : 1;
}

static void click_then(struct backend_call *bc, const struct perceive_target *t)
{
    struct act *a = act_new(bc, ACT_CLICK);
    a->target = perceive_target_json(t);
    if (t->done) {
        json_t *data = json_pack("{s:s, s:O}", "session", bc->session->id, "target", a->target);
        backend_call_done(bc, data, "pressed %s (%s)", t->ref ? t->ref : "the element", t->by);
        free_act(a);
        return;
    }
    a->x = t->x;
    a->y = t->y;
    a->button = parse_button(bc->args);
    a->click_mods = parse_mods(bc->args);
    a->count = (int)args_int(bc->args, "count", 1);
    a->hold_ms = (int)args_int(bc->args, "hold_ms", 0);
    queue(a);
}

static void click_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    if (json_object_get(bc->args, "ref") || json_object_get(bc->args, "text")) {
        /* With windows the policy blocks, the click goes through the
         * pointer, whose window is checked, not the element's action. */
        /* Through the pointer too with modifiers (an action knows none)
         * and with restore_focus (an application's own focusing is not
         * undone by putting the X focus back). */
        perceive_click(d->perceive, bc,
                       bc->guard->input_allowed != NULL ||
                           json_array_size(json_object_get(bc->args, "modifiers")) > 0 ||
                           args_bool(bc->args, "restore_focus", false),
                       click_then);
        return;
    }
    struct act *a = act_new(bc, ACT_CLICK);
    if (!json_object_get(bc->args, "x") || !json_object_get(bc->args, "y")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "give x and y, or ref (from snapshot or find), or text to click on");
        free_act(a);
        return;
    }
    if (!point(a, bc->args, "x", "y", &a->x, &a->y))
        return;
    a->button = parse_button(bc->args);
    a->click_mods = parse_mods(bc->args);
    a->count = (int)args_int(bc->args, "count", 1);
    a->hold_ms = (int)args_int(bc->args, "hold_ms", 0);
    queue(a);
}

static void drag_step(struct backend_call *bc, const struct perceive_target *t);

/* The ends of a drag given as refs are looked up one after the other;
 * the act waits in bc->backend_data meanwhile. */
static void drag_next(struct act *a)
{
    const json_t *args = a->bc->args;
    a->bc->backend_data = a;
    if (!a->has_point && json_object_get(args, "from_ref")) {
        perceive_centre(a->d->perceive, a->bc, args_string(args, "from_ref", ""), drag_step);
        return;
    }
    if (a->to_x < 0 && json_object_get(args, "to_ref")) {
        perceive_centre(a->d->perceive, a->bc, args_string(args, "to_ref", ""), drag_step);
        return;
    }
    a->bc->backend_data = NULL;
    queue(a);
}

static void drag_step(struct backend_call *bc, const struct perceive_target *t)
{
    struct act *a = bc->backend_data;
    bc->backend_data = NULL;
    if (!t) {
        free_act(a);
        return;
    }
    if (!a->has_point) {
        a->x = t->x, a->y = t->y, a->has_point = true;
    } else {
        a->to_x = t->x, a->to_y = t->y;
    }
    drag_next(a);
}

static void drag_op(struct backend_call *bc)
{
    struct act *a = act_new(bc, ACT_DRAG);
    const json_t *from = json_object_get(bc->args, "from"), *to = json_object_get(bc->args, "to");
    bool from_ref = json_object_get(bc->args, "from_ref"),
         to_ref = json_object_get(bc->args, "to_ref");
    if (!from == !from_ref || !to == !to_ref) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "give one start (\"from\" {x, y} or \"from_ref\") and one end "
                               "(\"to\" {x, y} or \"to_ref\")");
        free_act(a);
        return;
    }
    if (from && !point(a, from, "x", "y", &a->x, &a->y))
        return;
    if (to && !point(a, to, "x", "y", &a->to_x, &a->to_y))
        return;
    a->has_point = from != NULL; /* here: the start is known */
    if (to_ref)
        a->to_x = -1;
    a->button = parse_button(bc->args);
    a->duration_ms = (int)args_int(bc->args, "duration_ms", 300);
    drag_next(a);
}

static void scroll_op(struct backend_call *bc)
{
    struct act *a = act_new(bc, ACT_SCROLL);
    const char *dir = args_string(bc->args, "direction", "down");
    a->scroll_button = strcmp(dir, "up") == 0     ? 4
                       : strcmp(dir, "down") == 0 ? 5
                       : strcmp(dir, "left") == 0 ? 6
                                                  : 7;
    a->amount = (int)args_int(bc->args, "amount", 3);
    if (json_object_get(bc->args, "x") || json_object_get(bc->args, "y")) {
        if (!point(a, bc->args, "x", "y", &a->x, &a->y))
            return;
        a->has_point = true;
    }
    queue(a);
}

void desktop_wheel(struct backend_call *bc, int x, int y, const char *direction, int clicks,
                   desktop_input_done done, void *ud)
{
    struct act *a = act_new(bc, ACT_SCROLL);
    a->scroll_button = strcmp(direction, "up") == 0     ? 4
                       : strcmp(direction, "down") == 0 ? 5
                       : strcmp(direction, "left") == 0 ? 6
                                                        : 7;
    a->amount = clicks;
    a->x = x;
    a->y = y;
    a->has_point = true;
    a->on_done = done;
    a->ud = ud;
    queue(a);
}

/* The pause after each typed character: delay_ms, or a words-per-minute
 * pace (a word being five characters, as typists count). */
static int type_delay(const json_t *args)
{
    if (json_object_get(args, "delay_ms"))
        return (int)args_int(args, "delay_ms", 0);
    int wpm = (int)args_int(args, "wpm", 0);
    return wpm > 0 ? 12000 / wpm : 0;
}

static void type_then(struct backend_call *bc, const struct perceive_target *t)
{
    /* Whatever goes into a password field stays out of the audit log. */
    if (t->secret && bc->note)
        bc->note(bc, "redacted", json_true());
    struct act *a = act_new(bc, ACT_TYPE);
    a->target = perceive_target_json(t);
    a->text = xstrdup(args_string(bc->args, "text", ""));
    a->delay_ms = type_delay(bc->args);
    a->click_first = !t->done;
    a->secret = t->secret;
    a->x = t->x;
    a->y = t->y;
    queue(a);
}

static void type_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    if (json_object_get(bc->args, "ref")) {
        /* restore_focus: a click at the element, not its own focusing
         * (GTK raises the window), so the focus can be put back. */
        if (args_bool(bc->args, "restore_focus", false))
            perceive_click(d->perceive, bc, true, type_then);
        else
            perceive_focus(d->perceive, bc, type_then);
        return;
    }
    struct act *a = act_new(bc, ACT_TYPE);
    a->text = xstrdup(args_string(bc->args, "text", ""));
    a->delay_ms = type_delay(bc->args);
    queue(a);
}

static void press_key_op(struct backend_call *bc)
{
    struct act *a = act_new(bc, ACT_KEY);
    char *err = NULL;
    if (!input_keys_parse("key", args_string(bc->args, "key", ""), &a->key, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        free_act(a);
        return;
    }
    a->repeat = (int)args_int(bc->args, "repeat", 1);
    queue(a);
}

static void pointer_op(struct backend_call *bc)
{
    static const char *const names[] = {"move", "down", "up", "where"};
    struct act *a = act_new(bc, ACT_POINTER);
    const char *what = args_string(bc->args, "action", "where");
    a->pointer = POINTER_WHERE;
    for (int i = 0; i < 4; i++)
        if (strcmp(what, names[i]) == 0)
            a->pointer = (enum pointer_action)i;
    if (json_object_get(bc->args, "x") || json_object_get(bc->args, "y")) {
        if (!point(a, bc->args, "x", "y", &a->x, &a->y))
            return;
        a->has_point = true;
    } else if (a->pointer == POINTER_MOVE) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "a pointer move needs x and y");
        free_act(a);
        return;
    }
    a->button = parse_button(bc->args);
    queue(a);
}

static void hover_then(struct backend_call *bc, const struct perceive_target *t)
{
    struct act *a = act_new(bc, ACT_POINTER);
    a->target = perceive_target_json(t);
    a->pointer = POINTER_MOVE;
    a->x = t->x;
    a->y = t->y;
    a->has_point = true;
    queue(a);
}

/* hover: the pointer to x,y or to an element's centre, nothing pressed
 * (tooltips, menus that open on hover). */
static void hover_op(struct backend_call *bc)
{
    if (json_object_get(bc->args, "ref") || json_object_get(bc->args, "text")) {
        perceive_click(desktop_of(bc->session)->perceive, bc, true, hover_then);
        return;
    }
    struct act *a = act_new(bc, ACT_POINTER);
    if (!json_object_get(bc->args, "x") || !json_object_get(bc->args, "y")) {
        backend_call_fail_code(
            bc, ERROR_INVALID_ARGUMENT,
            "give x and y, or ref (from snapshot or find), or text to hover over");
        free_act(a);
        return;
    }
    if (!point(a, bc->args, "x", "y", &a->x, &a->y))
        return;
    a->pointer = POINTER_MOVE;
    a->has_point = true;
    queue(a);
}

void desktop_hover_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, hover_op, FENCE_MOVE);
}

static void key_hold_op(struct backend_call *bc)
{
    struct act *a = act_new(bc, ACT_HOLD);
    const char *key = args_string(bc->args, "key", "");
    a->down = strcmp(args_string(bc->args, "state", "down"), "down") == 0;
    char *err = NULL;
    a->mods_only = input_keys_parse_mods("key", key, &a->key.mods, NULL);
    if (!a->mods_only && !input_keys_parse("key", key, &a->key, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        free_act(a);
        return;
    }
    queue(a);
}

/* Every input goes through typed_check, which holds back what may move the
 * focus while text typed before it is being checked. */
void desktop_click_op(struct backend_call *bc)
{
    bool by_element = json_object_get(bc->args, "ref") || json_object_get(bc->args, "text");
    typed_check_run(desktop_of(bc->session), bc, click_op,
                    by_element ? FENCE_MOVE_ELSEWHERE : FENCE_MOVE);
}

void desktop_drag_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, drag_op, FENCE_MOVE);
}

void desktop_scroll_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, scroll_op, FENCE_MOVE);
}

void desktop_press_key_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, press_key_op, FENCE_MOVE);
}

void desktop_type_op(struct backend_call *bc)
{
    enum typed_fence kind =
        json_object_get(bc->args, "ref") ? FENCE_MOVE_ELSEWHERE
        : json_object_get(bc->args, "window") || moves_focus(args_string(bc->args, "text", ""))
            ? FENCE_MOVE
            : FENCE_TYPE;
    typed_check_run(desktop_of(bc->session), bc, type_op, kind);
}

void desktop_pointer_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    const char *action = args_string(bc->args, "action", "");
    /* Asking where the pointer is moves nothing; moving it moves the focus
     * only where the focus follows the pointer: not under glovebox's own
     * window manager (click to focus), but with none (X's PointerRoot) or
     * another's. So a computer mouse_move after typing need not wait for
     * the typed text's password check. */
    bool still = !strcmp(action, "where") || (!strcmp(action, "move") && d->wm_pid);
    typed_check_run(d, bc, pointer_op, still ? FENCE_TYPE : FENCE_MOVE);
}

void desktop_key_hold_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, key_hold_op, FENCE_MOVE);
}

void desktop_fenced_window_manage_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, desktop_window_manage_op, FENCE_MOVE);
}
