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
 * a get after a set sees the text set. This file keeps the connection, its
 * events and the queue; clipboard_ops.c runs the calls, clipboard_serve.c
 * answers other programs. */
#define LOG_MODULE "clipboard"
#include "backend/desktop/clipboard_internal.h"
#include "core/app.h"
#include "core/args.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcbext.h> /* xcb_poll_for_reply */

const char *const clip_sel_arg[SEL_COUNT] = {"clipboard", "primary"};
const char *const clip_sel_x_name[SEL_COUNT] = {"CLIPBOARD", "PRIMARY"};

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

/* ---------------------------------------------------------------------- */
/* The connection */

static void handle_closed(uv_handle_t *h)
{
    struct desktop_clipboard *cb = h->data;
    if (--cb->open_handles == 0) {
        free(cb->pending);
        free(cb);
    }
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
        clip_op_free(list);
        list = next;
    }
}

void clip_close(struct desktop_clipboard *cb, const char *why)
{
    if (!cb->d)
        return;
    cb->d->clipboard = NULL;
    cb->d = NULL;
    fail_all(cb, why);
    clip_drop_transfers(cb);
    for (int s = 0; s < SEL_COUNT; s++) {
        clip_text_unref(cb->own[s].text);
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
        clip_close(d->clipboard, "the session ended");
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
    clip_close(cb, why);
    free(why);
}

void clip_expect(struct desktop_clipboard *cb, unsigned int seq, enum reply_kind kind, int index)
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
    clip_pump(cb);
}

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
        clip_expect(cb,
                    xcb_intern_atom(c, 0, (uint16_t)strlen(atom_names[i]), atom_names[i]).sequence,
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
    uv_timer_start(&cb->timer, clip_timed_out, ANSWER_TIMEOUT_MS, 0);
    xcb_flush(c);
    log_debug("%s: clipboard connection open (window 0x%x)", d->display, cb->win);
    return cb;
}

int clip_sel_of(const struct desktop_clipboard *cb, xcb_atom_t a)
{
    for (int s = 0; s < SEL_COUNT; s++)
        if (cb->sel_atom[s] == a)
            return s;
    return -1;
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
            clip_got_time(cb, e->time);
        } else if (e->atom == cb->atom[A_PROP] &&
                   (op->step == STEP_READ || op->step == STEP_INCR)) {
            /* The next piece. Owners write it only after our read deleted
             * the last, but its event can be here before that read's reply. */
            if (op->reading)
                op->piece_ready = true;
            else if (op->step == STEP_INCR)
                clip_read_property(cb);
        }
        return;
    }
    if (e->state == XCB_PROPERTY_DELETE)
        clip_piece_taken(cb, e->window, e->atom);
}

static void x_error(struct desktop_clipboard *cb, const xcb_generic_error_t *e)
{
    /* Requestors may vanish mid-transfer: BadWindow on their window. */
    if (e->error_code == XCB_WINDOW) {
        clip_forget_requestor(cb, ((const xcb_window_error_t *)e)->bad_value);
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
        clip_selection_request(cb, (xcb_selection_request_event_t *)ev);
        break;
    case XCB_SELECTION_CLEAR: {
        /* Another program copied: what glovebox held is no longer the clipboard. */
        int s = clip_sel_of(cb, ((xcb_selection_clear_event_t *)ev)->selection);
        if (s >= 0) {
            clip_text_unref(cb->own[s].text);
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
            clip_read_property(cb);
        } else if (op->target == cb->atom[A_UTF8_STRING]) {
            op->target = XCB_ATOM_STRING;
            clip_ask_owner(cb);
        } else {
            clip_op_fail(
                cb,
                "the owner of %s (window 0x%x) has no text to give (it refused UTF8_STRING "
                "and STRING; it may hold an image or files)",
                clip_sel_x_name[op->sel], op->owner);
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
        clip_got_reply(cb, &p, reply);
        free(reply);
        free(error);
        progress = true;
    }
    return progress;
}

/* Handle everything that has arrived, send what that produced, and repeat
 * until quiet: xcb may read while it writes, and what it read then would
 * not wake uv_poll again. */
void clip_pump(struct desktop_clipboard *cb)
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

/* ---------------------------------------------------------------------- */
/* The queue of calls */

/* The client gave up: a waiting call leaves the queue, a running read stops
 * (the calls behind it need not wait for a slow owner). A running set
 * finishes: the X server may already have made glovebox the owner. */
static void cancel(struct backend_call *bc)
{
    struct op *op = bc->backend_data;
    struct desktop_clipboard *cb = op->cb;
    if (cb->op == op) {
        if (!op->set) {
            clip_op_fail(cb, "cancelled");
            clip_pump(cb);
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
    clip_op_free(op);
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
            backend_call_fail_code(
                bc, ERROR_INVALID_ARGUMENT,
                "cannot set the clipboard: the text is %zu bytes; at most %u MiB", n,
                MAX_TEXT >> 20);
            return;
        }
        text = clip_text_new(json_string_value(j), n);
    }
    if (!d->clipboard) {
        char *err = NULL;
        d->clipboard = open_clipboard(d, &err);
        if (!d->clipboard) {
            backend_call_fail_code(bc, ERROR_DEVICE_UNAVAILABLE, "cannot %s the clipboard: %s",
                                   verb, err);
            free(err);
            clip_text_unref(text);
            return;
        }
    }
    struct desktop_clipboard *cb = d->clipboard;
    if (cb->n_waiting >= MAX_WAITING) {
        backend_call_fail_code(bc, ERROR_DENIED,
                               "cannot %s the clipboard: %d clipboard calls are already waiting on "
                               "session %s; try again when they have answered",
                               verb, cb->n_waiting, bc->session->id);
        clip_text_unref(text);
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
    clip_start_next(cb);
    clip_pump(cb);
}

void desktop_clipboard_get_op(struct backend_call *bc)
{
    enqueue(bc, false);
}

void desktop_clipboard_set_op(struct backend_call *bc)
{
    enqueue(bc, true);
}
