/* Acting on vnc sessions: pointer and key events, made on the worker pool
 * (pauses of a long press or a drag are slept there) and written by the
 * GLib thread (vnc_send). Characters are keysyms: Latin-1 ones equal their
 * codepoint, the rest of Unicode is 0x01000000 + codepoint, which servers
 * map to a key of their own. */
#include "backend/vnc/internal.h"
#include "backend/vnc/type_plan.h"

#include "core/app.h"
#include "core/args.h"
#include "core/clock.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "input/keys.h"
#include "session/session.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* RFB button mask bits: 1 left, 2 middle, 3 right; 4-7 the wheel. */
#define BUTTON_LEFT   0x01
#define BUTTON_MIDDLE 0x02
#define BUTTON_RIGHT  0x04
#define WHEEL_UP      0x08
#define WHEEL_DOWN    0x10
#define WHEEL_LEFT    0x20
#define WHEEL_RIGHT   0x40
/* Events sent per hand-over to the GLib thread. */
#define BATCH 128
/* Moves of a drag. */
#define DRAG_STEPS 12
/* After a paste's chord, before the next keys: the program asks the
 * server for the clipboard (an X selection request, a round trip) and
 * would otherwise take keys sent meanwhile first. */
#define PASTE_SETTLE_MS 150

/* X keysyms (the RFB protocol's key values). */
enum {
    KS_BACKSPACE = 0xff08,
    KS_TAB = 0xff09,
    KS_RETURN = 0xff0d,
    KS_ESCAPE = 0xff1b,
    KS_HOME = 0xff50,
    KS_LEFT = 0xff51,
    KS_UP = 0xff52,
    KS_RIGHT = 0xff53,
    KS_DOWN = 0xff54,
    KS_PRIOR = 0xff55,
    KS_NEXT = 0xff56,
    KS_END = 0xff57,
    KS_INSERT = 0xff63,
    KS_F1 = 0xffbe,
    KS_SHIFT_L = 0xffe1,
    KS_CONTROL_L = 0xffe3,
    KS_META_L = 0xffe7,
    KS_ALT_L = 0xffe9,
    KS_SUPER_L = 0xffeb,
    KS_HYPER_L = 0xffed,
    KS_DELETE = 0xffff,
};

struct act {
    uv_work_t work;
    struct backend_call *bc;
    struct vnc *v;
    void (*run)(struct act *a);
    /* Arguments, read on the loop. */
    int x, y, x2, y2;
    uint8_t button;
    int count, hold_ms, duration_ms, amount;
    char *text;
    struct input_key key;    /* press_key's; type: the paste chord */
    int delay_ms;            /* type: the pause after each character */
    size_t chars;            /* type: characters sent so far */
    size_t pasted;           /* type: of which pasted */
    struct vnc_typed *typed; /* type: the characters and how they go */
    size_t n_typed;
    atomic_bool stop; /* the call was cancelled (or a person took control) */
    int pointer;      /* the pointer op's enum pointer_action */
    bool down;        /* key_hold: press, else let go */
    bool mods_only;   /* key_hold: modifiers alone */
    /* The answer. */
    json_t *result;
    char *summary;
    char *err;
    enum error_code code;
    const char *verb;
};

/* The call's error once a person has control of the session. */
static void person_refused(struct act *a)
{
    free(a->err);
    a->err = xasprintf("a person has control of session %s (in the live viewer); wait until "
                       "they hand it back (wait_for {\"control\": \"agent\"})",
                       a->bc->session->id);
    a->code = ERROR_DENIED;
}

/* Whether the call goes on: false with its error once it was cancelled or
 * a person took control (checked before each batch of events). */
static bool still_wanted(struct act *a)
{
    if (atomic_load(&a->v->person_control)) {
        person_refused(a);
        return false;
    }
    if (atomic_load(&a->stop)) {
        free(a->err);
        a->err = xstrdup("stopped before it was done");
        a->code = ERROR_TOOL_FAILED;
        return false;
    }
    return true;
}

static bool send_events(struct act *a, const struct vnc_event *ev, int n)
{
    if (n == 0 || a->err)
        return !a->err;
    if (!still_wanted(a))
        return false;
    bool refused = false;
    if (!vnc_send(a->v, ev, n, &refused, &a->err)) {
        if (refused)
            person_refused(a);
        else
            a->code = ERROR_DEVICE_UNAVAILABLE;
        return false;
    }
    /* Where the pointer now is, for the pointer op's "where". */
    for (int i = n - 1; i >= 0; i--)
        if (!ev[i].key && !ev[i].cut) {
            pthread_mutex_lock(&a->v->mu);
            a->v->pointer_x = ev[i].x;
            a->v->pointer_y = ev[i].y;
            a->v->pointer_known = true;
            pthread_mutex_unlock(&a->v->mu);
            break;
        }
    return true;
}

