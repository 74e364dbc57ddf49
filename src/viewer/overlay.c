/* Overlays (overlay.h): kept per session in the viewer, mirrored to every
 * page that watches the session as created / removed / cleared messages. */
#include "viewer/overlay.h"

#include "core/xmalloc.h"
#include "session/session.h"
#include "viewer/anchor.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct overlay {
    char id[24];
    char session[48];
    json_t *shape;
    bool monitor_given;          /* monitor_index came with the shape; else it is found */
    uint64_t show_ms, expire_ms; /* uv_now times */
    struct overlay *next;
};

struct bucket {
    char session[48];
    double tokens;
    uint64_t at_ms;
    /* Anchored overlays: a look in flight, and when the last began. */
    bool refreshing;
    uint64_t refreshed_ms;
    struct bucket *next;
};

static struct overlay *overlays;
static struct bucket *buckets;
static unsigned next_id = 1;

static bool check(struct app *app, struct session *s, enum error_code *code, char **err)
{
    if (!viewer_the) {
        *code = ERROR_NOT_SUPPORTED;
        *err = xstrdup("overlays are shown in the live viewer, which needs glovebox serve --http "
                       "(then glovebox view prints a link)");
        return false;
    }
    if (s->state != SESSION_LIVE) {
        *code = ERROR_SESSION_EXPIRED;
        *err = xasprintf("session %s is not live", s->id);
        return false;
    }
    struct bucket *b = buckets;
    while (b && strcmp(b->session, s->id) != 0)
        b = b->next;
    uint64_t now = uv_now(app->loop);
    if (!b) {
        b = xcalloc(1, sizeof *b);
        snprintf(b->session, sizeof b->session, "%s", s->id);
        b->tokens = OVERLAY_RATE;
        b->at_ms = now;
        b->next = buckets;
        buckets = b;
    }
    b->tokens += (double)(now - b->at_ms) * OVERLAY_RATE / 1000.0;
    if (b->tokens > OVERLAY_RATE)
        b->tokens = OVERLAY_RATE;
    b->at_ms = now;
    if (b->tokens < 1.0) {
        *code = ERROR_DENIED;
        *err = xasprintf("too many overlay changes on %s: at most %d a second; retry in %d ms",
                         s->id, OVERLAY_RATE, (int)((1.0 - b->tokens) * 1000 / OVERLAY_RATE) + 1);
        return false;
    }
    b->tokens -= 1.0;
    return true;
}

static json_t *to_json(const struct overlay *o, uint64_t now)
{
    json_t *j = json_deep_copy(o->shape);
    json_object_set_new(j, "id", json_string(o->id));
    json_object_set_new(j, "show_in_ms",
                        json_integer(o->show_ms > now ? (json_int_t)(o->show_ms - now) : 0));
    json_object_set_new(j, "expires_in_ms",
                        json_integer(o->expire_ms > now ? (json_int_t)(o->expire_ms - now) : 0));
    return j;
}

static void broadcast(const char *session, json_t *msg)
{
    struct viewer *v = viewer_the;
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    for (struct view_client *c = v ? v->clients : NULL; c; c = c->next)
        if (strcmp(c->watching, session) == 0)
            ws_send(c->ws, true, text, strlen(text));
    free(text);
}

/* Sets a shape's place from its element's bounds: a point at the centre,
 * every other kind over the element. */
static void place(json_t *shape, const json_t *b)
{
    json_int_t x = json_integer_value(json_object_get(b, "x"));
    json_int_t y = json_integer_value(json_object_get(b, "y"));
    json_int_t w = json_integer_value(json_object_get(b, "width"));
    json_int_t h = json_integer_value(json_object_get(b, "height"));
    const char *kind = json_string_value(json_object_get(shape, "kind"));
    if (kind && strcmp(kind, "point") == 0)
        x += w / 2, y += h / 2;
    json_object_set_new(shape, "x", json_integer(x));
    json_object_set_new(shape, "y", json_integer(y));
    json_object_set_new(shape, "width", json_integer(w));
    json_object_set_new(shape, "height", json_integer(h));
}

