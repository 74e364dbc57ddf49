/* Touches without a Java process on the device: multi-touch protocol B
 * events written straight to the touchscreen's evdev node through one adb
 * stream kept open per session,
 *
 *     shell,v2,raw:test -w NODE && echo ready && cat > NODE
 *
 * (stdin packets are the events; `cat` copies them into the node, where
 * the kernel stamps them and Android's InputReader reads them as a finger).
 * `input tap` starts app_process (a Java VM, 100-500 ms on a phone); this
 * costs one packet. Found at connect by one `getevent -p` step
 * (touch_probe.c). A gesture is a list of frames written on timers, never
 * blocking the loop; gestures of one session run one after another. Keys,
 * buttons and text stay on `input` (act.c). */
#define LOG_MODULE "android"
#include "backend/android/internal.h"
#include "backend/android/touch_probe.h"
#include "core/app.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_MS  8  /* between the moves of a drag: about 120 Hz, as panels report */
#define TAP_GAP   80 /* between the taps of a double tap: over GestureDetector's 40 ms minimum */
#define MAX_ERR   2048
#define MAX_STEPS 2000 /* moves of one drag (16 s at 8 ms) */

enum frame_kind { F_DOWN, F_MOVE, F_UP };

struct touch_frame {
    enum frame_kind kind;
    int x, y;  /* screen pixels as apps see them now */
    int delay; /* ms after the previous frame */
};

struct gesture {
    struct gesture *next;
    struct backend_call *bc;
    json_t *result;
    char *caption;
    struct touch_frame *f;
    size_t n, at;
};

struct android_touch {
    uv_loop_t *loop;
    struct adb_server srv;
    char *serial;
    struct android *a; /* the session, once attached (held), or NULL */
    struct touch_screen ts;
    int esize; /* bytes of one struct input_event on the device: 16 or 24 */
    struct adb_stream *stream;
    bool ready, discard;
    struct strbuf err; /* the stream's stderr, bounded */
    android_touch_opened_fn opened;
    void *ud;
    uv_timer_t timer;
    struct gesture *head, **tail;
    int next_id;
    bool finger; /* a contact is down on the node */
};

/* ---- events ------------------------------------------------------------- */

static void put_event(struct strbuf *b, int esize, int type, int code, int value)
{
    uint8_t e[24] = {0}; /* the time stays zero: the kernel stamps injected events */
    size_t at = (size_t)esize - 8;
    e[at] = (uint8_t)type;
    e[at + 1] = (uint8_t)(type >> 8);
    e[at + 2] = (uint8_t)code;
    e[at + 3] = (uint8_t)(code >> 8);
    uint32_t v = (uint32_t)value;
    for (int i = 0; i < 4; i++)
        e[at + 4 + (size_t)i] = (uint8_t)(v >> (8 * i));
    strbuf_append(b, (const char *)e, (size_t)esize);
}

/* Pixel n of size pixels into the middle of its share of [min, max], as
 * InputReader scales back: (raw - min) * size / (max - min + 1). */
static int scale(int n, int size, const struct touch_axis *ax)
{
    long long range = (long long)ax->max - ax->min + 1;
    long long v = ax->min + ((2LL * n + 1) * range) / (2LL * size);
    return (int)(v > ax->max ? ax->max : v < ax->min ? ax->min : v);
}

/* Screen pixels in the current rotation → the panel's natural orientation
 * (the inverse of TouchInputMapper's per-orientation mapping). */
static void to_panel(const struct android *a, int x, int y, int *nx, int *ny)
{
    int w = a->phys_width, h = a->phys_height;
    switch (a->rotation & 3) {
    case 1:
        *nx = w - 1 - y;
        *ny = x;
        break;
    case 2:
        *nx = w - 1 - x;
        *ny = h - 1 - y;
        break;
    case 3:
        *nx = y;
        *ny = h - 1 - x;
        break;
    default:
        *nx = x;
        *ny = y;
    }
}

static int middle(const struct touch_axis *ax, int share)
{
    int v = ax->min + (ax->max - ax->min) / share;
    return v > 0 ? v : ax->max > 0 ? 1 : ax->max;
}