static struct vnc_event at(int x, int y, uint8_t buttons)
{
    return (struct vnc_event){.buttons = buttons, .x = (uint16_t)x, .y = (uint16_t)y};
}

static void work(uv_work_t *w)
{
    struct act *a = w->data;
    a->run(a);
}

static void after(uv_work_t *w, int status)
{
    (void)status;
    struct act *a = w->data;
    a->bc->cancel = NULL;
    a->bc->backend_data = NULL;
    if (a->err)
        backend_call_fail_code(a->bc, a->code, "cannot %s: %s", a->verb, a->err);
    else {
        backend_call_done(a->bc, a->result, "%s", a->summary);
        a->result = NULL;
    }
    json_decref(a->result);
    free(a->summary);
    free(a->err);
    if (a->typed) {
        explicit_bzero(a->typed, a->n_typed * sizeof *a->typed);
        free(a->typed);
    }
    if (a->text) {
        explicit_bzero(a->text, strlen(a->text));
        free(a->text);
    }
    free(a);
}

static struct act *act_new(struct backend_call *bc, const char *verb, void (*run)(struct act *))
{
    struct act *a = xcalloc(1, sizeof *a);
    a->bc = bc;
    a->v = vnc_of(bc->session);
    a->verb = verb;
    a->run = run;
    a->work.data = a;
    return a;
}

static void act_cancel(struct backend_call *bc)
{
    struct act *a = bc->backend_data;
    atomic_store(&a->stop, true);
}

static void start(struct act *a, json_t *result, char *summary)
{
    a->result = result;
    a->summary = summary;
    a->bc->cancel = act_cancel;
    a->bc->backend_data = a;
    uv_queue_work(a->bc->app->loop, &a->work, work, after);
}

/* The policy may keep input away from some windows (input.blocked_windows,
 * blocked_apps); over VNC the window input reaches cannot be known, so
 * while such a rule exists no input goes to a vnc session. */
static bool guarded(struct backend_call *bc, const char *verb)
{
    if (!bc->guard || !bc->guard->input_allowed)
        return false;
    backend_call_fail_code(bc, ERROR_DENIED,
                           "cannot %s: the policy blocks input to some windows or applications, "
                           "and a vnc session cannot tell which window input reaches",
                           verb);
    return true;
}

/* Fields of the shared schemas that need a kind with elements or windows;
 * the policy's input rules first. */
static bool refuse_fields(struct backend_call *bc, const char *verb, const char *const *fields)
{
    if (guarded(bc, verb))
        return true;
    for (const char *const *f = fields; *f; f++)
        if (json_object_get(bc->args, *f)) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot %s: argument \"%s\" is not supported on vnc sessions "
                                   "(there is no accessibility tree over VNC; use x and y)",
                                   verb, *f);
            return true;
        }
    return false;
}

/* A point of the screen from obj's x and y (divided by scale); false after
 * answering bc when it lies outside. */
static bool point(struct backend_call *bc, const json_t *obj, const char *field, const char *verb,
                  int *x, int *y)
{
    struct vnc *v = vnc_of(bc->session);
    double scale = args_number(bc->args, "scale", 1);
    *x = (int)lround(json_number_value(json_object_get(obj, "x")) / scale);
    *y = (int)lround(json_number_value(json_object_get(obj, "y")) / scale);
    int w, h;
    vnc_size(v, &w, &h);
    if (*x >= w || *y >= h) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot %s: %s %d,%d is outside the %dx%d screen", verb, field, *x,
                               *y, w, h);
        return false;
    }
    return true;
}

static uint8_t button_of(const json_t *args)
{
    const char *b = args_string(args, "button", "left");
    return strcmp(b, "middle") == 0  ? BUTTON_MIDDLE
           : strcmp(b, "right") == 0 ? BUTTON_RIGHT
                                     : BUTTON_LEFT;
}

/* ---- click ---- */

static void click_run(struct act *a)
{
    struct vnc_event ev[3];
    ev[0] = at(a->x, a->y, 0);
    if (!send_events(a, ev, 1))
        return;
    for (int i = 0; i < a->count; i++) {
        ev[0] = at(a->x, a->y, a->button);
        if (!send_events(a, ev, 1))
            return;
        if (a->hold_ms > 0)
            clock_sleep_ms(a->hold_ms);
        ev[0] = at(a->x, a->y, 0);
        if (!send_events(a, ev, 1))
            return;
    }
}

