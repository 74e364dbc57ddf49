/* The clipboard of a desktop session: the X selections CLIPBOARD and PRIMARY,
 * read and owned over an X connection of glovebox's own, with no helper
 * process (xclip, xsel) to start, reap or leave behind.
 *
 * Everything runs on the loop and nothing waits for the X server: requests
 * go out, and their replies and events are taken when the connection's fd
 * is readable (uv_poll) — xcb_poll_for_event reads what has arrived, then
 * xcb_poll_for_reply picks up the replies among it. An owner that never
 * answers costs a timer, not a frozen server.
 *
 * One operation runs at a time per session; the others wait their turn, so
 * a get after a set sees the text set. */
#define LOG_MODULE "clipboard"
#include "backend/desktop/internal.h"
#include "core/app.h"
#include "core/args.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h> /* xcb_poll_for_reply */

/* How long an owner has to answer a request (and, in an incremental
 * transfer, to send each next piece). */
#define ANSWER_TIMEOUT_MS 2000
/* The most text taken in either direction: a bound on memory, far above any
 * clipboard a person makes (the text to set is also bounded by the server's
 * --max-message, 16 MiB by default). */
#define MAX_TEXT (64u << 20)
/* Text longer than this goes to a requestor in pieces (INCR), as ICCCM asks
 * for data larger than a request may carry; smaller when the X server's
 * maximum request is. Small enough that one piece fits the socket's buffer:
 * xcb writes block, and a busy X server must not stall the loop. */
#define MAX_PIECE (64u << 10)
/* Requestors being fed in pieces at once; more are refused. */
#define MAX_TRANSFERS 16
/* A requestor that has not taken the next piece for this long has given up. */
#define TRANSFER_IDLE_MS 30000
#define MAX_WAITING      32

enum sel { SEL_CLIPBOARD, SEL_PRIMARY, SEL_COUNT };
static const char *const sel_arg[SEL_COUNT] = {"clipboard", "primary"};
static const char *const sel_x_name[SEL_COUNT] = {"CLIPBOARD", "PRIMARY"};

enum atom {
    A_CLIPBOARD,
    A_TARGETS,
    A_UTF8_STRING,
    A_TEXT,
    A_MIME_UTF8,
    A_MIME_TEXT,
    A_TIMESTAMP,
    A_INCR,
    A_PROP,  /* where owners put what we asked for */
    A_STAMP, /* touched to learn the server's time */
    A_COUNT
};
static const char *const atom_names[A_COUNT] = {"CLIPBOARD",
                                                "TARGETS",
                                                "UTF8_STRING",
                                                "TEXT",
                                                "text/plain;charset=utf-8",
                                                "text/plain",
                                                "TIMESTAMP",
                                                "INCR",
                                                "GLOVEBOX_SELECTION",
                                                "GLOVEBOX_TIMESTAMP"};

/* Text shared by the selection and the transfers still sending it. */
struct text {
    int refs;
    bool latin1; /* every character fits ISO 8859-1 (the STRING target) */
    bool ascii;
    size_t len;
    char data[];
};

/* A requestor fed in pieces (ICCCM INCR): each time it deletes the property
 * the next piece is written, and an empty piece ends it. */
struct transfer {
    xcb_window_t requestor;
    xcb_atom_t property, type;
    struct text *text;
    size_t sent;
    uint64_t last_ms; /* uv_now of the last piece */
    struct transfer *next;
};

enum step {
    STEP_WAITING, /* queued */
    STEP_STAMP,   /* learning the time, to own or ask with */
    STEP_OWNER,   /* asked who owns the selection */
    STEP_CONVERT, /* asked the owner for text; waiting for SelectionNotify */
    STEP_READ,    /* reading the answer */
    STEP_INCR,    /* reading an answer that comes in pieces */
    STEP_NAMING,  /* the answer is not text: asking the name of its type */
};

struct op {
    struct backend_call *bc;
    struct desktop_clipboard *cb;
    bool set;
    enum sel sel;
    struct text *text; /* set: what to own */
    enum step step;
    xcb_timestamp_t time;
    xcb_window_t owner;     /* get: the window that owns the selection */
    xcb_atom_t target;      /* get: UTF8_STRING, then STRING */
    xcb_atom_t type;        /* get: the type the owner answered with */
    bool reading;           /* a GetProperty is out */
    bool piece_ready;       /* a piece arrived while it was */
    struct strbuf received; /* get */
    struct op *next;
};

enum reply_kind { R_ATOM, R_OWNER_SET, R_OWNER_GET, R_PROPERTY, R_TYPE_NAME };

struct pending {
    unsigned int seq;
    enum reply_kind kind;
    int index;       /* R_ATOM: which atom */
    unsigned int id; /* the op it is for (ops that gave up ignore it) */
};

