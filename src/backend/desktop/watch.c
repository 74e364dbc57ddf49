/* What happens on a desktop, for its events resource: windows opened,
 * closed and focused. An X connection of glovebox's own listens to the root
 * window (its children mapped and unmapped; _NET_CLIENT_LIST and
 * _NET_ACTIVE_WINDOW when a window manager keeps them); each burst of
 * events starts one scan of the top-level windows on the worker pool (the
 * loop never waits for the X server), and the scan's answer is compared
 * with the previous one on the loop. The first scan is the baseline: the
 * windows already there are not news.
 *
 * The screen's pixels have no such events: while a client is subscribed to
 * the screen or text, they are sampled every SAMPLE_MS on the worker pool
 * and a hash of them compared with the last one. Nobody subscribed, nothing
 * is captured. */
#define LOG_MODULE "desktop"
#include "backend/desktop/internal.h"
#include "core/app.h"
#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

#define MAX_TOP   512
#define SAMPLE_MS 100

struct top {
    xcb_window_t id;
    char *title;
};

struct desktop_watch {
    struct desktop *d; /* NULL once closing */
    xcb_connection_t *c;
    xcb_window_t root;
    xcb_atom_t client_list, active, net_name, utf8;
    uv_poll_t poll;
    bool poll_open;
    uv_work_t work;
    bool scanning, again, have_baseline;
    /* The scan's result (worker) and the last one compared (loop). */
    struct top *found, *known;
    int n_found, n_known;
    xcb_window_t found_active, known_active;
    /* Pixel sampling: the timer, the job in flight, the last hash. */
    struct session *session; /* for in_use, while a capture runs */
    uv_timer_t sample;
    bool sample_open, sampling, have_hash;
    uv_work_t sample_work;
    uint64_t hash, sampled;
};

static void tops_free(struct top *t, int n)
{
    for (int i = 0; i < n; i++)
        free(t[i].title);
    free(t);
}

static void watch_free(struct desktop_watch *w)
{
    if (w->c)
        xcb_disconnect(w->c);
    tops_free(w->found, w->n_found);
    tops_free(w->known, w->n_known);
    free(w);
}

/* Freed once nothing uses it: neither the poll handle nor a scan. */
static void maybe_free(struct desktop_watch *w)
{
    if (!w->d && !w->poll_open && !w->scanning && !w->sample_open && !w->sampling)
        watch_free(w);
}

static xcb_atom_t atom(xcb_connection_t *c, const char *name)
{
    xcb_intern_atom_reply_t *r =
        xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t a = r ? r->atom : XCB_NONE;
    free(r);
    return a;
}

static char *title_of(struct desktop_watch *w, xcb_window_t win)
{
    xcb_get_property_cookie_t ck[2] = {
        xcb_get_property(w->c, 0, win, w->net_name, w->utf8, 0, 256),
        xcb_get_property(w->c, 0, win, XCB_ATOM_WM_NAME, XCB_GET_PROPERTY_TYPE_ANY, 0, 256),
    };
    char *title = NULL;
    for (int i = 0; i < 2; i++) {
        xcb_get_property_reply_t *r = xcb_get_property_reply(w->c, ck[i], NULL);
        if (r && !title && r->type != XCB_NONE && xcb_get_property_value_length(r) > 0)
            title = xstrndup(xcb_get_property_value(r), (size_t)xcb_get_property_value_length(r));
        free(r);
    }
    return title ? title : xstrdup("");
}

/* The window manager's list, else the root's mapped children that a window
 * manager would manage (not override-redirect: menus, tooltips). */
static int list_tops(struct desktop_watch *w, xcb_window_t *out)
{
    int n = 0;
    xcb_get_property_reply_t *cl = xcb_get_property_reply(
        w->c, xcb_get_property(w->c, 0, w->root, w->client_list, XCB_ATOM_WINDOW, 0, MAX_TOP),
        NULL);
    if (cl && cl->type == XCB_ATOM_WINDOW && cl->format == 32) {
        int len = xcb_get_property_value_length(cl) / 4;
        const xcb_window_t *v = xcb_get_property_value(cl);
        for (int i = 0; i < len && n < MAX_TOP; i++)
            out[n++] = v[i];
        free(cl);
        return n;
    }
    free(cl);
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(w->c, xcb_query_tree(w->c, w->root), NULL);
    if (!t)
        return 0;
    int len = xcb_query_tree_children_length(t);
    xcb_window_t *kids = xcb_query_tree_children(t);
    if (len > MAX_TOP)
        len = MAX_TOP;
    xcb_get_window_attributes_cookie_t *ck = xcalloc((size_t)len + 1, sizeof *ck);
    for (int i = 0; i < len; i++)
        ck[i] = xcb_get_window_attributes(w->c, kids[i]);
    for (int i = 0; i < len; i++) {
        xcb_get_window_attributes_reply_t *a = xcb_get_window_attributes_reply(w->c, ck[i], NULL);
        if (a && a->map_state == XCB_MAP_STATE_VIEWABLE && !a->override_redirect)
            out[n++] = kids[i];
        free(a);
    }
    free(ck);
    free(t);
    return n;
}