void vnc_click_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "text", "role", "app", "window", NULL};
    if (refuse_fields(bc, "click", unsupported))
        return;
    if (!json_object_get(bc->args, "x") || !json_object_get(bc->args, "y")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot click: arguments \"x\" and \"y\" are required on vnc "
                               "sessions");
        return;
    }
    int x, y;
    if (!point(bc, bc->args, "point", "click", &x, &y))
        return;
    struct act *a = act_new(bc, "click", click_run);
    a->x = x;
    a->y = y;
    a->button = button_of(bc->args);
    a->count = (int)args_int(bc->args, "count", 1);
    a->hold_ms = (int)args_int(bc->args, "hold_ms", 0);
    const char *button = args_string(bc->args, "button", "left");
    start(a,
          json_pack("{s:s, s:i, s:i, s:s, s:i}", "session", bc->session->id, "x", x, "y", y,
                    "button", button, "count", a->count),
          xasprintf("clicked %s at %d,%d in %s", button, x, y, bc->session->id));
}

/* ---- drag ---- */

static void drag_run(struct act *a)
{
    struct vnc_event ev = at(a->x, a->y, 0);
    if (!send_events(a, &ev, 1))
        return;
    ev = at(a->x, a->y, a->button);
    if (!send_events(a, &ev, 1))
        return;
    for (int i = 1; i <= DRAG_STEPS; i++) {
        if (a->duration_ms > 0)
            clock_sleep_ms(a->duration_ms / DRAG_STEPS);
        int x = a->x + (a->x2 - a->x) * i / DRAG_STEPS;
        int y = a->y + (a->y2 - a->y) * i / DRAG_STEPS;
        ev = at(x, y, a->button);
        if (!send_events(a, &ev, 1))
            return;
    }
    ev = at(a->x2, a->y2, 0);
    send_events(a, &ev, 1);
}

void vnc_drag_op(struct backend_call *bc)
{
    if (guarded(bc, "drag"))
        return;
    int x, y, x2, y2;
    if (!point(bc, json_object_get(bc->args, "from"), "from", "drag", &x, &y) ||
        !point(bc, json_object_get(bc->args, "to"), "to", "drag", &x2, &y2))
        return;
    struct act *a = act_new(bc, "drag", drag_run);
    a->x = x;
    a->y = y;
    a->x2 = x2;
    a->y2 = y2;
    a->button = button_of(bc->args);
    a->duration_ms = (int)args_int(bc->args, "duration_ms", 300);
    start(a,
          json_pack("{s:s, s:{s:i, s:i}, s:{s:i, s:i}}", "session", bc->session->id, "from", "x", x,
                    "y", y, "to", "x", x2, "y", y2),
          xasprintf("dragged from %d,%d to %d,%d in %s", x, y, x2, y2, bc->session->id));
}

/* ---- scroll ---- */

static void scroll_run(struct act *a)
{
    struct vnc_event ev[BATCH];
    int n = 0;
    ev[n++] = at(a->x, a->y, 0);
    for (int i = 0; i < a->amount; i++) {
        ev[n++] = at(a->x, a->y, a->button);
        ev[n++] = at(a->x, a->y, 0);
        if (n > BATCH - 2) {
            if (!send_events(a, ev, n))
                return;
            n = 0;
        }
    }
    send_events(a, ev, n);
}

void vnc_scroll_op(struct backend_call *bc)
{
    if (guarded(bc, "scroll"))
        return;
    struct vnc *v = vnc_of(bc->session);
    const char *dir = args_string(bc->args, "direction", "down");
    int x, y;
    if (json_object_get(bc->args, "x") && json_object_get(bc->args, "y")) {
        if (!point(bc, bc->args, "point", "scroll", &x, &y))
            return;
    } else {
        /* Without a point: the middle of the screen. */
        vnc_size(v, &x, &y);
        x /= 2;
        y /= 2;
    }
    struct act *a = act_new(bc, "scroll", scroll_run);
    a->x = x;
    a->y = y;
    a->amount = (int)args_int(bc->args, "amount", 3);
    a->button = strcmp(dir, "up") == 0     ? WHEEL_UP
                : strcmp(dir, "down") == 0 ? WHEEL_DOWN
                : strcmp(dir, "left") == 0 ? WHEEL_LEFT
                                           : WHEEL_RIGHT;
    start(a,
          json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "direction", dir, "amount",
                    a->amount),
          xasprintf("scrolled %s %d in %s", dir, a->amount, bc->session->id));
}

