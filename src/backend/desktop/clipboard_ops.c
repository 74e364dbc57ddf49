/* Running one clipboard call at a time: a set makes glovebox the owner of
 * the selection (with the server's time, as ICCCM asks); a get asks the
 * owner for UTF8_STRING, then STRING, and reads the answer, whole or in
 * pieces (INCR), naming the type when it is not text. Each step waits for
 * an event or a reply under a timer, never blocking the loop. */
#define LOG_MODULE "clipboard"
#include "backend/desktop/clipboard_internal.h"
#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void arm_timer(struct desktop_clipboard *cb)
{
    uv_timer_start(&cb->timer, clip_timed_out, ANSWER_TIMEOUT_MS, 0);
}

void clip_op_free(struct op *op)
{
    clip_text_unref(op->text);
    strbuf_finish(&op->received);
    free(op);
}

/* The running operation has answered: on to the next. */
static void op_finished(struct desktop_clipboard *cb)
{
    clip_op_free(cb->op);
    cb->op = NULL;
    cb->op_id++;
    uv_timer_stop(&cb->timer);
    clip_start_next(cb);
}

static void op_fail(struct desktop_clipboard *cb, enum error_code code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void op_fail(struct desktop_clipboard *cb, enum error_code code, const char *fmt, va_list ap)
{
    char *msg = xvasprintf(fmt, ap);
    struct op *op = cb->op;
    backend_call_fail_code(op->bc, code, "cannot %s the clipboard: %s", op->set ? "set" : "read",
                           msg);
    free(msg);
    op_finished(cb);
}

void clip_op_fail(struct desktop_clipboard *cb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    op_fail(cb, ERROR_TOOL_FAILED, fmt, ap);
    va_end(ap);
}

void clip_op_fail_code(struct desktop_clipboard *cb, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    op_fail(cb, code, fmt, ap);
    va_end(ap);
}

/* Answer a get with text (UTF-8 already, NUL-free). */
static void answer_text(struct desktop_clipboard *cb, const char *s, size_t n, bool ours)
{
    struct op *op = cb->op;
    json_t *text = utf8_json_string(s, n);
    size_t bytes = json_string_length(text);
    json_t *data = json_pack("{s:s, s:s, s:o, s:I, s:b, s:b}", "session", op->bc->session->id,
                             "selection", clip_sel_arg[op->sel], "text", text, "bytes",
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

void clip_ask_owner(struct desktop_clipboard *cb)
{
    struct op *op = cb->op;
    /* Clear what an owner that answered too late may have left there. */
    xcb_delete_property(cb->c, cb->win, cb->atom[A_PROP]);
    xcb_convert_selection(cb->c, cb->win, cb->sel_atom[op->sel], op->target, cb->atom[A_PROP],
                          op->time);
    op->step = STEP_CONVERT;
    arm_timer(cb);
}

void clip_read_property(struct desktop_clipboard *cb)
{
    struct op *op = cb->op;
    uint32_t room = (uint32_t)((MAX_TEXT - op->received.len) / 4 + 1);
    clip_expect(
        cb,
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

void clip_start_next(struct desktop_clipboard *cb)
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

void clip_got_time(struct desktop_clipboard *cb, xcb_timestamp_t time)
{
    struct op *op = cb->op;
    op->time = time;
    xcb_atom_t sel = cb->sel_atom[op->sel];
    if (op->set)
        xcb_set_selection_owner(cb->c, cb->win, sel, time);
    /* Set: did the server make us the owner (an older time loses)? Get: is
     * there an owner to ask at all? */
    clip_expect(cb, xcb_get_selection_owner(cb->c, sel).sequence,
                op->set ? R_OWNER_SET : R_OWNER_GET, 0);
    op->step = STEP_OWNER;
}

static void owner_after_set(struct desktop_clipboard *cb, xcb_window_t owner)
{
    struct op *op = cb->op;
    if (owner != cb->win) {
        clip_op_fail(cb, "the X server did not make glovebox the owner of %s (window 0x%x owns it)",
                     clip_sel_x_name[op->sel], owner);
        return;
    }
    clip_text_unref(cb->own[op->sel].text);
    cb->own[op->sel].text = clip_text_ref(op->text);
    cb->own[op->sel].since = op->time;
    json_t *data = json_pack("{s:s, s:s, s:I}", "session", op->bc->session->id, "selection",
                             clip_sel_arg[op->sel], "bytes", (json_int_t)op->text->len);
    backend_call_done(op->bc, data, "%s holds %zu bytes of text from glovebox",
                      clip_sel_x_name[op->sel], op->text->len);
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
    clip_op_fail(cb, "the owner of %s (window 0x%x) holds %s, not text", clip_sel_x_name[op->sel],
                 op->owner, name);
}

static void got_property(struct desktop_clipboard *cb, xcb_get_property_reply_t *r)
{
    struct op *op = cb->op;
    op->reading = false;
    if (!r) {
        clip_op_fail(cb, "cannot read the answer of the owner of %s (window 0x%x)",
                     clip_sel_x_name[op->sel], op->owner);
        return;
    }
    if (r->bytes_after > 0) {
        clip_op_fail(cb, "the text in %s is larger than %u MiB, the most glovebox takes",
                     clip_sel_x_name[op->sel], MAX_TEXT >> 20);
        return;
    }
    /* Bytes already, whatever the format (8, 16 or 32 bits per item). */
    size_t n = (size_t)xcb_get_property_value_length(r);
    const char *v = xcb_get_property_value(r);
    if (op->step == STEP_READ && r->type == cb->atom[A_INCR]) {
        uint32_t announced = 0;
        if (r->format == 32 && n >= 4)
            memcpy(&announced, v, 4);
        if (announced > MAX_TEXT) {
            clip_op_fail(cb,
                         "the owner of %s (window 0x%x) offers %u bytes, more than the %u MiB "
                         "glovebox takes",
                         clip_sel_x_name[op->sel], op->owner, announced, MAX_TEXT >> 20);
            return;
        }
        log_debug("window 0x%x sends %s in pieces (%u bytes announced)", op->owner,
                  clip_sel_x_name[op->sel], announced);
        /* Deleting the property (the read did) asks for the first piece. */
        /* The announced size is a lower bound, and may be a lie: reserve
         * no more than a few MiB ahead of the data. */
        strbuf_reserve(&op->received, announced < (8u << 20) ? announced : (8u << 20));
        op->step = STEP_INCR;
        op->type = XCB_NONE;
        arm_timer(cb);
        if (op->piece_ready)
            clip_read_property(cb);
        return;
    }
    if (n > 0 && !text_type(cb, r->type)) {
        /* Say what it holds instead (image/png, text/uri-list…), by name. */
        op->type = r->type;
        op->step = STEP_NAMING;
        clip_expect(cb, xcb_get_atom_name(cb->c, r->type).sequence, R_TYPE_NAME, 0);
        return;
    }
    if (n > 0 && r->format != 8) {
        clip_op_fail(cb, "the owner of %s (window 0x%x) answered with %u-bit data, not text",
                     clip_sel_x_name[op->sel], op->owner, r->format);
        return;
    }
    if (op->received.len + n > MAX_TEXT) {
        clip_op_fail(cb, "the text in %s is larger than %u MiB, the most glovebox takes",
                     clip_sel_x_name[op->sel], MAX_TEXT >> 20);
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
        clip_read_property(cb);
}

void clip_got_reply(struct desktop_clipboard *cb, const struct pending *p, void *reply)
{
    if (p->kind == R_ATOM) {
        xcb_intern_atom_reply_t *r = reply;
        cb->atom[p->index] = r ? r->atom : XCB_NONE;
        if (--cb->atoms_left == 0) {
            cb->sel_atom[SEL_CLIPBOARD] = cb->atom[A_CLIPBOARD];
            cb->sel_atom[SEL_PRIMARY] = XCB_ATOM_PRIMARY;
            uv_timer_stop(&cb->timer);
            clip_start_next(cb);
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
        clip_op_fail(cb, "the X server refused GetSelectionOwner");
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
        clip_ask_owner(cb);
    }
}

void clip_timed_out(uv_timer_t *t)
{
    struct desktop_clipboard *cb = t->data;
    struct op *op = cb->op;
    if (!op) {
        if (cb->atoms_left > 0) {
            char *why = xasprintf("the X server on %s did not answer within %d s", cb->display,
                                  ANSWER_TIMEOUT_MS / 1000);
            clip_close(cb, why);
            free(why);
        }
        return;
    }
    const char *sel = clip_sel_x_name[op->sel];
    if (op->step == STEP_STAMP || op->step == STEP_OWNER)
        clip_op_fail_code(cb, ERROR_TIMEOUT, "the X server on %s did not answer within %d s",
                          cb->display, ANSWER_TIMEOUT_MS / 1000);
    else if (op->step == STEP_INCR)
        clip_op_fail_code(
            cb, ERROR_TIMEOUT,
            "the owner of %s (window 0x%x) stopped sending after %zu bytes (nothing for %d s)", sel,
            op->owner, op->received.len, ANSWER_TIMEOUT_MS / 1000);
    else
        clip_op_fail_code(cb, ERROR_TIMEOUT,
                          "the owner of %s (window 0x%x) did not answer within %d s", sel,
                          op->owner, ANSWER_TIMEOUT_MS / 1000);
    clip_pump(cb);
}
