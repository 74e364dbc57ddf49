/* Answering other programs' requests for a selection glovebox owns: TARGETS,
 * TIMESTAMP and the text targets, whole or — when larger than one request
 * may carry — in pieces (ICCCM INCR), each written when the requestor
 * deleted the last. */
#define LOG_MODULE "clipboard"
#include "backend/desktop/clipboard_internal.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

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
    clip_text_unref(t->text);
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
        clip_text_unref(t);
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
        clip_text_unref(t);
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
        return put_text(cb, e, property, a[A_UTF8_STRING], clip_text_ref(t));
    if (target == a[A_MIME_UTF8])
        return put_text(cb, e, property, target, clip_text_ref(t));
    /* STRING is Latin-1: text that does not fit is refused rather than
     * mangled, and the requestor can ask for UTF8_STRING. */
    if (target == XCB_ATOM_STRING && t->latin1)
        return put_text(cb, e, property, XCB_ATOM_STRING, clip_text_latin1(t));
    if (target == a[A_MIME_TEXT] && t->ascii)
        return put_text(cb, e, property, target, clip_text_ref(t));
    /* MULTIPLE and everything else: refused (property None). */
    return false;
}

void clip_selection_request(struct desktop_clipboard *cb, const xcb_selection_request_event_t *e)
{
    /* Obsolete requestors give no property: the target's name is used. */
    xcb_atom_t property = e->property != XCB_NONE ? e->property : e->target;
    int s = clip_sel_of(cb, e->selection);
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

void clip_piece_taken(struct desktop_clipboard *cb, xcb_window_t window, xcb_atom_t property)
{
    for (struct transfer *t = cb->transfers; t; t = t->next) {
        if (t->requestor == window && t->property == property) {
            send_piece(cb, t);
            return;
        }
    }
}

void clip_forget_requestor(struct desktop_clipboard *cb, xcb_window_t window)
{
    for (struct transfer *t = cb->transfers, *next; t; t = next) {
        next = t->next;
        if (t->requestor == window)
            transfer_free(cb, t);
    }
}

void clip_drop_transfers(struct desktop_clipboard *cb)
{
    while (cb->transfers) {
        struct transfer *t = cb->transfers;
        cb->transfers = t->next;
        clip_text_unref(t->text);
        free(t);
    }
}