/* ---- keys ---- */

static uint32_t keysym_for(uint32_t cp)
{
    if (cp == '\n' || cp == '\r')
        return KS_RETURN;
    if (cp == '\t')
        return KS_TAB;
    if (cp == '\b')
        return KS_BACKSPACE;
    if (cp == 0x1b)
        return KS_ESCAPE;
    if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff))
        return cp;
    return 0x01000000u | cp;
}

static int chord_events(const struct input_key *k, struct vnc_event *ev);

/* Key presses for typed[from, to), in batches, or one character at a time
 * when paced (the pause cut short by a cancel or a takeover). */
static void keys_run(struct act *a, size_t from, size_t to)
{
    struct vnc_event ev[BATCH];
    int n = 0;
    for (size_t i = from; i < to; i++) {
        uint32_t sym = keysym_for(a->typed[i].cp);
        ev[n++] = (struct vnc_event){.key = true, .down = true, .keysym = sym};
        ev[n++] = (struct vnc_event){.key = true, .down = false, .keysym = sym};
        if (n > BATCH - 2 || a->delay_ms > 0) {
            if (!send_events(a, ev, n))
                return;
            a->chars += (size_t)n / 2;
            n = 0;
            for (int left = a->delay_ms; left > 0 && still_wanted(a); left -= 10)
                clock_sleep_ms(left < 10 ? left : 10);
            if (a->err)
                return;
        }
    }
    if (send_events(a, ev, n))
        a->chars += (size_t)n / 2;
}

/* typed[from, to) as cut text (Latin-1, as RFB carries it), then the paste
 * chord, in one batch so nothing comes between them; then a pause, so that
 * keys after it do not overtake the paste. */
static void paste_run(struct act *a, size_t from, size_t to)
{
    char *latin1 = xmalloc(to - from + 1);
    for (size_t i = from; i < to; i++)
        latin1[i - from] = (char)a->typed[i].cp;
    struct vnc_event ev[16]; /* the cut text and a chord (chord_events) */
    ev[0] = (struct vnc_event){.cut = latin1, .cut_len = to - from};
    int n = 1 + chord_events(&a->key, ev + 1);
    bool sent = send_events(a, ev, n);
    explicit_bzero(latin1, to - from);
    free(latin1);
    if (!sent)
        return;
    a->chars += to - from;
    a->pasted += to - from;
    for (int left = PASTE_SETTLE_MS; left > 0 && still_wanted(a); left -= 10)
        clock_sleep_ms(left < 10 ? left : 10);
}

/* Runs of typed and pasted characters, in the text's order. */
static void type_run(struct act *a)
{
    for (size_t i = 0; i < a->n_typed && !a->err;) {
        size_t j = i;
        while (j < a->n_typed && a->typed[j].paste == a->typed[i].paste)
            j++;
        if (a->typed[i].paste)
            paste_run(a, i, j);
        else
            keys_run(a, i, j);
        i = j;
    }
    if (a->err && a->code != ERROR_DEVICE_UNAVAILABLE) {
        char *err = a->pasted ? xasprintf("%s: typed %zu characters (%zu of them pasted)", a->err,
                                          a->chars, a->pasted)
                              : xasprintf("%s: typed %zu characters", a->err, a->chars);
        free(a->err);
        a->err = err;
    }
}

/* Whether the server is Apple's (macOS Screen Sharing, iPhone Mirroring):
 * its keys come from the Mac's layout, and cmd+v pastes. */
static bool apple_server(struct vnc *v)
{
    pthread_mutex_lock(&v->mu);
    bool apple = v->iphone_mirroring || (v->security && strcmp(v->security, "ard") == 0);
    pthread_mutex_unlock(&v->mu);
    return apple;
}

/* The chord that pastes on this server: vnc_connect's paste_keys, else
 * cmd+v on Apple's servers and ctrl+v elsewhere. */
static const char *paste_chord(struct vnc *v)
{
    return v->paste_keys ? v->paste_keys : apple_server(v) ? "super+v" : "ctrl+v";
}