static void put_frame(struct android_touch *t, struct strbuf *b, const struct touch_frame *f)
{
    const struct touch_screen *s = &t->ts;
    int es = t->esize;
    put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_SLOT, 0);
    if (f->kind == F_UP) {
        put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_TRACKING, -1);
        if (s->btn_touch)
            put_event(b, es, TOUCH_EV_KEY, TOUCH_BTN_TOUCH, 0);
        if (s->btn_tool_finger)
            put_event(b, es, TOUCH_EV_KEY, TOUCH_BTN_TOOL_FINGER, 0);
        put_event(b, es, TOUCH_EV_SYN, TOUCH_SYN_REPORT, 0);
        t->finger = false;
        return;
    }
    int nx, ny;
    to_panel(t->a, f->x, f->y, &nx, &ny);
    bool down = f->kind == F_DOWN;
    if (down) {
        put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_TRACKING, t->next_id);
        /* Ids stay in the axis's range; a new id is a new contact. */
        t->next_id =
            t->next_id >= (s->tracking.max > 0 ? s->tracking.max : 65535) ? 1 : t->next_id + 1;
    }
    put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_POSITION_X, scale(nx, t->a->phys_width, &s->x));
    put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_POSITION_Y, scale(ny, t->a->phys_height, &s->y));
    if (down && s->pressure.present)
        put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_PRESSURE, middle(&s->pressure, 2));
    if (down && s->major.present)
        put_event(b, es, TOUCH_EV_ABS, TOUCH_ABS_MT_TOUCH_MAJ, middle(&s->major, 8));
    if (down && s->btn_touch)
        put_event(b, es, TOUCH_EV_KEY, TOUCH_BTN_TOUCH, 1);
    if (down && s->btn_tool_finger)
        put_event(b, es, TOUCH_EV_KEY, TOUCH_BTN_TOOL_FINGER, 1);
    put_event(b, es, TOUCH_EV_SYN, TOUCH_SYN_REPORT, 0);
    t->finger = true;
}

/* ---- gestures ----------------------------------------------------------- */

static void gesture_free(struct gesture *g)
{
    json_decref(g->result);
    free(g->caption);
    free(g->f);
    free(g);
}

static struct gesture *pop(struct android_touch *t)
{
    struct gesture *g = t->head;
    t->head = g->next;
    if (!t->head)
        t->tail = &t->head;
    return g;
}

static void run(struct android_touch *t);

static void on_timer(uv_timer_t *h)
{
    run(h->data);
}

/* Write the head gesture's frames that are due, then wait for the next or
 * answer it. */
static void run(struct android_touch *t)
{
    while (t->head) {
        struct gesture *g = t->head;
        struct strbuf b = {0};
        do {
            put_frame(t, &b, &g->f[g->at++]);
        } while (g->at < g->n && g->f[g->at].delay == 0);
        /* One stdin packet per batch: `cat` reads it whole (under PIPE_BUF),
         * so the node never gets a part of an event. */
        adb_stream_write(t->stream, b.data, b.len);
        strbuf_finish(&b);
        if (g->at < g->n) {
            uv_timer_start(&t->timer, on_timer, (uint64_t)g->f[g->at].delay, 0);
            return;
        }
        pop(t);
        struct android *a = t->a;
        android_stream_acted(a);
        backend_call_done(g->bc, g->result, "%s", g->caption);
        g->result = NULL;
        gesture_free(g);
        android_release(a);
    }
}

static void start(struct backend_call *bc, struct touch_frame *f, size_t n, json_t *result,
                  char *caption)
{
    struct android *a = android_of(bc->session);
    struct android_touch *t = a->touch;
    struct gesture *g = xcalloc(1, sizeof *g);
    g->bc = bc;
    g->result = result;
    g->caption = caption;
    g->f = f;
    g->n = n;
    android_hold(a);
    bool idle = !t->head;
    *t->tail = g;
    t->tail = &g->next;
    if (idle)
        run(t);
}

bool android_touch_live(const struct android *a)
{
    return a->touch && a->touch->ready && !a->stopping;
}

