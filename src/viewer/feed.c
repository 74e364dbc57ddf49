/* A desktop's frames for its viewers. While a page watches, the screen is
 * grabbed as soon as the desktop reports a change (X DAMAGE, through the
 * session's watch_changes; at most one grab per FEED_MIN_GAP_MS), and every
 * FEED_TICK_WATCHED_MS whatever it reports (FEED_TICK_MS for a session that
 * reports nothing), on the worker pool (the viewer's own X
 * connection), compared with the previous grab in 64×64 tiles, and what
 * changed is merged into rectangles and encoded once: PNG where a region
 * has few colours (text, windows), JPEG where it has many (photos, video),
 * and the JPEG regions again as PNG once the screen has been still for
 * FEED_REFRESH_MS. Pages that lack the same tiles share one message. A page
 * with FEED_MAX_UNACKED frames unacknowledged gets none until it catches up:
 * the tiles it missed are remembered and sent together. A still screen
 * sends nothing. */
#define LOG_MODULE "viewer"
#include "backend/backend.h"
#include "backend/frames.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "session/session.h"
#include "viewer/cursor.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <stdlib.h>
#include <string.h>

#define TILE         64
#define FEED_TICK_MS 50
/* With changes reported, the regular grab is only the safety net (and
 * what notices the screen has gone still). */
#define FEED_TICK_WATCHED_MS 250
/* The shortest time between two grabs a change starts: a screen that
 * changes all the time is grabbed about 60 times a second, not more. */
#define FEED_MIN_GAP_MS 16
#define FEED_REFRESH_MS 500
/* What a page is sent at most, on average (bytes a second), and at once: a
 * screen in full motion (video, a flood of text) would otherwise take as
 * many frames as the page acknowledges. Over it, grabs wait: the page sees
 * fewer frames of the motion, and the last state always arrives. */
#define FEED_BYTES_PER_S (2500u * 1024)
#define FEED_BURST_BYTES (1024u * 1024)
#define FEED_MAX_UNACKED 2
#define MAX_GROUPS       8
#define JPEG_QUALITY     70
/* Distinct colours past which a region is encoded as JPEG. */
#define BUSY_COLOURS 1024

struct group {
    uint8_t *want; /* tiles the group's pages lack (before this grab) */
    bool lossless; /* a still screen's refresh: PNG everywhere */
    /* Out: the message, and which tiles went as JPEG. */
    uint8_t *msg;
    size_t msg_len;
    uint8_t *sent_lossy;
};

struct cached {
    int x, y, w, h;
    bool lossless;
    uint8_t fmt;
    uint8_t *bytes;
    size_t len;
};

struct feed {
    struct viewer *v;
    char session[48];
    struct frame_source src;
    uv_timer_t timer;
    uv_work_t work;
    bool busy, closing, timer_closed;
    struct frame prev; /* the last grab (worker-owned while busy) */
    int tw, th;        /* tiles across and down of prev */
    uint64_t job;      /* the job in flight, or the last one */
    uint32_t seq;
    uint64_t last_change_ms;
    uint64_t last_grab_ms;
    /* The byte budget (FEED_BYTES_PER_S): bytes a page may still be sent
     * now, below zero after a large frame; as of budget_ms. */
    double budget;
    uint64_t budget_ms;
    /* Told of changes by the session: a grab starts at once. */
    struct backend_change_watch watch;
    bool watching, change_pending;
    uv_timer_t soon; /* a grab a change asked for, FEED_MIN_GAP_MS after the last */
    bool soon_closed;
    /* Job in/out. */
    struct group groups[MAX_GROUPS];
    int n_groups;
    uint8_t *changed; /* tiles changed by this grab */
    bool resized;
    char *err;
    /* The screen's monitors (RandR): the last known, and a fresh look the
     * job took (asked at the first grab, after a resize and every
     * MONITORS_EVERY_MS: xrandr may add or move one any time). */
    json_t *monitors, *new_monitors;
    uint64_t monitors_ms; /* when the last look was asked for */
    bool look_monitors;   /* the job in flight looks */
    /* The pointer a source shows apart (frame_source.cursor_apart): the
     * worker's record, then the job's message and whole state for the
     * loop, and the state pages that join get (loop). */
    struct viewer_cursor cursor;
    json_t *cursor_msg, *cursor_next, *cursor_state;
    struct feed *next;
};