/* The top-level window holding the keyboard focus (or the manager's active
 * one); XCB_NONE if none of tops. */
static xcb_window_t active_of(struct desktop_watch *w, const xcb_window_t *tops, int n)
{
    xcb_get_property_reply_t *r = xcb_get_property_reply(
        w->c, xcb_get_property(w->c, 0, w->root, w->active, XCB_ATOM_WINDOW, 0, 1), NULL);
    xcb_window_t f = XCB_NONE;
    if (r && r->type == XCB_ATOM_WINDOW && xcb_get_property_value_length(r) >= 4)
        f = *(xcb_window_t *)xcb_get_property_value(r);
    free(r);
    if (f == XCB_NONE) {
        xcb_get_input_focus_reply_t *g =
            xcb_get_input_focus_reply(w->c, xcb_get_input_focus(w->c), NULL);
        f = g ? g->focus : XCB_NONE;
        free(g);
    }
    for (int hops = 0; f > 1 && hops < 8; hops++) {
        for (int i = 0; i < n; i++)
            if (tops[i] == f)
                return f;
        xcb_query_tree_reply_t *t = xcb_query_tree_reply(w->c, xcb_query_tree(w->c, f), NULL);
        xcb_window_t parent = t && t->parent != t->root ? t->parent : XCB_NONE;
        free(t);
        f = parent;
    }
    return XCB_NONE;
}

static void scan_run(uv_work_t *work)
{
    struct desktop_watch *w = work->data;
    xcb_window_t *ids = xcalloc(MAX_TOP, sizeof *ids);
    int n = list_tops(w, ids);
    w->found = xcalloc((size_t)n + 1, sizeof *w->found);
    w->n_found = n;
    for (int i = 0; i < n; i++) {
        w->found[i].id = ids[i];
        w->found[i].title = title_of(w, ids[i]);
    }
    w->found_active = active_of(w, ids, n);
    free(ids);
}

static void scan_first(uv_work_t *work)
{
    struct desktop_watch *w = work->data;
    w->client_list = atom(w->c, "_NET_CLIENT_LIST");
    w->active = atom(w->c, "_NET_ACTIVE_WINDOW");
    w->net_name = atom(w->c, "_NET_WM_NAME");
    w->utf8 = atom(w->c, "UTF8_STRING");
    scan_run(work);
}

static void event(struct desktop_watch *w, const char *type, const struct top *t)
{
    char id[24];
    snprintf(id, sizeof id, "0x%x", (unsigned)t->id);
    session_event(w->d->session, type,
                  json_pack("{s:s, s:o}", "window", id, "title",
                            utf8_json_string(t->title, strlen(t->title))));
}

static const struct top *find(const struct top *t, int n, xcb_window_t id)
{
    for (int i = 0; i < n; i++)
        if (t[i].id == id)
            return &t[i];
    return NULL;
}

static void pump(struct desktop_watch *w);
static void scan_start(struct desktop_watch *w);

static void scan_done(uv_work_t *work, int status)
{
    (void)status;
    struct desktop_watch *w = work->data;
    if (!w->d) {
        w->scanning = false;
        maybe_free(w);
        return;
    }
    if (w->have_baseline) {
        for (int i = 0; i < w->n_found; i++)
            if (!find(w->known, w->n_known, w->found[i].id))
                event(w, "window_opened", &w->found[i]);
        for (int i = 0; i < w->n_known; i++)
            if (!find(w->found, w->n_found, w->known[i].id))
                event(w, "window_closed", &w->known[i]);
        const struct top *a = find(w->found, w->n_found, w->found_active);
        if (a && w->found_active != w->known_active)
            event(w, "window_focused", a);
    }
    w->have_baseline = true;
    tops_free(w->known, w->n_known);
    w->known = w->found;
    w->n_known = w->n_found;
    w->known_active = w->found_active;
    w->found = NULL;
    w->n_found = 0;
    /* The scan may have taken events off the socket: look at them now
     * (still marked scanning, so a lost connection cannot free w here). */
    pump(w);
    w->scanning = false;
    if (!w->d)
        maybe_free(w);
    else if (w->again)
        scan_start(w);
}

static void scan_start(struct desktop_watch *w)
{
    if (w->scanning) {
        w->again = true;
        return;
    }
    w->again = false;
    w->scanning = true;
    w->work.data = w;
    uv_queue_work(w->d->app->loop, &w->work, scan_run, scan_done);
}

static void poll_closed(uv_handle_t *h)
{
    struct desktop_watch *w = h->data;
    w->poll_open = false;
    maybe_free(w);
}