struct desktop_clipboard {
    struct desktop *d; /* NULL once closed */
    struct app *app;
    xcb_connection_t *c; /* NULL once closed */
    xcb_window_t win;
    char display[32];
    uint32_t piece; /* bytes per property write */
    uv_poll_t poll;
    uv_timer_t timer;
    int open_handles; /* freed when the last one has closed */
    int atoms_left;   /* interning; operations wait until 0 */
    xcb_atom_t atom[A_COUNT];
    xcb_atom_t sel_atom[SEL_COUNT];
    struct {
        struct text *text; /* NULL: glovebox does not own it */
        xcb_timestamp_t since;
    } own[SEL_COUNT];
    /* Replies awaited, oldest first. Grows: an X server that stopped
     * answering leaves one per timed-out call. */
    struct pending *pending;
    int n_pending, cap_pending;
    struct transfer *transfers;
    struct op *op; /* running */
    unsigned int op_id;
    struct op *waiting; /* FIFO */
    int n_waiting;
};

static struct text *text_new(const char *s, size_t n)
{
    struct text *t = xmalloc(sizeof *t + n + 1);
    t->refs = 1;
    t->len = n;
    memcpy(t->data, s, n);
    t->data[n] = '\0';
    t->ascii = t->latin1 = true;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t l = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (!l)
            l = 1, cp = 0xFFFD;
        if (cp > 0x7F)
            t->ascii = false;
        if (cp > 0xFF)
            t->latin1 = false;
        i += l;
    }
    return t;
}

static struct text *text_ref(struct text *t)
{
    t->refs++;
    return t;
}

static void text_unref(struct text *t)
{
    if (t && --t->refs == 0)
        free(t);
}

/* t as ISO 8859-1 (t->latin1 must hold). */
static struct text *text_latin1(const struct text *t)
{
    struct text *out = xmalloc(sizeof *out + t->len + 1);
    *out = (struct text){.refs = 1, .latin1 = true, .ascii = t->ascii};
    const unsigned char *s = (const unsigned char *)t->data;
    for (size_t i = 0; i < t->len;) {
        uint32_t cp = 0;
        size_t l = utf8_decode(s + i, t->len - i, &cp);
        out->data[out->len++] = (char)cp;
        i += l ? l : 1;
    }
    out->data[out->len] = '\0';
    return out;
}

/* ---------------------------------------------------------------------- */
/* The connection */

static void pump(struct desktop_clipboard *cb);

static void handle_closed(uv_handle_t *h)
{
    struct desktop_clipboard *cb = h->data;
    if (--cb->open_handles == 0) {
        free(cb->pending);
        free(cb);
    }
}

static void op_free(struct op *op)
{
    text_unref(op->text);
    strbuf_finish(&op->received);
    free(op);
}

/* Fail the running and waiting operations. */
static void fail_all(struct desktop_clipboard *cb, const char *why)
{
    struct op *list = cb->waiting;
    if (cb->op) {
        cb->op->next = list;
        list = cb->op;
    }
    cb->op = NULL;
    cb->waiting = NULL;
    cb->n_waiting = 0;
    cb->op_id++;
    while (list) {
        struct op *next = list->next;
        backend_call_fail(list->bc, "cannot %s the clipboard: %s", list->set ? "set" : "read", why);
        op_free(list);
        list = next;
    }
}

static void close_clipboard(struct desktop_clipboard *cb, const char *why)
{
    if (!cb->d)
        return;
    cb->d->clipboard = NULL;
    cb->d = NULL;
    fail_all(cb, why);
    while (cb->transfers) {
        struct transfer *t = cb->transfers;
        cb->transfers = t->next;
        text_unref(t->text);
        free(t);
    }
    for (int s = 0; s < SEL_COUNT; s++) {
        text_unref(cb->own[s].text);
        cb->own[s].text = NULL;
    }
    /* uv_close stops watching the fd at once, so the connection can go now;
     * with it goes any selection glovebox owned (the X server clears it). */
    /* At exit after a failed shutdown the server may have closed them
     * already; closing twice would abort. */
    if (!uv_is_closing((uv_handle_t *)&cb->poll))
        uv_close((uv_handle_t *)&cb->poll, handle_closed);
    if (!uv_is_closing((uv_handle_t *)&cb->timer))
        uv_close((uv_handle_t *)&cb->timer, handle_closed);
    xcb_disconnect(cb->c);
    cb->c = NULL;
}

void desktop_clipboard_close(struct desktop *d)
{
    if (d->clipboard)
        close_clipboard(d->clipboard, "the session ended");
}

static void lost(struct desktop_clipboard *cb)
{
    int e = xcb_connection_has_error(cb->c);
    /* A hang-up the poll saw before xcb did is the server closing it too. */
    char *why =
        e == XCB_CONN_ERROR || e == 0
            ? xasprintf("lost the connection to X display %s (the X server closed it)", cb->display)
            : xasprintf("lost the connection to X display %s (xcb error %d)", cb->display, e);
    log_warn("%s", why);
    close_clipboard(cb, why);
    free(why);
}

static void expect(struct desktop_clipboard *cb, unsigned int seq, enum reply_kind kind, int index)
{
    if (cb->n_pending == cb->cap_pending) {
        cb->cap_pending = cb->cap_pending ? cb->cap_pending * 2 : 16;
        cb->pending = xrealloc(cb->pending, (size_t)cb->cap_pending * sizeof *cb->pending);
    }
    cb->pending[cb->n_pending++] = (struct pending){seq, kind, index, cb->op_id};
}