void vnc_type_text_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "window", NULL};
    if (refuse_fields(bc, "type", unsupported))
        return;
    struct vnc *v = vnc_of(bc->session);
    const char *text = args_string(bc->args, "text", "");
    const char *via_name = args_string(bc->args, "via", "auto");
    enum vnc_via via;
    if (!vnc_via_parse(via_name, &via)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot type: argument \"via\" is \"keys\", \"paste\" or \"auto\", "
                               "not \"%s\"",
                               via_name);
        return;
    }
    struct vnc_typed *typed;
    size_t n_typed, n_paste;
    char *err = NULL;
    if (!vnc_type_plan(text, via, apple_server(v), &typed, &n_typed, &n_paste, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "cannot type: %s", err);
        free(err);
        return;
    }
    const char *chord = paste_chord(v);
    struct input_key key = {0};
    if (n_paste && !input_keys_parse("paste_keys", chord, &key, &err)) {
        /* vnc_connect checked it: only the defaults come here unchecked. */
        backend_call_fail_code(bc, ERROR_TOOL_FAILED, "cannot paste: %s", err);
        free(err);
        free(typed);
        return;
    }
    if (n_paste > VNC_MAX_CUT_TEXT) {
        free(typed);
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot type: argument \"text\": %zu characters to paste, over "
                               "the %u a cut text may carry",
                               n_paste, VNC_MAX_CUT_TEXT);
        return;
    }
    size_t chars = utf8_length(text, strlen(text));
    struct act *a = act_new(bc, "type", type_run);
    a->typed = typed;
    a->n_typed = n_typed;
    a->key = key;
    /* delay_ms, else a words-per-minute pace (five characters a word). */
    int wpm = (int)args_int(bc->args, "wpm", 0);
    a->delay_ms = json_object_get(bc->args, "delay_ms") ? (int)args_int(bc->args, "delay_ms", 0)
                  : wpm > 0                             ? 12000 / wpm
                                                        : 0;
    json_t *result =
        json_pack("{s:s, s:I, s:I, s:s, s:I, s:I}", "session", bc->session->id, "bytes",
                  (json_int_t)strlen(text), "characters", (json_int_t)chars, "via", via_name,
                  "keys", (json_int_t)(n_typed - n_paste), "pasted", (json_int_t)n_paste);
    char *summary;
    if (n_paste) {
        json_object_set_new(result, "paste_keys", json_string(chord));
        json_object_set_new(result, "clipboard_replaced", json_true());
        summary = xasprintf("typed %zu character%s into %s: %zu as keys, %zu pasted (cut text, "
                            "then %s); the server's clipboard now holds the %s pasted text",
                            chars, chars == 1 ? "" : "s", bc->session->id, n_typed - n_paste,
                            n_paste, chord, n_paste < n_typed ? "last" : "");
    } else {
        summary = xasprintf("typed %zu character%s into %s", chars, chars == 1 ? "" : "s",
                            bc->session->id);
    }
    start(a, result, summary);
}

static uint32_t named_keysym(const struct input_key *k)
{
    static const uint32_t syms[] = {
        [INPUT_KEY_ENTER] = KS_RETURN,  [INPUT_KEY_TAB] = KS_TAB,
        [INPUT_KEY_ESCAPE] = KS_ESCAPE, [INPUT_KEY_BACKSPACE] = KS_BACKSPACE,
        [INPUT_KEY_DELETE] = KS_DELETE, [INPUT_KEY_INSERT] = KS_INSERT,
        [INPUT_KEY_UP] = KS_UP,         [INPUT_KEY_DOWN] = KS_DOWN,
        [INPUT_KEY_LEFT] = KS_LEFT,     [INPUT_KEY_RIGHT] = KS_RIGHT,
        [INPUT_KEY_HOME] = KS_HOME,     [INPUT_KEY_END] = KS_END,
        [INPUT_KEY_PAGEUP] = KS_PRIOR,  [INPUT_KEY_PAGEDOWN] = KS_NEXT,
    };
    /* F1..F24 are consecutive keysyms, as the names are. */
    if (k->named >= INPUT_KEY_F1 && k->named <= INPUT_KEY_F24)
        return KS_F1 + (uint32_t)(k->named - INPUT_KEY_F1);
    if (k->named == INPUT_KEY_CHAR) {
        uint32_t cp = k->codepoint;
        /* ctrl+C means the C key; shift comes from the modifiers. */
        if ((k->mods & INPUT_MOD_CTRL) && cp >= 'A' && cp <= 'Z')
            cp += 'a' - 'A';
        return keysym_for(cp);
    }
    return syms[k->named];
}

