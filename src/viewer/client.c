/* One viewer page on its WebSocket: what it may see (its grant), the
 * session it watches, and the messages both ways (docs/viewer.md "The
 * WebSocket"). A page that misbehaves is closed; the others never notice. */
#define LOG_MODULE "viewer"
#include "backend/backend.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "policy/pause.h"
#include "policy/policy.h"
#include "session/session.h"
#include "viewer/internal.h"
#include "viewer/overlay.h"
#include "viewer/ws.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *state_name(enum session_state s)
{
    switch (s) {
    case SESSION_STARTING:
        return "starting";
    case SESSION_LIVE:
        return "live";
    case SESSION_STOPPING:
        return "stopping";
    default:
        return "ended";
    }
}

static bool may_see(const struct view_client *c, const struct session *s)
{
    return !c->grant.session[0] || strcmp(c->grant.session, s->id) == 0;
}

void viewer_client_send_json(struct view_client *c, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    ws_send(c->ws, true, text, strlen(text));
    free(text);
}

static void send_error(struct view_client *c, const char *msg)
{
    viewer_client_send_json(c, json_pack("{s:s, s:s}", "type", "error", "message", msg));
}

/* The sessions this page may see; sent only when it changed, so a still
 * server sends nothing. */
static void send_list(struct view_client *c)
{
    json_t *arr = json_array();
    for (struct session *s = session_registry_first(c->v->app->sessions); s; s = s->next) {
        if (!may_see(c, s))
            continue;
        json_t *o = json_pack("{s:s, s:s, s:s}", "id", s->id, "kind", s->impl->kind, "state",
                              state_name(s->state));
        if (s->name)
            json_object_set_new(o, "name", json_string(s->name));
        json_array_append_new(arr, o);
    }
    struct app *app = c->v->app;
    json_t *msg = json_pack("{s:s, s:o, s:b, s:s?}", "type", "sessions", "sessions", arr, "paused",
                            app->paused_since_ms != 0, "mode",
                            app->policy ? policy_mode_name(policy_mode(app->policy)) : NULL);
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (c->last_list && strcmp(c->last_list, text) == 0) {
        free(text);
        return;
    }
    ws_send(c->ws, true, text, strlen(text));
    free(c->last_list);
    c->last_list = text;
}

void viewer_send_replay(struct view_client *c, struct session *s)
{
    size_t len;
    int cols, rows;
    char *bytes = s->impl->view_replay(s, &len, &cols, &rows);
    viewer_client_send_json(c, json_pack("{s:s, s:s, s:i, s:i}", "type", "screen", "session", s->id,
                                         "cols", cols, "rows", rows));
    static const uint8_t type = 2;
    ws_send2(c->ws, &type, 1, bytes, len);
    free(bytes);
    c->needs_replay = false;
}

static void stop_watching(struct view_client *c)
{
    viewer_control_left(c);
    viewer_feed_leave(c);
    c->watching[0] = '\0';
    c->terminal = false;
    c->needs_replay = false;
}

static void watch(struct view_client *c, const char *id)
{
    stop_watching(c);
    struct session *s = id ? viewer_session_find(c->v, id) : NULL;
    if (!s || !may_see(c, s)) {
        send_error(c, "watch: no such session (or this link does not show it)");
        return;
    }
    if (s->state != SESSION_LIVE) {
        send_error(c, "watch: the session is not live");
        return;
    }
    snprintf(c->watching, sizeof c->watching, "%s", s->id);
    if (s->impl->view_replay) {
        c->terminal = true;
        viewer_client_send_json(c, json_pack("{s:s, s:s, s:s}", "type", "watching", "session",
                                             s->id, "kind", s->impl->kind));
        viewer_send_replay(c, s);
        overlay_send_current(c);
        viewer_control_send_state(c);
        return;
    }
    char *err = NULL;
    if (!s->impl->view_frames) {
        c->watching[0] = '\0';
        send_error(c, "watch: this kind of session cannot be shown yet");
        return;
    }
    viewer_client_send_json(c, json_pack("{s:s, s:s, s:s}", "type", "watching", "session", s->id,
                                         "kind", s->impl->kind));
    if (!viewer_feed_join(c->v, c, s, &err)) {
        c->watching[0] = '\0';
        send_error(c, err);
        free(err);
        return;
    }
    overlay_send_current(c);
    viewer_control_send_state(c);
}