static void readable(uv_poll_t *h, int status, int events)
{
    (void)events;
    struct desktop_clipboard *cb = h->data;
    if (status < 0) {
        lost(cb);
        return;
    }
    pump(cb);
}

static void timed_out(uv_timer_t *t);
static void start_next(struct desktop_clipboard *cb);

static struct desktop_clipboard *open_clipboard(struct desktop *d, char **err)
{
    int screen_no = 0;
    xcb_connection_t *c = xcb_connect(d->display, &screen_no);
    if (xcb_connection_has_error(c)) {
        xcb_disconnect(c);
        *err = xasprintf("cannot connect to X display %s", d->display);
        return NULL;
    }
    const xcb_setup_t *setup = xcb_get_setup(c);
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup);
    for (int i = 0; i < screen_no && it.rem; i++)
        xcb_screen_next(&it);
    struct desktop_clipboard *cb = xcalloc(1, sizeof *cb);
    cb->d = d;
    cb->app = d->app;
    cb->c = c;
    snprintf(cb->display, sizeof cb->display, "%s", d->display);
    /* Within the core request size, so xcb never needs BIG-REQUESTS (whose
     * set-up would wait for a reply). The protocol guarantees 4096 bytes. */
    uint32_t max_request = (uint32_t)setup->maximum_request_length * 4u;
    cb->piece = max_request - 1024 < MAX_PIECE ? max_request - 1024 : MAX_PIECE;

    /* An unmapped window: selections need one to own them and to receive
     * what owners send. */
    cb->win = xcb_generate_id(c);
    uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
    xcb_create_window(c, XCB_COPY_FROM_PARENT, cb->win, it.data->root, -10, -10, 1, 1, 0,
                      XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &mask);
    static const char title[] = "glovebox clipboard";
    xcb_change_property(c, XCB_PROP_MODE_REPLACE, cb->win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                        sizeof title - 1, title);
    for (int i = 0; i < A_COUNT; i++)
        expect(cb, xcb_intern_atom(c, 0, (uint16_t)strlen(atom_names[i]), atom_names[i]).sequence,
               R_ATOM, i);
    cb->atoms_left = A_COUNT;

    uv_timer_init(d->app->loop, &cb->timer);
    cb->timer.data = cb;
    cb->open_handles++;
    int r = uv_poll_init(d->app->loop, &cb->poll, xcb_get_file_descriptor(c));
    if (r < 0) {
        *err = xasprintf("cannot watch the X connection: %s", uv_strerror(r));
        uv_close((uv_handle_t *)&cb->timer, handle_closed);
        cb->d = NULL;
        xcb_disconnect(c);
        return NULL;
    }
    cb->poll.data = cb;
    cb->open_handles++;
    uv_poll_start(&cb->poll, UV_READABLE, readable);
    /* Calls wait for the atoms; a server that never names them fails them. */
    uv_timer_start(&cb->timer, timed_out, ANSWER_TIMEOUT_MS, 0);
    xcb_flush(c);
    log_debug("%s: clipboard connection open (window 0x%x)", d->display, cb->win);
    return cb;
}

/* ---------------------------------------------------------------------- */
/* Operations */

static int sel_of(const struct desktop_clipboard *cb, xcb_atom_t a)
{
    for (int s = 0; s < SEL_COUNT; s++)
        if (cb->sel_atom[s] == a)
            return s;
    return -1;
}

static void arm_timer(struct desktop_clipboard *cb)
{
    uv_timer_start(&cb->timer, timed_out, ANSWER_TIMEOUT_MS, 0);
}

/* The running operation has answered: on to the next. */
static void op_finished(struct desktop_clipboard *cb)
{
    op_free(cb->op);
    cb->op = NULL;
    cb->op_id++;
    uv_timer_stop(&cb->timer);
    start_next(cb);
}