static const struct {
    unsigned mod;
    uint32_t keysym;
} held[] = {
    {INPUT_MOD_CTRL, KS_CONTROL_L}, {INPUT_MOD_ALT, KS_ALT_L},   {INPUT_MOD_SHIFT, KS_SHIFT_L},
    {INPUT_MOD_SUPER, KS_SUPER_L},  {INPUT_MOD_META, KS_META_L}, {INPUT_MOD_HYPER, KS_HYPER_L},
};
#define N_HELD (sizeof held / sizeof *held)

/* The keysyms of the modifiers in mods, in held's order; their count. */
static int modifier_keysyms(unsigned mods, uint32_t *out)
{
    int m = 0;
    for (size_t i = 0; i < N_HELD; i++)
        if (mods & held[i].mod)
            out[m++] = held[i].keysym;
    return m;
}

/* A chord's events: its modifiers down, the key down and up, the
 * modifiers up; their count (at most 2 * N_HELD + 2). */
static int chord_events(const struct input_key *k, struct vnc_event *ev)
{
    uint32_t mods[N_HELD];
    int m = modifier_keysyms(k->mods, mods);
    uint32_t sym = named_keysym(k);
    int n = 0;
    for (int i = 0; i < m; i++)
        ev[n++] = (struct vnc_event){.key = true, .down = true, .keysym = mods[i]};
    ev[n++] = (struct vnc_event){.key = true, .down = true, .keysym = sym};
    ev[n++] = (struct vnc_event){.key = true, .down = false, .keysym = sym};
    for (int i = m - 1; i >= 0; i--)
        ev[n++] = (struct vnc_event){.key = true, .down = false, .keysym = mods[i]};
    return n;
}

static void key_run(struct act *a)
{
    struct vnc_event ev[2 * N_HELD + 2];
    for (int r = 0; r < a->count; r++)
        if (!send_events(a, ev, chord_events(&a->key, ev)))
            return;
}

void vnc_press_key_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"window", NULL};
    if (refuse_fields(bc, "press a key", unsupported))
        return;
    const char *spec = args_string(bc->args, "key", "");
    struct input_key key;
    char *err = NULL;
    if (!input_keys_parse("key", spec, &key, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    struct act *a = act_new(bc, "press a key", key_run);
    a->key = key;
    a->count = (int)args_int(bc->args, "repeat", 1);
    start(a,
          json_pack("{s:s, s:s, s:i}", "session", bc->session->id, "key", spec, "repeat", a->count),
          xasprintf("pressed %s in %s", spec, bc->session->id));
}

/* ---- iPhone Mirroring (vnc_connect iphone_mirroring): a phone's buttons
 * and apps through that macOS app's shortcuts ---- */

/* How long Spotlight on the phone takes to open before its search field
 * takes typing, and the results to follow the text. */
#define SEARCH_OPEN_MS    800
#define SEARCH_RESULTS_MS 500

static const struct {
    const char *button;
    const char *chord;
} mirroring_keys[] = {
    {"home", "cmd+1"},
    {"app_switch", "cmd+2"},
    {"search", "cmd+3"},
};

static bool mirroring(struct backend_call *bc, const char *verb)
{
    if (vnc_of(bc->session)->iphone_mirroring)
        return !guarded(bc, verb);
    backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                           "cannot %s: %s is a vnc session of a desktop; phone buttons and apps "
                           "work on sessions connected with \"iphone_mirroring\": true",
                           verb, bc->session->id);
    return false;
}

/* The chord; then, for launch_app, the app's name typed into the search
 * and Return, which opens the first result. */
static void mirror_run(struct act *a)
{
    key_run(a);
    if (!a->text || a->err)
        return;
    clock_sleep_ms(SEARCH_OPEN_MS);
    type_run(a);
    clock_sleep_ms(SEARCH_RESULTS_MS);
    struct vnc_event ev[2] = {{.key = true, .down = true, .keysym = KS_RETURN},
                              {.key = true, .down = false, .keysym = KS_RETURN}};
    send_events(a, ev, 2);
}

static struct act *mirror_act(struct backend_call *bc, const char *verb, const char *chord)
{
    struct act *a = act_new(bc, verb, mirror_run);
    char *err = NULL;
    input_keys_parse("key", chord, &a->key, &err); /* the table's chords parse */
    free(err);
    a->count = 1;
    return a;
}

