/* Overlays (overlay.h): kept per session in the viewer, mirrored to every
 * page that watches the session as created / removed / cleared messages. */
#include "viewer/overlay.h"

#include "core/xmalloc.h"
#include "session/session.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct overlay {
    char id[24];
    char session[48];
    json_t *shape;
    uint64_t show_ms, expire_ms; /* uv_now times */
    struct overlay *next;
};

struct bucket {
    char session[48];
    double tokens;
    uint64_t at_ms;
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

json_t *overlay_draw(struct app *app, struct session *s, const json_t *shapes, int64_t ttl_ms,
                     bool one_at_a_time, enum error_code *code, char **err)
{
    if (!check(app, s, code, err))
        return NULL;
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