static void op_fail(struct desktop_clipboard *cb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void op_fail(struct desktop_clipboard *cb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    struct op *op = cb->op;
    backend_call_fail(op->bc, "cannot %s the clipboard: %s", op->set ? "set" : "read", msg);
    free(msg);
    op_finished(cb);
}

/* Answer a get with text (UTF-8 already, NUL-free). */
static void answer_text(struct desktop_clipboard *cb, const char *s, size_t n, bool ours)
{
    struct op *op = cb->op;
    json_t *text = utf8_json_string(s, n);
    size_t bytes = json_string_length(text);
    json_t *data = json_pack("{s:s, s:s, s:o, s:I, s:b, s:b}", "session", op->bc->session->id,
                             "selection", sel_arg[op->sel], "text", text, "bytes",
                             (json_int_t)bytes, "empty", bytes == 0, "owner", ours);
    if (!ours && op->owner) {
        char win[16];
        snprintf(win, sizeof win, "0x%x", op->owner);
        json_object_set_new(data, "owner_window", json_string(win));
    }
    /* The mirror is the text itself: what a model asked for. */
    if (bytes == 0)
        backend_call_done(op->bc, data, "the %s is empty",
                          op->sel == SEL_PRIMARY ? "primary selection" : "clipboard");
    else
        backend_call_done(op->bc, data, "%s", json_string_value(json_object_get(data, "text")));
    op_finished(cb);
}

static void ask_owner(struct desktop_clipboard *cb)
{
    struct op *op = cb->op;
    /* Clear what an owner that answered too late may have left there. */
    xcb_delete_property(cb->c, cb->win, cb->atom[A_PROP]);
    xcb_convert_selection(cb->c, cb->win, cb->sel_atom[op->sel], op->target, cb->atom[A_PROP],
                          op->time);
    op->step = STEP_CONVERT;
    arm_timer(cb);
}

static void read_property(struct desktop_clipboard *cb)
{
    struct op *op = cb->op;
    uint32_t room = (uint32_t)((MAX_TEXT - op->received.len) / 4 + 1);
    expect(cb,
           xcb_get_property(cb->c, 1, cb->win, cb->atom[A_PROP], XCB_GET_PROPERTY_TYPE_ANY, 0, room)
               .sequence,
           R_PROPERTY, 0);
    op->reading = true;
    op->piece_ready = false;
}

static void begin(struct desktop_clipboard *cb)
{
    struct op *op = cb->op;
    if (!op->set && cb->own[op->sel].text) {
        const struct text *t = cb->own[op->sel].text;
        answer_text(cb, t->data, t->len, true);
        return;
    }
    /* ICCCM wants a real time for owning and asking, not CurrentTime: an
     * empty append to our own window comes back as PropertyNotify with it. */
    xcb_change_property(cb->c, XCB_PROP_MODE_APPEND, cb->win, cb->atom[A_STAMP], XCB_ATOM_INTEGER,
                        32, 0, NULL);
    op->step = STEP_STAMP;
    arm_timer(cb);
}

static void start_next(struct desktop_clipboard *cb)
{
    /* A get answered from memory finishes inside begin and starts the next
     * itself; the loop ends when one is left running or none waits. */
    while (!cb->op && cb->waiting && cb->atoms_left == 0 && cb->c) {
        struct op *op = cb->waiting;
        cb->waiting = op->next;
        cb->n_waiting--;
        op->next = NULL;
        cb->op = op;
        begin(cb);
    }
}

static void got_time(struct desktop_clipboard *cb, xcb_timestamp_t time)
{
    struct op *op = cb->op;
    op->time = time;
    xcb_atom_t sel = cb->sel_atom[op->sel];
    if (op->set)
        xcb_set_selection_owner(cb->c, cb->win, sel, time);
    /* Set: did the server make us the owner (an older time loses)? Get: is
     * there an owner to ask at all? */
    expect(cb, xcb_get_selection_owner(cb->c, sel).sequence, op->set ? R_OWNER_SET : R_OWNER_GET,
           0);
    op->step = STEP_OWNER;
}

static void owner_after_set(struct desktop_clipboard *cb, xcb_window_t owner)
{
    struct op *op = cb->op;
    if (owner != cb->win) {
        op_fail(cb, "the X server did not make glovebox the owner of %s (window 0x%x owns it)",
                sel_x_name[op->sel], owner);
        return;
    }
    text_unref(cb->own[op->sel].text);
    cb->own[op->sel].text = text_ref(op->text);
    cb->own[op->sel].since = op->time;
    json_t *data = json_pack("{s:s, s:s, s:I}", "session", op->bc->session->id, "selection",
                             sel_arg[op->sel], "bytes", (json_int_t)op->text->len);
    backend_call_done(op->bc, data, "%s holds %zu bytes of text from glovebox", sel_x_name[op->sel],
                      op->text->len);
    op_finished(cb);
}

/* The owner's answer is complete in op->received. */
static void received_all(struct desktop_clipboard *cb)
{
    struct op *op = cb->op;
    struct strbuf *in = &op->received;
    struct strbuf out;
    strbuf_init(&out);
    bool latin1 = op->type == XCB_ATOM_STRING;
    strbuf_reserve(&out, latin1 ? in->len * 2 : in->len);
    for (size_t i = 0; i < in->len; i++) {
        unsigned char ch = (unsigned char)in->data[i];
        /* Some programs end the text with a NUL; none belongs in it. */
        if (ch == 0)
            continue;
        if (latin1 && ch >= 0x80) {
            char two[2] = {(char)(0xC0 | ch >> 6), (char)(0x80 | (ch & 0x3F))};
            strbuf_append(&out, two, 2);
        } else {
            strbuf_putc(&out, (char)ch);
        }
    }
    answer_text(cb, out.data ? out.data : "", out.len, false);
    strbuf_finish(&out);
}

/* Types whose data glovebox reads as text. Owners answer with their own type
 * (xclip with what it was given), so asking for UTF8_STRING may bring a PNG. */
static bool text_type(const struct desktop_clipboard *cb, xcb_atom_t t)
{
    const xcb_atom_t *a = cb->atom;
    return t == XCB_ATOM_STRING || t == a[A_UTF8_STRING] || t == a[A_TEXT] || t == a[A_MIME_UTF8] ||
           t == a[A_MIME_TEXT];
}

static void got_type_name(struct desktop_clipboard *cb, xcb_get_atom_name_reply_t *r)
{
    struct op *op = cb->op;
    char name[64] = "data";
    int n = r ? xcb_get_atom_name_name_length(r) : 0;
    if (n > 0) {
        const char *s = xcb_get_atom_name_name(r);
        if (n >= (int)sizeof name)
            n = (int)sizeof name - 1;
        /* Atom names are the owner's: keep them printable ASCII. */
        for (int i = 0; i < n; i++)
            name[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
        name[n] = '\0';
    }
    op_fail(cb, "the owner of %s (window 0x%x) holds %s, not text", sel_x_name[op->sel], op->owner,
            name);
}

static void got_property(struct desktop_clipboard *cb, xcb_get_property_reply_t *r)
{
    struct op *op = cb->op;
    op->reading = false;
    if (!r) {
        op_fail(cb, "cannot read the answer of the owner of %s (window 0x%x)", sel_x_name[op->sel],
                op->owner);
        return;
    }
    if (r->bytes_after > 0) {
        op_fail(cb, "the text in %s is larger than %u MiB, the most glovebox takes",
                sel_x_name[op->sel], MAX_TEXT >> 20);
        return;
    }
    size_t n = (size_t)xcb_get_property_value_length(r) * (r->format / 8);
    const char *v = xcb_get_property_value(r);
    if (op->step == STEP_READ && r->type == cb->atom[A_INCR]) {
        uint32_t announced = 0;
        if (r->format == 32 && n >= 4)
            memcpy(&announced, v, 4);
        if (announced > MAX_TEXT) {
            op_fail(cb,
                    "the owner of %s (window 0x%x) offers %u bytes, more than the %u MiB "
                    "glovebox takes",
                    sel_x_name[op->sel], op->owner, announced, MAX_TEXT >> 20);
            return;
        }
        log_debug("window 0x%x sends %s in pieces (%u bytes announced)", op->owner,
                  sel_x_name[op->sel], announced);
        /* Deleting the property (the read did) asks for the first piece. */
        /* The announced size is a lower bound, and may be a lie: reserve
         * no more than a few MiB ahead of the data. */
        strbuf_reserve(&op->received, announced < (8u << 20) ? announced : (8u << 20));
        op->step = STEP_INCR;
        op->type = XCB_NONE;
        arm_timer(cb);
        if (op->piece_ready)
            read_property(cb);
        return;
    }
    if (n > 0 && !text_type(cb, r->type)) {
        /* Say what it holds instead (image/png, text/uri-list…), by name. */
        op->type = r->type;
        op->step = STEP_NAMING;
        expect(cb, xcb_get_atom_name(cb->c, r->type).sequence, R_TYPE_NAME, 0);
        return;
    }
    if (n > 0 && r->format != 8) {
        op_fail(cb, "the owner of %s (window 0x%x) answered with %u-bit data, not text",
                sel_x_name[op->sel], op->owner, r->format);
        return;
    }
    if (op->received.len + n > MAX_TEXT) {
        op_fail(cb, "the text in %s is larger than %u MiB, the most glovebox takes",
                sel_x_name[op->sel], MAX_TEXT >> 20);
        return;
    }
    if (op->type == XCB_NONE)
        op->type = r->type;
    strbuf_append(&op->received, v, n);
    if (op->step == STEP_READ || n == 0) {
        received_all(cb);
        return;
    }
    arm_timer(cb);
    if (op->piece_ready)
        read_property(cb);
}

static void got_reply(struct desktop_clipboard *cb, const struct pending *p, void *reply)
{
    if (p->kind == R_ATOM) {
        xcb_intern_atom_reply_t *r = reply;
        cb->atom[p->index] = r ? r->atom : XCB_NONE;
        if (--cb->atoms_left == 0) {
            cb->sel_atom[SEL_CLIPBOARD] = cb->atom[A_CLIPBOARD];
            cb->sel_atom[SEL_PRIMARY] = XCB_ATOM_PRIMARY;
            uv_timer_stop(&cb->timer);
            start_next(cb);
        }
        return;
    }
    /* For an operation that has since given up (timed out): nothing to do. */
    if (!cb->op || p->id != cb->op_id)
        return;
    if (p->kind == R_PROPERTY) {
        got_property(cb, reply);
        return;
    }
    if (p->kind == R_TYPE_NAME) {
        got_type_name(cb, reply);
        return;
    }
    xcb_get_selection_owner_reply_t *r = reply;
    if (!r) {
        op_fail(cb, "the X server refused GetSelectionOwner");
        return;
    }
    if (p->kind == R_OWNER_SET) {
        owner_after_set(cb, r->owner);
    } else if (r->owner == XCB_NONE || r->owner == cb->win) {
        /* Our own window without text of ours would be a set that failed
         * half-way: nothing to give either way. */
        cb->op->owner = XCB_NONE;
        answer_text(cb, "", 0, false);
    } else {
        cb->op->owner = r->owner;
        cb->op->target = cb->atom[A_UTF8_STRING];
        ask_owner(cb);
    }
}

static void timed_out(uv_timer_t *t)
{
    struct desktop_clipboard *cb = t->data;
    struct op *op = cb->op;
    if (!op) {
        if (cb->atoms_left > 0) {
            char *why = xasprintf("the X server on %s did not answer within %d s", cb->display,
                                  ANSWER_TIMEOUT_MS / 1000);
            close_clipboard(cb, why);
            free(why);
        }
        return;
    }
    const char *sel = sel_x_name[op->sel];
    if (op->step == STEP_STAMP || op->step == STEP_OWNER)
        op_fail(cb, "the X server on %s did not answer within %d s", cb->display,
                ANSWER_TIMEOUT_MS / 1000);
    else if (op->step == STEP_INCR)
        op_fail(cb,
                "the owner of %s (window 0x%x) stopped sending after %zu bytes (nothing for %d s)",
                sel, op->owner, op->received.len, ANSWER_TIMEOUT_MS / 1000);
    else
        op_fail(cb, "the owner of %s (window 0x%x) did not answer within %d s", sel, op->owner,
                ANSWER_TIMEOUT_MS / 1000);
    pump(cb);
}

/* ---------------------------------------------------------------------- */
/* Answering requests for what glovebox owns */

static void transfer_free(struct desktop_clipboard *cb, struct transfer *t)
{
    struct transfer **pp = &cb->transfers;
    while (*pp != t)
        pp = &(*pp)->next;
    *pp = t->next;
    bool more = false;
    for (struct transfer *o = cb->transfers; o; o = o->next)
        more |= o->requestor == t->requestor;
    if (!more && cb->c) {
        /* Stop hearing about the requestor's properties. */
        uint32_t none = XCB_EVENT_MASK_NO_EVENT;
        xcb_change_window_attributes(cb->c, t->requestor, XCB_CW_EVENT_MASK, &none);
    }
    text_unref(t->text);
    free(t);
}

static void prune_transfers(struct desktop_clipboard *cb)
{
    uint64_t now = uv_now(cb->app->loop);
    for (struct transfer *t = cb->transfers, *next; t; t = next) {
        next = t->next;
        if (now - t->last_ms > TRANSFER_IDLE_MS) {
            log_debug("window 0x%x stopped taking pieces after %zu bytes", t->requestor, t->sent);
            transfer_free(cb, t);
        }
    }
}

static void send_piece(struct desktop_clipboard *cb, struct transfer *t)
{
    size_t n = t->text->len - t->sent;
    if (n > cb->piece)
        n = cb->piece;
    xcb_change_property(cb->c, XCB_PROP_MODE_REPLACE, t->requestor, t->property, t->type, 8,
                        (uint32_t)n, t->text->data + t->sent);
    t->sent += n;
    t->last_ms = uv_now(cb->app->loop);
    /* The empty piece was the last. */
    if (n == 0)
        transfer_free(cb, t);
}

/* Put text (stolen) on the requestor's property, whole or announced as INCR. */
static bool put_text(struct desktop_clipboard *cb, const xcb_selection_request_event_t *e,
                     xcb_atom_t property, xcb_atom_t type, struct text *t)
{
    if (t->len <= cb->piece) {
        xcb_change_property(cb->c, XCB_PROP_MODE_REPLACE, e->requestor, property, type, 8,
                            (uint32_t)t->len, t->data);
        text_unref(t);
        return true;
    }
    prune_transfers(cb);
    /* A requestor asking again into the same property has given up on the
     * earlier transfer. */
    for (struct transfer *o = cb->transfers; o; o = o->next) {
        if (o->requestor == e->requestor && o->property == property) {
            transfer_free(cb, o);
            break;
        }
    }
    int n = 0;
    for (struct transfer *o = cb->transfers; o; o = o->next)
        n++;
    if (n >= MAX_TRANSFERS) {
        log_warn("refusing window 0x%x: %d transfers in progress", e->requestor, n);
        text_unref(t);
        return false;
    }
    struct transfer *tr = xcalloc(1, sizeof *tr);
    *tr =
        (struct transfer){e->requestor, property, type, t, 0, uv_now(cb->app->loop), cb->transfers};
    cb->transfers = tr;
    log_debug("giving %zu bytes to window 0x%x in pieces of %u", t->len, e->requestor, cb->piece);
    /* Before the INCR property, so its deletion is not missed. */
    uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
    xcb_change_window_attributes(cb->c, e->requestor, XCB_CW_EVENT_MASK, &mask);
    uint32_t size = (uint32_t)t->len;
    xcb_change_property(cb->c, XCB_PROP_MODE_REPLACE, e->requestor, property, cb->atom[A_INCR], 32,
                        1, &size);
    return true;
}

/* Convert the owned text to e->target on property; false to refuse. */
static bool convert(struct desktop_clipboard *cb, const xcb_selection_request_event_t *e, int s,
                    xcb_atom_t property)
{
    struct text *t = cb->own[s].text;
    const xcb_atom_t *a = cb->atom;
    xcb_atom_t target = e->target;
    if (target == a[A_TARGETS]) {
        xcb_atom_t list[8];
        int n = 0;
        list[n++] = a[A_TARGETS];
        list[n++] = a[A_TIMESTAMP];
        list[n++] = a[A_UTF8_STRING];
        list[n++] = a[A_MIME_UTF8];
        list[n++] = a[A_TEXT];
        if (t->latin1)
            list[n++] = XCB_ATOM_STRING;
        if (t->ascii)
            list[n++] = a[A_MIME_TEXT];
        xcb_change_property(cb->c, XCB_PROP_MODE_REPLACE, e->requestor, property, XCB_ATOM_ATOM, 32,
                            (uint32_t)n, list);
        return true;
    }
    if (target == a[A_TIMESTAMP]) {
        xcb_change_property(cb->c, XCB_PROP_MODE_REPLACE, e->requestor, property, XCB_ATOM_INTEGER,
                            32, 1, &cb->own[s].since);
        return true;
    }
    if (target == a[A_UTF8_STRING] || target == a[A_TEXT])
        return put_text(cb, e, property, a[A_UTF8_STRING], text_ref(t));
    if (target == a[A_MIME_UTF8])
        return put_text(cb, e, property, target, text_ref(t));
    /* STRING is Latin-1: text that does not fit is refused rather than
     * mangled, and the requestor can ask for UTF8_STRING. */
    if (target == XCB_ATOM_STRING && t->latin1)
        return put_text(cb, e, property, XCB_ATOM_STRING, text_latin1(t));
    if (target == a[A_MIME_TEXT] && t->ascii)
        return put_text(cb, e, property, target, text_ref(t));
    /* MULTIPLE and everything else: refused (property None). */
    return false;
}

static void selection_request(struct desktop_clipboard *cb, const xcb_selection_request_event_t *e)
{
    /* Obsolete requestors give no property: the target's name is used. */
    xcb_atom_t property = e->property != XCB_NONE ? e->property : e->target;
    int s = sel_of(cb, e->selection);
    bool ok = s >= 0 && cb->own[s].text && e->owner == cb->win &&
              (e->time == XCB_CURRENT_TIME || e->time >= cb->own[s].since) &&
              convert(cb, e, s, property);
    union {
        xcb_selection_notify_event_t ev;
        char bytes[32];
    } n;
    memset(&n, 0, sizeof n);
    n.ev.response_type = XCB_SELECTION_NOTIFY;
    n.ev.time = e->time;
    n.ev.requestor = e->requestor;
    n.ev.selection = e->selection;
    n.ev.target = e->target;
    n.ev.property = ok ? property : XCB_NONE;
    xcb_send_event(cb->c, 0, e->requestor, XCB_EVENT_MASK_NO_EVENT, n.bytes);
}

/* ---------------------------------------------------------------------- */
/* Events */

static void property_notify(struct desktop_clipboard *cb, const xcb_property_notify_event_t *e)
{
    struct op *op = cb->op;
    if (e->window == cb->win) {
        if (!op || e->state != XCB_PROPERTY_NEW_VALUE)
            return;
        if (e->atom == cb->atom[A_STAMP] && op->step == STEP_STAMP) {
            got_time(cb, e->time);
        } else if (e->atom == cb->atom[A_PROP] &&
                   (op->step == STEP_READ || op->step == STEP_INCR)) {
            /* The next piece. Owners write it only after our read deleted
             * the last, but its event can be here before that read's reply. */
            if (op->reading)
                op->piece_ready = true;
            else if (op->step == STEP_INCR)
                read_property(cb);
        }
        return;
    }
    if (e->state != XCB_PROPERTY_DELETE)
        return;
    for (struct transfer *t = cb->transfers; t; t = t->next) {
        if (t->requestor == e->window && t->property == e->atom) {
            send_piece(cb, t);
            return;
        }
    }
}

static void x_error(struct desktop_clipboard *cb, const xcb_generic_error_t *e)
{
    /* Requestors may vanish mid-transfer: BadWindow on their window. */
    if (e->error_code == XCB_WINDOW) {
        uint32_t bad = ((const xcb_window_error_t *)e)->bad_value;
        for (struct transfer *t = cb->transfers, *next; t; t = next) {
            next = t->next;
            if (t->requestor == bad)
                transfer_free(cb, t);
        }
    }
    log_debug("X error %d (request %d.%d)", e->error_code, e->major_code, e->minor_code);
}

static void handle_event(struct desktop_clipboard *cb, xcb_generic_event_t *ev)
{
    switch (ev->response_type & 0x7f) {
    case 0:
        x_error(cb, (xcb_generic_error_t *)ev);
        break;
    case XCB_PROPERTY_NOTIFY:
        property_notify(cb, (xcb_property_notify_event_t *)ev);
        break;
    case XCB_SELECTION_REQUEST:
        selection_request(cb, (xcb_selection_request_event_t *)ev);
        break;
    case XCB_SELECTION_CLEAR: {
        /* Another program copied: what glovebox held is no longer the clipboard. */
        int s = sel_of(cb, ((xcb_selection_clear_event_t *)ev)->selection);
        if (s >= 0) {
            text_unref(cb->own[s].text);
            cb->own[s].text = NULL;
        }
        break;
    }
    case XCB_SELECTION_NOTIFY: {
        const xcb_selection_notify_event_t *e = (xcb_selection_notify_event_t *)ev;
        struct op *op = cb->op;
        if (!op || op->step != STEP_CONVERT || e->requestor != cb->win ||
            e->selection != cb->sel_atom[op->sel] || e->target != op->target)
            break;
        if (e->property != XCB_NONE) {
            op->step = STEP_READ;
            read_property(cb);
        } else if (op->target == cb->atom[A_UTF8_STRING]) {
            op->target = XCB_ATOM_STRING;
            ask_owner(cb);
        } else {
            op_fail(cb,
                    "the owner of %s (window 0x%x) has no text to give (it refused UTF8_STRING "
                    "and STRING; it may hold an image or files)",
                    sel_x_name[op->sel], op->owner);
        }
        break;
    }
    default:
        break;
    }
}

static bool take_replies(struct desktop_clipboard *cb)
{
    bool progress = false;
    for (int i = 0; i < cb->n_pending && cb->c;) {
        void *reply = NULL;
        xcb_generic_error_t *error = NULL;
        if (!xcb_poll_for_reply(cb->c, cb->pending[i].seq, &reply, &error)) {
            i++;
            continue;
        }
        struct pending p = cb->pending[i];
        memmove(&cb->pending[i], &cb->pending[i + 1],
                (size_t)(cb->n_pending - i - 1) * sizeof cb->pending[0]);
        cb->n_pending--;
        if (error)
            log_debug("X error %d for request %u", error->error_code, p.seq);
        got_reply(cb, &p, reply);
        free(reply);
        free(error);
        progress = true;
    }
    return progress;
}

/* Handle everything that has arrived, send what that produced, and repeat
 * until quiet: xcb may read while it writes, and what it read then would
 * not wake uv_poll again. */
static void pump(struct desktop_clipboard *cb)
{
    for (;;) {
        if (!cb->c)
            return;
        bool progress = false;
        xcb_generic_event_t *ev;
        while (cb->c && (ev = xcb_poll_for_event(cb->c))) {
            handle_event(cb, ev);
            free(ev);
            progress = true;
        }
        if (!cb->c)
            return;
        progress |= take_replies(cb);
        if (!cb->c)
            return;
        if (xcb_flush(cb->c) <= 0 || xcb_connection_has_error(cb->c)) {
            lost(cb);
            return;
        }
        if (!progress)
            return;
    }
}

/* The client gave up: a waiting call leaves the queue, a running read stops
 * (the calls behind it need not wait for a slow owner). A running set
 * finishes: the X server may already have made glovebox the owner. */
static void cancel(struct backend_call *bc)
{
    struct op *op = bc->backend_data;
    struct desktop_clipboard *cb = op->cb;
    if (cb->op == op) {
        if (!op->set) {
            op_fail(cb, "cancelled");
            pump(cb);
        }
        return;
    }
    struct op **pp = &cb->waiting;
    while (*pp && *pp != op)
        pp = &(*pp)->next;
    if (!*pp)
        return;
    *pp = op->next;
    cb->n_waiting--;
    backend_call_fail(bc, "cannot %s the clipboard: cancelled", op->set ? "set" : "read");
    op_free(op);
}

static void enqueue(struct backend_call *bc, bool set)
{
    struct desktop *d = desktop_of(bc->session);
    const char *verb = set ? "set" : "read";
    struct text *text = NULL;
    if (set) {
        const json_t *j = json_object_get(bc->args, "text");
        size_t n = json_string_length(j);
        if (n > MAX_TEXT) {
            backend_call_fail(bc, "cannot set the clipboard: the text is %zu bytes; at most %u MiB",
                              n, MAX_TEXT >> 20);
            return;
        }
        text = text_new(json_string_value(j), n);
    }
    if (!d->clipboard) {
        char *err = NULL;
        d->clipboard = open_clipboard(d, &err);
        if (!d->clipboard) {
            backend_call_fail(bc, "cannot %s the clipboard: %s", verb, err);
            free(err);
            text_unref(text);
            return;
        }
    }
    struct desktop_clipboard *cb = d->clipboard;
    if (cb->n_waiting >= MAX_WAITING) {
        backend_call_fail(bc,
                          "cannot %s the clipboard: %d clipboard calls are already waiting on "
                          "session %s; try again when they have answered",
                          verb, cb->n_waiting, bc->session->id);
        text_unref(text);
        return;
    }
    struct op *op = xcalloc(1, sizeof *op);
    op->bc = bc;
    op->cb = cb;
    bc->cancel = cancel;
    bc->backend_data = op;
    op->set = set;
    op->sel = strcmp(args_string(bc->args, "selection", "clipboard"), "primary") == 0
                  ? SEL_PRIMARY
                  : SEL_CLIPBOARD;
    op->text = text;
    strbuf_init(&op->received);
    struct op **pp = &cb->waiting;
    while (*pp)
        pp = &(*pp)->next;
    *pp = op;
    cb->n_waiting++;
    start_next(cb);
    pump(cb);
}

void desktop_clipboard_get_op(struct backend_call *bc)
{
    enqueue(bc, false);
}

void desktop_clipboard_set_op(struct backend_call *bc)
{
    enqueue(bc, true);
}