void vnc_press_button_op(struct backend_call *bc)
{
    if (!mirroring(bc, "press a button"))
        return;
    const char *button = args_string(bc->args, "button", "");
    for (size_t i = 0; i < sizeof mirroring_keys / sizeof *mirroring_keys; i++)
        if (strcmp(button, mirroring_keys[i].button) == 0) {
            struct act *a = mirror_act(bc, "press a button", mirroring_keys[i].chord);
            start(a,
                  json_pack("{s:s, s:s, s:s}", "session", bc->session->id, "button", button, "keys",
                            mirroring_keys[i].chord),
                  xasprintf("pressed %s (%s in iPhone Mirroring) in %s", button,
                            mirroring_keys[i].chord, bc->session->id));
            return;
        }
    backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                           "cannot press a button: argument \"button\": iPhone Mirroring has "
                           "shortcuts for home (cmd+1), app_switch (cmd+2) and search (cmd+3) "
                           "only, not %s",
                           button);
}

void vnc_app_launch_op(struct backend_call *bc)
{
    if (!mirroring(bc, "launch an app"))
        return;
    const char *app = args_string(bc->args, "app", "");
    struct act *a = mirror_act(bc, "launch an app", "cmd+3");
    a->text = xstrdup(app);
    size_t n_paste;
    char *err = NULL;
    vnc_type_plan(app, VNC_VIA_KEYS, false, &a->typed, &a->n_typed, &n_paste, &err);
    start(a, json_pack("{s:s, s:s}", "session", bc->session->id, "app", app),
          xasprintf("searched for %s on the phone (cmd+3) and opened the first result in %s", app,
                    bc->session->id));
}

/* ---- the pointer and held keys alone (computer's mouse_move,
 * left_mouse_down/up, cursor_position, hold_key, modifiers around a click) ---- */

enum pointer_action { POINTER_MOVE, POINTER_DOWN, POINTER_UP, POINTER_WHERE };

static void pointer_run(struct act *a)
{
    struct vnc *v = a->v;
    pthread_mutex_lock(&v->mu);
    uint8_t buttons = v->buttons_held;
    if (a->pointer == POINTER_WHERE || a->x < 0) {
        /* Down and up without a point act where the pointer is. */
        a->x = v->pointer_x;
        a->y = v->pointer_y;
    }
    bool known = v->pointer_known || a->pointer != POINTER_WHERE;
    pthread_mutex_unlock(&v->mu);
    if (a->pointer == POINTER_DOWN)
        buttons |= a->button;
    else if (a->pointer == POINTER_UP)
        buttons &= (uint8_t)~a->button;
    if (a->pointer != POINTER_WHERE) {
        struct vnc_event ev[2] = {at(a->x, a->y, a->pointer == POINTER_MOVE ? buttons : 0), {0}};
        int n = 1;
        if (a->pointer != POINTER_MOVE) {
            /* Moved first with the buttons as they were, then the change. */
            pthread_mutex_lock(&v->mu);
            ev[0].buttons = v->buttons_held;
            pthread_mutex_unlock(&v->mu);
            ev[n++] = at(a->x, a->y, buttons);
        }
        if (!send_events(a, ev, n))
            return;
        pthread_mutex_lock(&v->mu);
        v->buttons_held = buttons;
        pthread_mutex_unlock(&v->mu);
    }
    json_object_set_new(a->result, "x", json_integer(a->x));
    json_object_set_new(a->result, "y", json_integer(a->y));
    if (!known)
        json_object_set_new(a->result, "known", json_false());
    a->summary = known ? xasprintf("the pointer is at %d,%d", a->x, a->y)
                       : xstrdup("glovebox has not moved the pointer of this vnc session yet (RFB "
                                 "does not say where it is): 0,0 is a guess");
}

void vnc_pointer_op(struct backend_call *bc)
{
    static const char *const names[] = {"move", "down", "up", "where"};
    const char *what = args_string(bc->args, "action", "where");
    int action = POINTER_WHERE;
    for (int i = 0; i < 4; i++)
        if (strcmp(what, names[i]) == 0)
            action = i;
    if (action != POINTER_WHERE && guarded(bc, "move the pointer"))
        return;
    int x = -1, y = -1;
    if (json_object_get(bc->args, "x") || json_object_get(bc->args, "y")) {
        if (!point(bc, bc->args, "point", "move the pointer", &x, &y))
            return;
    } else if (action == POINTER_MOVE) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "a pointer move needs x and y");
        return;
    }
    struct act *a = act_new(bc, "move the pointer", pointer_run);
    a->pointer = action;
    a->x = x;
    a->y = y;
    a->button = button_of(bc->args);
    /* Filled in on the worker: where the pointer ended up. */
    start(a, json_pack("{s:s}", "session", bc->session->id), NULL);
}