/* The monitor a shape falls on (its centre; an arrow's or path's first
 * point), when the desktop's monitors are known: a page that shows one
 * monitor per window can tell which of its shapes are its own. */
static void set_monitor(json_t *shape, const json_t *monitors)
{
    if (!monitors || json_object_get(shape, "monitor_index"))
        return;
    const json_t *p0 = json_array_get(json_object_get(shape, "points"), 0);
    double x, y;
    if (p0) {
        x = json_number_value(json_array_get(p0, 0));
        y = json_number_value(json_array_get(p0, 1));
    } else {
        x = json_number_value(json_object_get(shape, "x")) +
            json_number_value(json_object_get(shape, "width")) / 2;
        y = json_number_value(json_object_get(shape, "y")) +
            json_number_value(json_object_get(shape, "height")) / 2;
    }
    size_t i;
    const json_t *m;
    json_array_foreach(monitors, i, m)
    {
        double mx = json_number_value(json_object_get(m, "x"));
        double my = json_number_value(json_object_get(m, "y"));
        if (x >= mx && y >= my && x < mx + json_number_value(json_object_get(m, "width")) &&
            y < my + json_number_value(json_object_get(m, "height"))) {
            json_object_set_new(shape, "monitor_index", json_integer((json_int_t)i));
            return;
        }
    }
}

/* Adds the shapes, placed. */
static json_t *add(struct app *app, struct session *s, const json_t *shapes, int64_t ttl_ms,
                   bool one_at_a_time, enum error_code *code, char **err)
{
    int have = 0;
    for (struct overlay *o = overlays; o; o = o->next)
        have += strcmp(o->session, s->id) == 0;
    size_t n = json_array_size(shapes);
    if (have + (int)n > OVERLAY_MAX) {
        *code = ERROR_INVALID_ARGUMENT;
        *err = xasprintf("shapes: at most %d overlays per session; %s has %d and this adds %zu "
                         "(overlay_remove or overlay_clear first)",
                         OVERLAY_MAX, s->id, have, n);
        return NULL;
    }
    uint64_t now = uv_now(app->loop);
    json_t *ids = json_array(), *list = json_array();
    for (size_t i = 0; i < n; i++) {
        struct overlay *o = xcalloc(1, sizeof *o);
        snprintf(o->id, sizeof o->id, "ov%u", next_id++);
        snprintf(o->session, sizeof o->session, "%s", s->id);
        o->shape = json_deep_copy(json_array_get(shapes, i));
        o->monitor_given = json_object_get(o->shape, "monitor_index") != NULL;
        set_monitor(o->shape, viewer_the ? viewer_feed_monitors(viewer_the, s->id) : NULL);
        o->show_ms = now + (one_at_a_time ? (uint64_t)ttl_ms * i : 0);
        o->expire_ms = o->show_ms + (uint64_t)ttl_ms;
        o->next = overlays;
        overlays = o;
        json_array_append_new(ids, json_string(o->id));
        json_array_append_new(list, to_json(o, now));
    }
    broadcast(s->id, json_pack("{s:s, s:s, s:s, s:o}", "type", "overlay", "event", "created",
                               "session", s->id, "overlays", list));
    return ids;
}

/* A draw waiting for the bounds of its refs. */
struct pending {
    struct app *app;
    char session[48];
    json_t *shapes, *refs, *index; /* index: the shape of each ref */
    int64_t ttl_ms;
    bool one_at_a_time;
    overlay_drawn_fn done;
    void *ud;
};

