/* A desktop's screen changes as they happen, for computer's wait for the
 * first frame after an action (backend.h watch_changes). An X connection of
 * glovebox's own holds a DAMAGE object on the root window (which covers
 * every window drawn on it) at the "non-empty" level: the server sends one
 * event when the damaged region stops being empty, and another only after
 * it has been emptied again (DamageSubtract). So while someone listens each
 * event is answered with a subtract, and while nobody listens none is: an
 * idle object costs the X server nothing and the loop no wake-ups.
 *
 * "After the listener was added" is told by the sequence numbers the
 * server stamps on events (the last request of this connection it had
 * processed): adding a listener empties the region, and an event numbered
 * before that subtract (the listener's since) is damage from before. */
#define LOG_MODULE "desktop"
#include "backend/desktop/internal.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <xcb/damage.h>
#include <xcb/xcb.h>

struct desktop_damage {
    struct desktop *d; /* NULL once closing */
    xcb_connection_t *c;
    xcb_damage_damage_t damage;
    uint8_t first_event; /* DAMAGE's event base */
    uv_poll_t poll;
    bool poll_open;
    bool failed; /* no connection or no DAMAGE: never tried again */
    struct backend_change_watch *watchers;
};

static void poll_closed(uv_handle_t *h)
{
    struct desktop_damage *dd = h->data;
    if (dd->c)
        xcb_disconnect(dd->c);
    free(dd);
}

static uint16_t subtract(struct desktop_damage *dd)
{
    xcb_void_cookie_t ck = xcb_damage_subtract(dd->c, dd->damage, XCB_NONE, XCB_NONE);
    xcb_flush(dd->c);
    return (uint16_t)ck.sequence;
}

/* Reads the events that have come and tells each listener of those after
 * it began. */
static void drain(struct desktop_damage *dd)
{
    bool any = false;
    uint16_t last = 0;
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(dd->c))) {
        if ((ev->response_type & 0x7f) == dd->first_event + XCB_DAMAGE_NOTIFY) {
            any = true;
            last = ev->sequence;
        }
        free(ev);
    }
    if (xcb_connection_has_error(dd->c)) {
        log_debug("%s: the damage watch lost its X connection", dd->d->display);
        dd->failed = true;
        uv_poll_stop(&dd->poll);
        return;
    }
    if (!any || !dd->watchers)
        return;
    /* Emptied again so that the next change is told too. */
    subtract(dd);
    for (struct backend_change_watch *w = dd->watchers; w; w = w->next)
        /* At or after the listener's subtract (mod 2^16, as the server
         * counts). */
        if ((uint16_t)(last - (uint16_t)w->since) < 0x8000)
            w->changed(w);
}

static void readable(uv_poll_t *p, int status, int events)
{
    (void)events;
    struct desktop_damage *dd = p->data;
    if (status < 0) {
        dd->failed = true;
        uv_poll_stop(p);
        return;
    }
    drain(dd);
}

static struct desktop_damage *open_damage(struct desktop *d)
{
    struct desktop_damage *dd = xcalloc(1, sizeof *dd);
    dd->d = d;
    int screen_no = 0;
    /* A local X server answers in well under a millisecond; once per
     * desktop. */
    dd->c = xcb_connect(d->display, &screen_no);
    const xcb_query_extension_reply_t *ext =
        xcb_connection_has_error(dd->c) ? NULL : xcb_get_extension_data(dd->c, &xcb_damage_id);
    xcb_damage_query_version_reply_t *ver =
        ext && ext->present
            ? xcb_damage_query_version_reply(dd->c, xcb_damage_query_version(dd->c, 1, 1), NULL)
            : NULL;
    if (!ver) {
        log_info("%s: X display %s has no DAMAGE extension: computer actions wait a fixed time",
                 d->session->id, d->display);
        dd->failed = true;
        return dd;
    }
    free(ver);
    dd->first_event = ext->first_event;
    const xcb_setup_t *setup = xcb_get_setup(dd->c);
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup);
    for (int i = 0; i < screen_no && it.rem; i++)
        xcb_screen_next(&it);
    dd->damage = xcb_generate_id(dd->c);
    xcb_damage_create(dd->c, dd->damage, it.data->root, XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY);
    xcb_flush(dd->c);
    if (uv_poll_init(d->app->loop, &dd->poll, xcb_get_file_descriptor(dd->c)) < 0) {
        dd->failed = true;
        return dd;
    }
    dd->poll.data = dd;
    dd->poll_open = true;
    uv_poll_start(&dd->poll, UV_READABLE, readable);
    return dd;
}

bool desktop_watch_changes(struct session *s, struct backend_change_watch *w, bool on)
{
    struct desktop *d = desktop_of(s);
    if (!on) {
        if (d && d->damage)
            backend_changes_remove(&d->damage->watchers, w);
        return true;
    }
    if (!d || d->stopping)
        return false;
    if (!d->damage)
        d->damage = open_damage(d);
    struct desktop_damage *dd = d->damage;
    if (dd->failed)
        return false;
    /* What has come in is told first: to w only if it listens already. */
    drain(dd);
    if (dd->failed)
        return false;
    if (!backend_changes_has(dd->watchers, w)) {
        w->since = subtract(dd);
        backend_changes_add(&dd->watchers, w);
    }
    return true;
}

void desktop_damage_close(struct desktop *d)
{
    struct desktop_damage *dd = d->damage;
    if (!dd)
        return;
    d->damage = NULL;
    dd->d = NULL;
    if (dd->poll_open) {
        uv_close((uv_handle_t *)&dd->poll, poll_closed);
        return;
    }
    if (dd->c)
        xcb_disconnect(dd->c);
    free(dd);
}