static void key_hold_run(struct act *a)
{
    uint32_t mods[N_HELD];
    int m = modifier_keysyms(a->key.mods, mods);
    bool down = a->down;
    struct vnc_event ev[N_HELD + 1];
    int n = 0;
    uint32_t sym = a->mods_only ? 0 : named_keysym(&a->key);
    if (!down && sym)
        ev[n++] = (struct vnc_event){.key = true, .down = false, .keysym = sym};
    for (int k = 0; k < m; k++)
        ev[n++] =
            (struct vnc_event){.key = true, .down = down, .keysym = mods[down ? k : m - 1 - k]};
    if (down && sym)
        ev[n++] = (struct vnc_event){.key = true, .down = true, .keysym = sym};
    send_events(a, ev, n);
}

void vnc_key_hold_op(struct backend_call *bc)
{
    if (guarded(bc, "hold a key"))
        return;
    const char *spec = args_string(bc->args, "key", "");
    bool down = strcmp(args_string(bc->args, "state", "down"), "down") == 0;
    struct input_key key = {0};
    char *err = NULL;
    bool mods_only = input_keys_parse_mods("key", spec, &key.mods, NULL);
    if (!mods_only && !input_keys_parse("key", spec, &key, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    struct act *a = act_new(bc, "hold a key", key_hold_run);
    a->key = key;
    a->down = down;
    a->mods_only = mods_only;
    start(a,
          json_pack("{s:s, s:s, s:s}", "session", bc->session->id, "key", spec, "state",
                    down ? "down" : "up"),
          xasprintf("%s %s", spec, down ? "held down" : "let go"));
}

/* ---- clipboard: RFB cut text ---- */

/* RFB has one clipboard; "primary" is the X selection it stands for on
 * Xvnc too, but the protocol cannot tell them apart. */
static bool clipboard_selection(struct backend_call *bc, const char *verb)
{
    if (strcmp(args_string(bc->args, "selection", "clipboard"), "clipboard") == 0)
        return true;
    backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                           "cannot %s: argument \"selection\": vnc sessions have one clipboard "
                           "(\"clipboard\")",
                           verb);
    return false;
}

void vnc_clipboard_get_op(struct backend_call *bc)
{
    if (!clipboard_selection(bc, "read the clipboard"))
        return;
    struct vnc *v = vnc_of(bc->session);
    pthread_mutex_lock(&v->mu);
    char *text = xstrdup(v->cut_text ? v->cut_text : "");
    pthread_mutex_unlock(&v->mu);
    size_t n = strlen(text);
    json_t *data = json_pack("{s:s, s:s, s:s%, s:I, s:b}", "session", bc->session->id, "selection",
                             "clipboard", "text", text, n, "bytes", (json_int_t)n, "empty", n == 0);
    if (n == 0)
        backend_call_done(bc, data, "the clipboard is empty (the server has sent no cut text)");
    else
        backend_call_done(bc, data, "%s", text);
    free(text);
}

static void cut_run(struct act *a)
{
    struct vnc_event ev = {.cut = a->text, .cut_len = strlen(a->text)};
    send_events(a, &ev, 1);
}

void vnc_clipboard_set_op(struct backend_call *bc)
{
    if (!clipboard_selection(bc, "set the clipboard"))
        return;
    const char *text = args_string(bc->args, "text", "");
    size_t len = strlen(text);
    /* Cut text is Latin-1 on the wire. */
    char *latin1 = xmalloc(len + 1), *o = latin1;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = utf8_decode((const unsigned char *)text + i, len - i, &cp);
        if (k == 0 || cp > 0xff) {
            free(latin1);
            backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                                   "cannot set the clipboard: argument \"text\" holds a "
                                   "character outside Latin-1 at byte %zu; RFB cut text carries "
                                   "Latin-1 only",
                                   i);
            return;
        }
        *o++ = (char)cp;
        i += k;
    }
    *o = '\0';
    if ((size_t)(o - latin1) > VNC_MAX_CUT_TEXT) {
        free(latin1);
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot set the clipboard: argument \"text\" is over %u bytes",
                               VNC_MAX_CUT_TEXT);
        return;
    }
    struct act *a = act_new(bc, "set the clipboard", cut_run);
    a->text = latin1;
    start(a,
          json_pack("{s:s, s:s, s:I}", "session", bc->session->id, "selection", "clipboard",
                    "bytes", (json_int_t)len),
          xasprintf("the clipboard of %s holds %zu bytes of text from glovebox", bc->session->id,
                    len));
}