static void sample_closed(uv_handle_t *h)
{
    struct desktop_watch *w = h->data;
    w->sample_open = false;
    maybe_free(w);
}

static void watch_close(struct desktop_watch *w)
{
    if (w->d)
        w->d->watch = NULL;
    w->d = NULL;
    if (w->poll_open && !uv_is_closing((uv_handle_t *)&w->poll))
        uv_close((uv_handle_t *)&w->poll, poll_closed);
    if (w->sample_open && !uv_is_closing((uv_handle_t *)&w->sample))
        uv_close((uv_handle_t *)&w->sample, sample_closed);
    maybe_free(w);
}

/* FNV-1a over the visible pixels: a change anywhere changes it. */
static void sample_run(uv_work_t *work)
{
    struct desktop_watch *w = work->data;
    struct frame f;
    char *err = NULL;
    w->sampled = 0;
    if (!desktop_capture(w->session->backend, &f, &err)) {
        free(err);
        return;
    }
    uint64_t h = 1469598103934665603ull;
    for (uint32_t y = 0; y < f.height; y++) {
        const uint8_t *row = f.rgba + (size_t)y * f.stride;
        for (uint32_t x = 0; x < f.width; x++) {
            uint32_t px;
            memcpy(&px, row + (size_t)x * 4, 4);
            h = (h ^ px) * 1099511628211ull;
        }
    }
    frame_finish(&f);
    w->sampled = h ? h : 1;
}

static void sample_done(uv_work_t *work, int status)
{
    (void)status;
    struct desktop_watch *w = work->data;
    w->sampling = false;
    w->session->in_use--;
    if (!w->d) {
        maybe_free(w);
        return;
    }
    if (w->sampled) {
        if (w->have_hash && w->sampled != w->hash)
            session_changed(w->session, SESSION_CHANGED_SCREEN);
        w->hash = w->sampled;
        w->have_hash = true;
    }
}

static void sample_tick(uv_timer_t *timer)
{
    struct desktop_watch *w = timer->data;
    if (!w->d || w->sampling)
        return;
    if (!session_is_watched(w->session, SESSION_CHANGED_SCREEN)) {
        /* The next subscriber starts from the screen as it is then. */
        w->have_hash = false;
        return;
    }
    w->sampling = true;
    /* The session is not freed while the capture reads it. */
    w->session->in_use++;
    w->sample_work.data = w;
    uv_queue_work(w->d->app->loop, &w->sample_work, sample_run, sample_done);
}

/* Take every event that has arrived; any of them may change the windows. */
static void pump(struct desktop_watch *w)
{
    bool changed = false;
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(w->c))) {
        changed = true;
        free(ev);
    }
    if (xcb_connection_has_error(w->c)) {
        log_debug("%s: the window watch lost its X connection", w->d->display);
        watch_close(w);
        return;
    }
    if (changed)
        scan_start(w);
}

static void readable(uv_poll_t *h, int status, int events)
{
    (void)events;
    struct desktop_watch *w = h->data;
    if (!w->d)
        return;
    if (status < 0) {
        watch_close(w);
        return;
    }
    pump(w);
}

void desktop_watch_open(struct desktop *d)
{
    int screen_no = 0;
    xcb_connection_t *c = xcb_connect(d->display, &screen_no);
    if (xcb_connection_has_error(c)) {
        xcb_disconnect(c);
        log_warn("%s: cannot watch the windows of X display %s", d->session->id, d->display);
        return;
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; i < screen_no && it.rem; i++)
        xcb_screen_next(&it);
    struct desktop_watch *w = xcalloc(1, sizeof *w);
    w->d = d;
    w->c = c;
    w->root = it.data->root;
    /* Events first, so nothing between the baseline scan and them is missed. */
    uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY | XCB_EVENT_MASK_PROPERTY_CHANGE |
                    XCB_EVENT_MASK_FOCUS_CHANGE;
    xcb_change_window_attributes(c, w->root, XCB_CW_EVENT_MASK, &mask);
    xcb_flush(c);
    if (uv_poll_init(d->app->loop, &w->poll, xcb_get_file_descriptor(c)) < 0) {
        watch_free(w);
        return;
    }
    w->poll.data = w;
    w->poll_open = true;
    d->watch = w;
    w->session = d->session;
    uv_poll_start(&w->poll, UV_READABLE, readable);
    uv_timer_init(d->app->loop, &w->sample);
    w->sample.data = w;
    w->sample_open = true;
    uv_timer_start(&w->sample, sample_tick, SAMPLE_MS, SAMPLE_MS);
    /* The atoms are looked up by the first scan's thread: the loop does
     * not wait for the X server. */
    w->scanning = true;
    w->work.data = w;
    uv_queue_work(d->app->loop, &w->work, scan_first, scan_done);
}

void desktop_watch_close(struct desktop *d)
{
    if (d->watch)
        watch_close(d->watch);
}