static uint64_t next_job = 1;
#define MONITORS_EVERY_MS 2000

static void feed_free(struct feed *f)
{
    struct viewer *v = f->v;
    for (struct feed **p = &v->feeds; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    if (f->src.release)
        f->src.release(f->src.ud);
    frame_finish(&f->prev);
    free(f->changed);
    free(f->err);
    json_decref(f->monitors);
    json_decref(f->new_monitors);
    viewer_cursor_finish(&f->cursor);
    json_decref(f->cursor_msg);
    json_decref(f->cursor_next);
    json_decref(f->cursor_state);
    free(f);
    viewer_release(v);
}

static void on_timer_closed(uv_handle_t *h)
{
    struct feed *f = h->data;
    if (h == (uv_handle_t *)&f->soon)
        f->soon_closed = true;
    else
        f->timer_closed = true;
    if (!f->busy && f->timer_closed && f->soon_closed)
        feed_free(f);
}

static void feed_close(struct feed *f)
{
    if (f->closing)
        return;
    f->closing = true;
    if (f->watching) {
        /* A session already gone took its listeners with it. */
        struct session *s = viewer_session_find(f->v, f->session);
        if (s && s->impl->watch_changes)
            s->impl->watch_changes(s, &f->watch, false);
        f->watching = false;
    }
    uv_timer_stop(&f->timer);
    uv_close((uv_handle_t *)&f->timer, on_timer_closed);
    uv_timer_stop(&f->soon);
    uv_close((uv_handle_t *)&f->soon, on_timer_closed);
}

static bool tiles_equal(const struct frame *a, const struct frame *b, int x0, int y0, int w, int h)
{
    for (int y = y0; y < y0 + h; y++)
        if (memcmp(a->rgba + (size_t)y * a->stride + (size_t)x0 * 4,
                   b->rgba + (size_t)y * b->stride + (size_t)x0 * 4, (size_t)w * 4) != 0)
            return false;
    return true;
}

static int count_colours(const struct frame *f, int x0, int y0, int w, int h)
{
    /* A small open-addressing set; stops counting past BUSY_COLOURS. */
    enum { SLOTS = 4096 };
    static _Thread_local uint32_t set[SLOTS];
    static _Thread_local uint32_t gen[SLOTS];
    static _Thread_local uint32_t g;
    g++;
    int n = 0;
    for (int y = y0; y < y0 + h; y++) {
        const uint32_t *row = (const uint32_t *)(f->rgba + (size_t)y * f->stride) + x0;
        for (int x = 0; x < w; x++) {
            uint32_t c = row[x] | 0xff000000u;
            uint32_t i = (c * 2654435761u) >> 20;
            while (gen[i] == g && set[i] != c)
                i = (i + 1) & (SLOTS - 1);
            if (gen[i] != g) {
                gen[i] = g;
                set[i] = c;
                if (++n > BUSY_COLOURS)
                    return n;
            }
        }
    }
    return n;
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Encodes one rectangle (or finds it encoded for another group). */
static struct cached *encode_rect(struct feed *f, struct cached **cache, int *n_cache, int x, int y,
                                  int w, int h, bool lossless)
{
    for (int i = 0; i < *n_cache; i++) {
        struct cached *c = &(*cache)[i];
        if (c->x == x && c->y == y && c->w == w && c->h == h && c->lossless == lossless)
            return c;
    }
    *cache = xrealloc(*cache, (size_t)(*n_cache + 1) * sizeof **cache);
    struct cached *c = &(*cache)[(*n_cache)++];
    *c = (struct cached){.x = x, .y = y, .w = w, .h = h, .lossless = lossless};
    struct frame sub = {.width = (uint32_t)w,
                        .height = (uint32_t)h,
                        .stride = f->prev.stride,
                        .rgba = f->prev.rgba + (size_t)y * f->prev.stride + (size_t)x * 4};
    bool jpeg = !lossless && count_colours(&f->prev, x, y, w, h) > BUSY_COLOURS;
    char *err = NULL;
    c->fmt = jpeg;
    if (!image_encode(&sub, jpeg ? IMAGE_JPEG : IMAGE_PNG, JPEG_QUALITY, &c->bytes, &c->len,
                      &err)) {
        free(err);
        c->bytes = NULL;
        c->len = 0;
    }
    return c;
}

/* The tiles of want merged into rectangles: runs along each row of tiles,
 * then runs of the same span on the rows below joined. */
static void build_message(struct feed *f, struct group *g, struct cached **cache, int *n_cache)
{
    int tw = f->tw, th = f->th;
    uint8_t *left = xmalloc((size_t)(tw * th));
    memcpy(left, g->want, (size_t)(tw * th));
    struct strbuf m;
    strbuf_init(&m);
    uint8_t head[11] = {1};
    strbuf_append(&m, head, sizeof head);
    int n = 0;
    g->sent_lossy = xcalloc((size_t)(tw * th), 1);
    for (int ty = 0; ty < th; ty++) {
        for (int tx = 0; tx < tw; tx++) {
            if (!left[ty * tw + tx])
                continue;
            int tx1 = tx;
            while (tx1 + 1 < tw && left[ty * tw + tx1 + 1])
                tx1++;
            int ty1 = ty;
            for (;;) {
                if (ty1 + 1 >= th)
                    break;
                bool full = true;
                for (int k = tx; k <= tx1 && full; k++)
                    full = left[(ty1 + 1) * tw + k];
                if (!full)
                    break;
                ty1++;
            }
            for (int yy = ty; yy <= ty1; yy++)
                memset(left + yy * tw + tx, 0, (size_t)(tx1 - tx + 1));
            int x = tx * TILE, y = ty * TILE;
            int w = (tx1 + 1) * TILE, h = (ty1 + 1) * TILE;
            if (w > (int)f->prev.width)
                w = (int)f->prev.width;
            if (h > (int)f->prev.height)
                h = (int)f->prev.height;
            w -= x;
            h -= y;
            struct cached *c = encode_rect(f, cache, n_cache, x, y, w, h, g->lossless);
            if (!c->bytes)
                continue;
            uint8_t r[13];
            put16(r, (uint32_t)x);
            put16(r + 2, (uint32_t)y);
            put16(r + 4, (uint32_t)w);
            put16(r + 6, (uint32_t)h);
            r[8] = c->fmt;
            put32(r + 9, (uint32_t)c->len);
            strbuf_append(&m, r, sizeof r);
            strbuf_append(&m, c->bytes, c->len);
            if (c->fmt)
                for (int yy = ty; yy <= ty1; yy++)
                    memset(g->sent_lossy + yy * tw + tx, 1, (size_t)(tx1 - tx + 1));
            n++;
            tx = tx1;
        }
    }
    free(left);
    if (!n) {
        strbuf_finish(&m);
        return;
    }
    uint8_t *p = (uint8_t *)m.data;
    /* seq (filled in on the loop), width, height, rectangles */
    put16(p + 5, f->prev.width);
    put16(p + 7, f->prev.height);
    put16(p + 9, (uint32_t)n);
    g->msg_len = m.len;
    g->msg = (uint8_t *)strbuf_steal(&m);
}

static void grab_soon(struct feed *f);

static void work(uv_work_t *w)
{
    struct feed *f = w->data;
    struct frame_shot shot = {.unit = 1};
    struct frame_request rq = {.cursor = f->src.cursor_apart};
    if (!f->src.produce(f->src.ud, &rq, &shot, &f->err))
        return;
    if (f->src.cursor_apart)
        f->cursor_msg = viewer_cursor_update(&f->cursor, f->session, &shot.cursor, &f->cursor_next);
    free(shot.cursor.argb);
    struct frame cur = shot.frame;
    int tw = (int)((cur.width + TILE - 1) / TILE), th = (int)((cur.height + TILE - 1) / TILE);
    f->resized = cur.width != f->prev.width || cur.height != f->prev.height;
    f->changed = xcalloc((size_t)(tw * th), 1);
    for (int ty = 0; ty < th; ty++)
        for (int tx = 0; tx < tw; tx++) {
            int x = tx * TILE, y = ty * TILE;
            int ww = (int)cur.width - x < TILE ? (int)cur.width - x : TILE;
            int hh = (int)cur.height - y < TILE ? (int)cur.height - y : TILE;
            f->changed[ty * tw + tx] = f->resized || !tiles_equal(&cur, &f->prev, x, y, ww, hh);
        }
    frame_finish(&f->prev);
    f->prev = cur;
    f->tw = tw;
    f->th = th;
    if (f->src.monitors && (f->resized || f->look_monitors)) {
        char *err = NULL;
        f->new_monitors = f->src.monitors(f->src.ud, &err);
        free(err); /* said by the next grab, which fails too */
    }
    struct cached *cache = NULL;
    int n_cache = 0;
    for (int i = 0; i < f->n_groups; i++) {
        struct group *g = &f->groups[i];
        bool any = false;
        for (int k = 0; k < tw * th; k++) {
            g->want[k] = f->resized || g->want[k] || f->changed[k];
            any |= g->want[k];
        }
        if (any)
            build_message(f, g, &cache, &n_cache);
    }
    for (int i = 0; i < n_cache; i++)
        free(cache[i].bytes);
    free(cache);
}

static void send_monitors(struct view_client *c, struct feed *f)
{
    viewer_client_send_json(c, json_pack("{s:s, s:s, s:O}", "type", "monitors", "session",
                                         f->session, "monitors", f->monitors));
}

static void resize_bitmaps(struct view_client *c, int n)
{
    c->dirty = xrealloc(c->dirty, (size_t)n);
    c->lossy = xrealloc(c->lossy, (size_t)n);
    memset(c->dirty, 1, (size_t)n);
    memset(c->lossy, 0, (size_t)n);
}

static void after_work(uv_work_t *w, int status)
{
    (void)status;
    struct feed *f = w->data;
    f->busy = false;
    struct viewer *v = f->v;
    int n = f->tw * f->th;
    double most = 0; /* the largest message a page got from this grab */
    bool changed = false;
    if (f->changed)
        for (int k = 0; k < n; k++)
            changed |= f->changed[k];
    uint64_t now = uv_now(v->app->loop);
    if (changed)
        f->last_change_ms = now;
    if (f->err && !f->closing) {
        log_debug("%s: viewer grab failed: %s", f->session, f->err);
    }
    if (f->new_monitors && !json_equal(f->new_monitors, f->monitors)) {
        json_decref(f->monitors);
        f->monitors = f->new_monitors;
        f->new_monitors = NULL;
        for (struct view_client *c = v->clients; c; c = c->next)
            if (c->feed == f)
                send_monitors(c, f);
    }
    json_decref(f->new_monitors);
    f->new_monitors = NULL;
    if (f->cursor_msg) {
        for (struct view_client *c = v->clients; c; c = c->next)
            if (c->feed == f)
                viewer_client_send_json(c, json_incref(f->cursor_msg));
        json_decref(f->cursor_msg);
        f->cursor_msg = NULL;
        json_decref(f->cursor_state);
        f->cursor_state = f->cursor_next;
        f->cursor_next = NULL;
    }
    for (struct view_client *c = v->clients; c; c = c->next) {
        if (c->feed != f)
            continue;
        bool grouped = c->job == f->job;
        c->job = 0;
        if (!f->changed)
            continue; /* the grab failed: what each page lacks stays */
        if (!c->dirty || f->resized)
            resize_bitmaps(c, n); /* a full frame: now, or on the next tick */
        if (!grouped) {
            for (int k = 0; k < n; k++)
                c->dirty[k] |= f->changed[k];
            continue;
        }
        struct group *g = &f->groups[c->group];
        if (g->msg) {
            put32(g->msg + 1, f->seq);
            ws_send(c->ws, false, g->msg, g->msg_len);
            c->unacked++;
            if ((double)g->msg_len > most)
                most = (double)g->msg_len;
        }
        for (int k = 0; k < n; k++) {
            if (g->want[k])
                c->lossy[k] = g->msg ? g->sent_lossy[k] : 0;
            c->dirty[k] = 0;
        }
    }
    f->seq++;
    f->budget -= most;
    for (int i = 0; i < f->n_groups; i++) {
        free(f->groups[i].want);
        free(f->groups[i].msg);
        free(f->groups[i].sent_lossy);
    }
    f->n_groups = 0;
    free(f->changed);
    f->changed = NULL;
    free(f->err);
    f->err = NULL;
    f->last_grab_ms = now;
    if (f->closing && f->timer_closed && f->soon_closed)
        feed_free(f);
    else if (f->change_pending && !f->closing)
        grab_soon(f);
}

static bool lossy_any(const struct view_client *c, int n)
{
    for (int k = 0; k < n; k++)
        if (c->lossy[k])
            return true;
    return false;
}

static void on_soon(uv_timer_t *t);

/* Refills the byte budget; false (and a grab set for when it is refilled)
 * while it is spent. */
static bool budget_allows(struct feed *f, uint64_t now)
{
    f->budget += (double)(now - f->budget_ms) * FEED_BYTES_PER_S / 1000.0;
    if (f->budget > FEED_BURST_BYTES)
        f->budget = FEED_BURST_BYTES;
    f->budget_ms = now;
    if (f->budget >= 0)
        return true;
    uint64_t wait_ms = (uint64_t)(-f->budget * 1000.0 / FEED_BYTES_PER_S) + 1;
    uv_timer_start(&f->soon, on_soon, wait_ms, 0);
    return false;
}

static void on_tick(uv_timer_t *timer)
{
    struct feed *f = timer->data;
    struct viewer *v = f->v;
    if (f->busy || f->closing)
        return;
    if (!budget_allows(f, uv_now(v->app->loop)))
        return;
    struct session *s = viewer_session_find(v, f->session);
    if (!s || s->state != SESSION_LIVE)
        return; /* the sweep tells the pages */
    int n = f->tw * f->th;
    uint64_t now = uv_now(v->app->loop);
    bool still = now - f->last_change_ms >= FEED_REFRESH_MS;
    f->job = next_job++;
    f->n_groups = 0;
    bool anyone = false;
    for (struct view_client *c = v->clients; c; c = c->next) {
        if (c->feed != f)
            continue;
        anyone = true;
        if (c->unacked >= FEED_MAX_UNACKED || ws_queued(c->ws) > VIEW_BEHIND_BYTES)
            continue; /* behind: its tiles wait in c->dirty */
        bool lossless = still && c->dirty && lossy_any(c, n);
        int gi = -1;
        for (int i = 0; i < f->n_groups && gi < 0; i++) {
            struct group *g = &f->groups[i];
            bool same = g->lossless == lossless;
            for (int k = 0; k < n && same && c->dirty; k++)
                same = g->want[k] == (c->dirty[k] | (lossless && c->lossy[k]));
            if (same && c->dirty)
                gi = i;
        }
        if (gi < 0) {
            if (f->n_groups == MAX_GROUPS || !c->dirty)
                continue; /* next tick */
            gi = f->n_groups++;
            struct group *g = &f->groups[gi];
            *g = (struct group){.lossless = lossless};
            g->want = xcalloc((size_t)(n ? n : 1), 1);
            for (int k = 0; k < n; k++)
                g->want[k] = c->dirty[k] | (lossless && c->lossy[k]);
        }
        c->job = f->job;
        c->group = gi;
    }
    if (!anyone) {
        feed_close(f);
        return;
    }
    /* Pages that joined before the first grab know no size yet: the grab
     * counts as resized for them (after_work). */
    f->look_monitors = f->monitors_ms == 0 || now - f->monitors_ms >= MONITORS_EVERY_MS;
    if (f->look_monitors)
        f->monitors_ms = now;
    f->busy = true;
    f->work.data = f;
    uv_queue_work(v->app->loop, &f->work, work, after_work);
}

static void on_soon(uv_timer_t *t)
{
    on_tick(t);
}

/* A change was reported: grab now, or FEED_MIN_GAP_MS after the last grab,
 * or when the grab in flight is done. */
static void grab_soon(struct feed *f)
{
    if (f->busy) {
        f->change_pending = true;
        return;
    }
    f->change_pending = false;
    uint64_t now = uv_now(f->v->app->loop);
    uint64_t due = f->last_grab_ms + FEED_MIN_GAP_MS;
    uv_timer_start(&f->soon, on_soon, due > now ? due - now : 0, 0);
}

static void on_changed(struct backend_change_watch *w)
{
    struct feed *f = (struct feed *)((char *)w - offsetof(struct feed, watch));
    if (!f->closing)
        grab_soon(f);
}

bool viewer_feed_join(struct viewer *v, struct view_client *c, struct session *s, char **err)
{
    struct feed *f = v->feeds;
    while (f && (f->closing || strcmp(f->session, s->id) != 0))
        f = f->next;
    if (!f) {
        f = xcalloc(1, sizeof *f);
        f->v = v;
        snprintf(f->session, sizeof f->session, "%s", s->id);
        if (!s->impl->view_frames(s, &f->src, err)) {
            free(f);
            return false;
        }
        uv_timer_init(v->app->loop, &f->soon);
        f->soon.data = f;
        f->budget = FEED_BURST_BYTES;
        f->budget_ms = uv_now(v->app->loop);
        f->watch.changed = on_changed;
        f->watching = s->impl->watch_changes && s->impl->watch_changes(s, &f->watch, true);
        uv_timer_init(v->app->loop, &f->timer);
        f->timer.data = f;
        uv_timer_start(&f->timer, on_tick, 0, f->watching ? FEED_TICK_WATCHED_MS : FEED_TICK_MS);
        f->next = v->feeds;
        v->feeds = f;
    }
    c->feed = f;
    c->unacked = 0;
    c->job = 0;
    free(c->dirty);
    free(c->lossy);
    c->dirty = c->lossy = NULL;
    int n = f->tw * f->th;
    if (n && !f->busy)
        resize_bitmaps(c, n); /* everything, from the next grab */
    if (f->monitors)
        send_monitors(c, f);
    if (f->cursor_state)
        viewer_client_send_json(c, json_incref(f->cursor_state));
    return true;
}

void viewer_feed_leave(struct view_client *c)
{
    c->feed = NULL;
    c->job = 0;
    free(c->dirty);
    free(c->lossy);
    c->dirty = c->lossy = NULL;
}

void viewer_feed_ack(struct view_client *c, uint32_t seq)
{
    (void)seq;
    if (!c->feed || c->unacked == 0)
        return;
    c->unacked--;
    /* A page that fell behind has tiles waiting: send them now, not at
     * the next regular grab. */
    int n = c->feed->tw * c->feed->th;
    for (int k = 0; c->dirty && k < n; k++)
        if (c->dirty[k]) {
            if (!c->feed->closing)
                grab_soon(c->feed);
            break;
        }
}

void viewer_feeds_close_all(struct viewer *v)
{
    for (struct feed *f = v->feeds; f; f = f->next)
        feed_close(f);
}

uint64_t viewer_feed_changed_ms(struct viewer *v, const char *session)
{
    for (struct feed *f = v->feeds; f; f = f->next)
        if (!f->closing && strcmp(f->session, session) == 0)
            return f->last_change_ms;
    return 0;
}

const json_t *viewer_feed_monitors(struct viewer *v, const char *session)
{
    for (struct feed *f = v->feeds; f; f = f->next)
        if (!f->closing && strcmp(f->session, session) == 0)
            return f->monitors;
    return NULL;
}