static void resolved(void *ud, json_t *bounds, int failed, enum error_code code, const char *err)
{
    struct pending *p = ud;
    struct session *s = viewer_the ? viewer_session_find(viewer_the, p->session) : NULL;
    json_t *ids = NULL;
    char *why = NULL;
    if (!bounds) {
        size_t shape = (size_t)json_integer_value(json_array_get(p->index, (size_t)failed));
        why = xasprintf("shapes[%zu].ref: %s", shape, err);
    } else if (!s || s->state != SESSION_LIVE) {
        code = ERROR_SESSION_EXPIRED;
        why = xasprintf("session %s is not live", p->session);
    } else {
        size_t i;
        json_t *b;
        json_array_foreach(bounds, i, b) place(
            json_array_get(p->shapes, (size_t)json_integer_value(json_array_get(p->index, i))), b);
        ids = add(p->app, s, p->shapes, p->ttl_ms, p->one_at_a_time, &code, &why);
    }
    p->done(p->ud, p->session, ids, code, why);
    free(why);
    json_decref(bounds);
    json_decref(p->shapes);
    json_decref(p->refs);
    json_decref(p->index);
    free(p);
}

void overlay_draw(struct app *app, struct session *s, const json_t *shapes, int64_t ttl_ms,
                  bool one_at_a_time, overlay_drawn_fn done, void *ud)
{
    enum error_code code;
    char *err = NULL;
    if (!check(app, s, &code, &err)) {
        done(ud, s->id, NULL, code, err);
        free(err);
        return;
    }
    struct pending *p = xcalloc(1, sizeof *p);
    p->app = app;
    snprintf(p->session, sizeof p->session, "%s", s->id);
    p->shapes = json_deep_copy(shapes);
    p->refs = json_array();
    p->index = json_array();
    p->ttl_ms = ttl_ms;
    p->one_at_a_time = one_at_a_time;
    p->done = done;
    p->ud = ud;
    size_t i;
    json_t *shape;
    json_array_foreach(p->shapes, i, shape)
    {
        json_t *ref = json_object_get(shape, "ref");
        if (json_is_string(ref)) {
            json_array_append(p->refs, ref);
            json_array_append_new(p->index, json_integer((json_int_t)i));
        }
    }
    anchor_resolve(app, s, p->refs, false, resolved, p);
}

static int drop(const char *session, const json_t *ids, bool all, uint64_t expire_before)
{
    json_t *gone = json_array();
    for (struct overlay **p = &overlays; *p;) {
        struct overlay *o = *p;
        bool match = strcmp(o->session, session) == 0;
        if (match && !all) {
            bool listed = false;
            size_t i;
            json_t *v;
            json_array_foreach(ids, i, v) listed |=
                json_is_string(v) && strcmp(json_string_value(v), o->id) == 0;
            match = ids ? listed : o->expire_ms <= expire_before;
        }
        if (match) {
            json_array_append_new(gone, json_string(o->id));
            *p = o->next;
            json_decref(o->shape);
            free(o);
        } else {
            p = &o->next;
        }
    }
    int n = (int)json_array_size(gone);
    if (n && all)
        broadcast(session, json_pack("{s:s, s:s, s:s}", "type", "overlay", "event", "cleared",
                                     "session", session));
    else if (n)
        broadcast(session, json_pack("{s:s, s:s, s:s, s:O}", "type", "overlay", "event", "removed",
                                     "session", session, "ids", gone));
    json_decref(gone);
    return n;
}

int overlay_remove(struct app *app, struct session *s, const json_t *ids, enum error_code *code,
                   char **err)
{
    if (!check(app, s, code, err))
        return -1;
    return drop(s->id, ids, false, 0);
}

int overlay_clear(struct app *app, struct session *s, enum error_code *code, char **err)
{
    if (!check(app, s, code, err))
        return -1;
    return drop(s->id, NULL, true, 0);
}

void overlay_send_current(struct view_client *c)
{
    uint64_t now = uv_now(c->v->app->loop);
    json_t *list = json_array();
    for (struct overlay *o = overlays; o; o = o->next)
        if (strcmp(o->session, c->watching) == 0)
            json_array_append_new(list, to_json(o, now));
    if (!json_array_size(list)) {
        json_decref(list);
        return;
    }
    viewer_client_send_json(c, json_pack("{s:s, s:s, s:s, s:o}", "type", "overlay", "event",
                                         "created", "session", c->watching, "overlays", list));
}

/* A look at where anchored overlays' elements are now. */
struct refresh {
    char session[48];
    json_t *ids;
};