void android_touch_tap(struct backend_call *bc, int x, int y, int count, int hold_ms,
                       json_t *result, char *caption)
{
    if (hold_ms > 0)
        count = 1;
    struct touch_frame *f = xcalloc((size_t)count * 2, sizeof *f);
    for (int i = 0; i < count; i++) {
        f[2 * i] = (struct touch_frame){F_DOWN, x, y, i ? TAP_GAP : 0};
        f[2 * i + 1] = (struct touch_frame){F_UP, x, y, hold_ms > 0 ? hold_ms : 0};
    }
    start(bc, f, (size_t)count * 2, result, caption);
}

void android_touch_swipe(struct backend_call *bc, int x1, int y1, int x2, int y2, int ms,
                         json_t *result, char *caption)
{
    int steps = ms / FRAME_MS;
    if (steps < 1)
        steps = 1;
    if (steps > MAX_STEPS)
        steps = MAX_STEPS;
    struct touch_frame *f = xcalloc((size_t)steps + 2, sizeof *f);
    f[0] = (struct touch_frame){F_DOWN, x1, y1, 0};
    int done = 0;
    for (int i = 1; i <= steps; i++) {
        int due = (int)((long long)ms * i / steps);
        f[i] = (struct touch_frame){F_MOVE, x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps,
                                    due - done};
        done = due;
    }
    f[steps + 1] = (struct touch_frame){F_UP, x2, y2, 0};
    start(bc, f, (size_t)steps + 2, result, caption);
}

void android_touch_pointer(struct backend_call *bc, bool down, bool up, int x, int y,
                           json_t *result, char *caption)
{
    struct touch_frame *f = xcalloc(1, sizeof *f);
    *f = (struct touch_frame){up ? F_UP : down ? F_DOWN : F_MOVE, x, y, 0};
    start(bc, f, 1, result, caption);
}

/* ---- the stream --------------------------------------------------------- */

static void closed(uv_handle_t *h)
{
    struct android_touch *t = h->data;
    struct android *a = t->a;
    strbuf_finish(&t->err);
    free(t->serial);
    free(t);
    if (a)
        android_release(a);
}

static void finish(struct android_touch *t)
{
    uv_timer_stop(&t->timer);
    uv_close((uv_handle_t *)&t->timer, closed);
}

/* The writer could not be set up: the opener hears why (why is freed) and
 * t goes. */
static void open_failed(struct android_touch *t, char *why)
{
    android_touch_opened_fn cb = t->opened;
    t->opened = NULL;
    cb(t->ud, NULL, why);
    free(why);
    finish(t);
}

static void on_packet(void *ud, int id, const uint8_t *data, size_t len)
{
    struct android_touch *t = ud;
    if (id == 2) {
        if (t->err.len + len <= MAX_ERR)
            strbuf_append(&t->err, (const char *)data, len);
        return;
    }
    if (!t->ready && memmem(data, len, "ready", 5)) {
        t->ready = true;
        android_touch_opened_fn cb = t->opened;
        t->opened = NULL;
        cb(t->ud, t, NULL);
    }
}

/* Why the stream ended, for the user (caller frees). */
static char *ended_why(struct android_touch *t, const struct adb_reply *r)
{
    size_t n = t->err.len;
    while (n && (t->err.data[n - 1] == '\n' || t->err.data[n - 1] == '\r'))
        n--;
    if (!r->ok)
        return xasprintf("the event stream to %s failed: %s", t->ts.node, r->error);
    if (n)
        return xasprintf("the event stream to %s ended (exit status %d): %.*s", t->ts.node,
                         r->exit_code, (int)(n > 300 ? 300 : n), t->err.data);
    if (!t->ready)
        return xasprintf("%s is not writable by the shell user (`test -w` failed); on most "
                         "builds the shell user is in the group input",
                         t->ts.node);
    return xasprintf("the event stream to %s ended (exit status %d)", t->ts.node, r->exit_code);
}