static void on_message(struct ws *ws, bool text, const char *data, size_t len, void *ud)
{
    struct view_client *c = ud;
    if (!text) {
        ws_close(ws, 1003, "expected text (JSON) messages");
        return;
    }
    json_error_t jerr;
    json_t *m = json_loadb(data, len, 0, &jerr);
    const char *type = json_string_value(json_object_get(m, "type"));
    if (!type) {
        json_decref(m);
        ws_close(ws, 1007, "expected a JSON object with a \"type\"");
        return;
    }
    if (strcmp(type, "watch") == 0) {
        watch(c, json_string_value(json_object_get(m, "session")));
    } else if (strcmp(type, "unwatch") == 0) {
        stop_watching(c);
    } else if (strcmp(type, "stop") == 0 || strcmp(type, "resume") == 0) {
        bool stop = type[0] == 's';
        /* Stopping only ever takes power away: approve may; resuming gives
         * it back: control only. */
        if (c->grant.role < (stop ? VIEW_APPROVE : VIEW_CONTROL)) {
            send_error(c, stop ? "stop: this link may only watch (role approve or control can stop)"
                               : "resume: only a control link can resume");
        } else {
            log_info("viewer link %s (%s): %s", c->grant.link_id, view_role_name(c->grant.role),
                     stop ? "stopped input (paused)" : "resumed input");
            pause_set(c->v->app, stop);
            viewer_clients_sweep(c->v); /* every page shows it now */
        }
    } else if (strcmp(type, "take") == 0) {
        viewer_control_take(c);
    } else if (strcmp(type, "handback") == 0) {
        viewer_control_handback(c, json_string_value(json_object_get(m, "note")));
    } else if (strcmp(type, "input") == 0) {
        const char *d = json_string_value(json_object_get(m, "data"));
        if (d)
            viewer_control_input(c, d, json_string_length(json_object_get(m, "data")));
    } else if (strcmp(type, "pointer") == 0 || strcmp(type, "key") == 0) {
        viewer_control_event(c, m);
    } else if (strcmp(type, "answer") == 0) {
        viewer_card_answer(c, json_string_value(json_object_get(m, "id")),
                           json_is_true(json_object_get(m, "approve")));
    } else if (strcmp(type, "ack") == 0) {
        json_t *seq = json_object_get(m, "seq");
        if (json_is_integer(seq))
            viewer_feed_ack(c, (uint32_t)json_integer_value(seq));
    } else {
        send_error(c, "unknown message type (expected watch, unwatch, ack, answer, take, handback, "
                      "input, key, pointer, stop or resume)");
    }
    json_decref(m);
}

static void on_closed(struct ws *ws, void *ud)
{
    (void)ws;
    struct view_client *c = ud;
    struct viewer *v = c->v;
    viewer_control_left(c);
    viewer_feed_leave(c);
    for (struct view_client **p = &v->clients; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    v->n_clients--;
    free(c->last_list);
    free(c);
    viewer_release(v);
}

static const struct ws_handlers handlers = {.message = on_message, .closed = on_closed};

/* A new page on ws: told who it is, the sessions and open questions. */
static void welcome(struct view_client *c)
{
    struct viewer *v = c->v;
    c->next = v->clients;
    v->clients = c;
    v->n_clients++;
    viewer_client_send_json(c, json_pack("{s:s, s:s, s:s, s:I}", "type", "hello", "role",
                                         view_role_name(c->grant.role), "session", c->grant.session,
                                         "expires_in",
                                         (json_int_t)(c->grant.expires - (int64_t)time(NULL))));
    send_list(c);
    viewer_cards_send(c);
}

static struct view_client *client_new(struct viewer *v, const struct view_grant *g)
{
    struct view_client *c = xcalloc(1, sizeof *c);
    c->v = v;
    c->grant = *g;
    c->grant.next = NULL;
    return c;
}

void viewer_client_open(struct viewer *v, int fd, const char *key, const char *in, size_t n,
                        const struct view_grant *g)
{
    struct view_client *c = client_new(v, g);
    char *err = NULL;
    c->ws = ws_create(v->app->loop, fd, key, VIEW_PROTOCOL, in, n, &handlers, c, &err);
    if (!c->ws) {
        log_warn("viewer: %s", err);
        free(err);
        free(c);
        return;
    }
    welcome(c);
    /* Last: it may answer (or close) c. */
    ws_start(c->ws);
}

struct ws *viewer_client_open_lws(struct viewer *v, struct ws_lws *l, const struct view_grant *g)
{
    struct view_client *c = client_new(v, g);
    c->ws = ws_create_lws(v->app->loop, l, &handlers, c);
    welcome(c);
    return c->ws;
}

void viewer_clients_sweep(struct viewer *v)
{
    overlay_sweep(v);
    viewer_control_sweep(v);
    for (struct view_client *c = v->clients; c; c = c->next) {
        if (ws_closing(c->ws))
            continue;
        const char *why;
        if (!viewer_grant_valid(v, &c->grant, &why)) {
            ws_close(c->ws, 4001, why);
            continue;
        }
        send_list(c);
        if (c->watching[0]) {
            struct session *s = viewer_session_find(v, c->watching);
            if (!s || s->state != SESSION_LIVE) {
                viewer_client_send_json(
                    c,
                    json_pack("{s:s, s:s, s:s}", "type", "ended", "session", c->watching, "reason",
                              s && s->end_reason ? s->end_reason : "the session ended"));
                stop_watching(c);
            } else if (c->terminal && c->needs_replay && ws_queued(c->ws) < 65536) {
                viewer_send_replay(c, s);
            }
        }
    }
}

void viewer_clients_close_all(struct viewer *v)
{
    for (struct view_client *c = v->clients; c; c = c->next)
        ws_close(c->ws, 1001, "the server is shutting down");
}