static void refreshed(void *ud, json_t *bounds, int failed, enum error_code code, const char *err)
{
    (void)failed, (void)code, (void)err;
    struct refresh *r = ud;
    struct bucket *b = buckets;
    while (b && strcmp(b->session, r->session) != 0)
        b = b->next;
    if (b)
        b->refreshing = false;
    json_t *list = json_array();
    uint64_t now = viewer_the ? uv_now(viewer_the->app->loop) : 0;
    for (size_t i = 0; bounds && i < json_array_size(r->ids); i++) {
        const char *id = json_string_value(json_array_get(r->ids, i));
        json_t *bi = json_array_get(bounds, i);
        struct overlay *o = overlays;
        while (o && strcmp(o->id, id) != 0)
            o = o->next;
        /* Gone meanwhile, or its element is not showing: it stays where it was. */
        if (!o || !json_is_object(bi))
            continue;
        json_t *moved = json_deep_copy(o->shape);
        place(moved, bi);
        if (!o->monitor_given) {
            json_object_del(moved, "monitor_index");
            set_monitor(moved, viewer_the ? viewer_feed_monitors(viewer_the, r->session) : NULL);
        }
        if (json_equal(moved, o->shape)) {
            json_decref(moved);
            continue;
        }
        json_decref(o->shape);
        o->shape = moved;
        json_array_append_new(list, to_json(o, now));
    }
    if (json_array_size(list))
        broadcast(r->session, json_pack("{s:s, s:s, s:s, s:O}", "type", "overlay", "event",
                                        "updated", "session", r->session, "overlays", list));
    json_decref(list);
    json_decref(bounds);
    json_decref(r->ids);
    free(r);
}

/* Anchored overlays follow their elements: looked at again when the screen
 * a page watches has changed since the last look (at most once a second,
 * one look per session at a time; a still screen costs nothing). */
static void refresh(struct viewer *v)
{
    uint64_t now = uv_now(v->app->loop);
    for (struct bucket *b = buckets; b; b = b->next) {
        if (b->refreshing || viewer_feed_changed_ms(v, b->session) <= b->refreshed_ms)
            continue;
        struct session *s = viewer_session_find(v, b->session);
        if (!s || s->state != SESSION_LIVE)
            continue;
        json_t *ids = json_array(), *refs = json_array();
        for (struct overlay *o = overlays; o; o = o->next) {
            json_t *ref = json_object_get(o->shape, "ref");
            if (strcmp(o->session, b->session) == 0 && json_is_string(ref)) {
                json_array_append_new(ids, json_string(o->id));
                json_array_append(refs, ref);
            }
        }
        b->refreshed_ms = now;
        if (json_array_size(ids)) {
            struct refresh *r = xcalloc(1, sizeof *r);
            snprintf(r->session, sizeof r->session, "%s", b->session);
            r->ids = ids;
            b->refreshing = true;
            anchor_resolve(v->app, s, refs, true, refreshed, r);
        } else {
            json_decref(ids);
        }
        json_decref(refs);
    }
}

void overlay_sweep(struct viewer *v)
{
    uint64_t now = uv_now(v->app->loop);
    /* Each session with something expired or ended, once. */
    for (;;) {
        struct overlay *o = overlays;
        while (o) {
            struct session *s = viewer_session_find(v, o->session);
            if (o->expire_ms <= now || !s || s->state != SESSION_LIVE)
                break;
            o = o->next;
        }
        if (!o)
            break;
        char session[48];
        snprintf(session, sizeof session, "%s", o->session);
        struct session *s = viewer_session_find(v, session);
        if (!s || s->state != SESSION_LIVE)
            drop(session, NULL, true, 0);
        else
            drop(session, NULL, false, now);
    }
    refresh(v);
}

void overlay_finish(void)
{
    while (overlays) {
        struct overlay *o = overlays;
        overlays = o->next;
        json_decref(o->shape);
        free(o);
    }
    while (buckets) {
        struct bucket *b = buckets;
        buckets = b->next;
        free(b);
    }
}