static void on_done(void *ud, const struct adb_reply *r)
{
    struct android_touch *t = ud;
    t->stream = NULL;
    char *why = ended_why(t, r);
    if (!t->ready) {
        open_failed(t, why);
        return;
    }
    struct android *a = t->a;
    if (a) {
        if (a->touch == t)
            a->touch = NULL;
        if (!a->stopping) {
            free(a->input_note);
            a->input_note = xasprintf("%s; taps go through `input` from now on", why);
            log_warn("%s: %s", a->session->id, a->input_note);
        }
        /* What reached the device of the gesture in flight is not known:
         * it is not sent again. */
        while (t->head) {
            struct gesture *g = pop(t);
            backend_call_fail_code(g->bc,
                                   a->stopping ? ERROR_SESSION_EXPIRED : ERROR_DEVICE_UNAVAILABLE,
                                   "%s during the gesture; later taps use `input`", why);
            gesture_free(g);
            android_release(a);
        }
        if (r->device_lost)
            android_device_lost(a, r->error);
    }
    free(why);
    finish(t);
}

static void probed(void *ud, const struct adb_reply *r)
{
    struct android_touch *t = ud;
    char *why = NULL;
    if (!r->ok) {
        why = xasprintf("getevent -p failed: %s", r->error);
    } else {
        const char *out = (const char *)r->out;
        const char *mark = strstr(out, "@@\n");
        char abi[64] = "";
        if (mark) {
            size_t n = strcspn(mark + 3, "\r\n");
            snprintf(abi, sizeof abi, "%.*s", (int)(n < sizeof abi ? n : sizeof abi - 1), mark + 3);
        }
        char *text = xasprintf("%.*s", (int)(mark ? (size_t)(mark - out) : r->out_len), out);
        if (touch_probe_parse(text, &t->ts, &why)) {
            t->esize = touch_event_size(abi);
            if (!t->esize)
                why = xasprintf("unknown ABI \"%s\" (ro.product.cpu.abi): the size of "
                                "struct input_event there is not known",
                                abi);
        }
        free(text);
    }
    if (why) {
        open_failed(t, why);
        return;
    }
    char *q = android_sh_quote(t->ts.node);
    char *req = xasprintf("shell,v2,raw:test -w %s && echo ready && cat > %s", q, q);
    t->stream = adb_stream_open(t->loop, &t->srv, t->serial, req, ANDROID_TIMEOUT_MS, on_packet,
                                on_done, t);
    free(req);
    free(q);
}

void android_touch_open(uv_loop_t *loop, const struct adb_server *srv, const char *serial,
                        android_touch_opened_fn opened, void *ud)
{
    struct android_touch *t = xcalloc(1, sizeof *t);
    t->loop = loop;
    t->srv = *srv;
    t->serial = xstrdup(serial);
    t->opened = opened;
    t->ud = ud;
    t->tail = &t->head;
    t->next_id = 1;
    uv_timer_init(loop, &t->timer);
    t->timer.data = t;
    adb_request(loop, srv, serial,
                "shell,v2,raw:getevent -p 2>/dev/null; echo @@; getprop ro.product.cpu.abi",
                ADB_SHELL_V2, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, probed, t);
}

const char *android_touch_node(const struct android_touch *t)
{
    return t->ts.node;
}

void android_touch_attach(struct android_touch *t, struct android *a)
{
    t->a = a;
    a->touch = t;
    android_hold(a); /* released once the stream and the timer are gone */
}

void android_touch_close(struct android_touch *t)
{
    if (t->stream)
        adb_stream_close(t->stream, ERROR_SESSION_EXPIRED, "closed");
}

void android_touch_end(struct android *a)
{
    struct android_touch *t = a->touch;
    if (!t || !t->stream)
        return;
    /* A finger left down (computer's pointer, a gesture cut short) is
     * lifted; then cat reads the end of its input and exits. */
    uv_timer_stop(&t->timer);
    if (t->finger) {
        struct strbuf b = {0};
        struct touch_frame up = {F_UP, 0, 0, 0};
        put_frame(t, &b, &up);
        adb_stream_write(t->stream, b.data, b.len);
        strbuf_finish(&b);
    }
    while (t->head) {
        struct gesture *g = pop(t);
        backend_call_fail_code(g->bc, ERROR_SESSION_EXPIRED,
                               "the session ended during the gesture");
        gesture_free(g);
        android_release(a);
    }
    adb_stream_end_input(t->stream);
}
