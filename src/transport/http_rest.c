/* The REST API under /v1 (docs/rest.md): sessions started, kept alive and
 * ended over plain HTTP, their tools called (http_rest_call.c), their events
 * streamed, and the OpenAPI document (http_rest_openapi.c). Every holder of
 * the token is one client here (SESSION_OWNER_REST); shared sessions of
 * /mcp clients are reachable too. */
#define LOG_MODULE "rest"
#include "transport/http_rest.h"
#include "backend/backend.h"
#include "core/json_in.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "session/session.h"
#include "store/audit_db.h"
#include "store/session_table.h"

#include <stdio.h>
#include <string.h>

/* Sessions started over /v1: their idle timeout. */
struct rest_sess {
    char id[48];
    int idle_s;
    uint64_t last_ms; /* uv_now of the last call or keepalive */
    struct rest_sess *next;
};

/* A GET /v1/sessions/{id}/events stream. */
struct rest_watch {
    struct rest *r;
    struct http_req *req;
    char id[48];
    struct rest_watch *next;
};

struct rest {
    struct http_transport *t;
    struct rest_sess *sessions;
    struct rest_watch *watches;
};

#define MAX_IDLE_S (7 * 24 * 3600)

bool http_rest_path(const char *path)
{
    return strncmp(path, "/v1", 3) == 0 && (path[3] == '\0' || path[3] == '/');
}

static struct rest_sess *sess_find(struct rest *r, const char *id)
{
    for (struct rest_sess *rs = r->sessions; rs; rs = rs->next)
        if (strcmp(rs->id, id) == 0)
            return rs;
    return NULL;
}

static void sess_forget(struct rest *r, const char *id)
{
    for (struct rest_sess **pp = &r->sessions; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->id, id) == 0) {
            struct rest_sess *dead = *pp;
            *pp = dead->next;
            free(dead);
            return;
        }
    }
}

/* The session's idle timeout entry, made or found; idle_s set. */
static struct rest_sess *sess_add(struct rest *r, const char *id, int idle_s)
{
    struct rest_sess *rs = sess_find(r, id);
    if (!rs) {
        rs = xcalloc(1, sizeof *rs);
        snprintf(rs->id, sizeof rs->id, "%s", id);
        rs->next = r->sessions;
        r->sessions = rs;
    }
    rs->idle_s = idle_s;
    rs->last_ms = uv_now(r->t->app->loop);
    return rs;
}

void rest_touch(struct http_transport *t, const char *id)
{
    struct rest_sess *rs = t->rest ? sess_find(t->rest, id) : NULL;
    if (rs)
        rs->last_ms = uv_now(t->app->loop);
    if (t->app->session_table)
        session_table_touch(t->app->session_table, id, audit_now_ms());
}

/* A live session as the API shows it: the registry's view, the table's
 * times, the idle timeout. */
static json_t *session_json(struct rest *r, struct session *s)
{
    json_t *o = session_to_json(s);
    const struct session_row *row =
        r->t->app->session_table ? session_table_find(r->t->app->session_table, s->id) : NULL;
    if (row) {
        json_t *rj = session_row_json(row);
        json_object_del(rj, "state"); /* the registry's is the current one */
        json_object_update_missing(o, rj);
        json_decref(rj);
    }
    json_object_set_new(o, "shared", json_boolean(s->shared));
    struct rest_sess *rs = sess_find(r, s->id);
    if (rs)
        json_object_set_new(o, "idle_s", json_integer(rs->idle_s));
    return o;
}

/* Events. */

static void watch_emit(struct rest_watch *w, const char *stage, json_t *payload)
{
    json_t *o = json_pack("{s:s, s:s, s:o}", "stage", stage, "session", w->id, "payload", payload);
    char *data = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    char *ev = xasprintf("event: %s\ndata: %s\n\n", stage, data);
    http_req_write(w->req, ev, strlen(ev));
    free(ev);
    free(data);
}

static void watch_unlink(struct rest_watch *w)
{
    for (struct rest_watch **pp = &w->r->watches; *pp; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            return;
        }
    }
}

static void watch_detached(struct http_req *req)
{
    struct rest_watch *w = req->owner;
    watch_unlink(w);
    free(w);
}

static void watch_end(struct rest_watch *w)
{
    w->req->owner = NULL;
    w->req->on_detach = NULL;
    http_req_end(w->req);
    watch_unlink(w);
    free(w);
}

static bool ended_idle(const struct session *s)
{
    return s->end_reason && strncmp(s->end_reason, "idle_timeout", 12) == 0;
}

/* The registry's news: streams hear it, ended sessions lose their timeout. */
static void changed(void *ud, struct session *s)
{
    struct rest *r = ud;
    const char *stage = s->state == SESSION_LIVE    ? "started"
                        : s->state == SESSION_ENDED ? (ended_idle(s) ? "expired" : "ended")
                                                    : NULL;
    if (!stage)
        return;
    for (struct rest_watch *w = r->watches, *next; w; w = next) {
        next = w->next;
        if (strcmp(w->id, s->id) != 0)
            continue;
        watch_emit(w, stage, session_json(r, s));
        if (s->state == SESSION_ENDED)
            watch_end(w);
    }
    if (s->state == SESSION_ENDED)
        sess_forget(r, s->id);
    /* Every session a REST caller starts gets an idle timeout, also one
     * whose POST /v1/sessions lost its client, or one started by calling a
     * start tool on another session; POST /v1/sessions then sets its own. */
    if (s->state == SESSION_LIVE && s->owner && strcmp(s->owner, SESSION_OWNER_REST) == 0)
        sess_add(r, s->id, r->t->opts.session_idle_s);
}

/* A person took control of a session in the viewer, or handed it back:
 * its event streams hear it. */
static void session_event_heard(void *ud, struct session *s, const json_t *e)
{
    struct rest *r = ud;
    const char *type = json_string_value(json_object_get(e, "type"));
    const char *stage = !strcmp(type, "person_took_control")          ? "taken_over"
                        : !strcmp(type, "person_handed_back_control") ? "handed_back"
                                                                      : NULL;
    if (!stage)
        return;
    for (struct rest_watch *w = r->watches; w; w = w->next)
        if (!strcmp(w->id, s->id))
            watch_emit(w, stage, json_deep_copy(e));
}

/* Finding sessions. */

/* The ended session id as the table has it, if this client may see it. */
static const struct session_row *ended_row(struct rest *r, const char *id)
{
    const struct session_row *row =
        r->t->app->session_table ? session_table_find(r->t->app->session_table, id) : NULL;
    if (!row || strcmp(row->state, "ended") != 0)
        return NULL;
    return strcmp(row->owner, "rest") == 0 || row->shared ? row : NULL;
}

/* The session named in the path. live: it must be usable (410 when it
 * ended). NULL after answering. */
static struct session *find_session(struct rest *r, struct http_req *req, const char *id, bool live)
{
    char *err = NULL;
    struct session *s = session_resolve(r->t->app->sessions, SESSION_OWNER_REST, id, &err);
    free(err);
    if (s && strcmp(s->id, id) != 0 && (!s->name || strcmp(s->name, id) != 0))
        s = NULL;
    if (s && (!live || s->state == SESSION_LIVE || s->state == SESSION_STARTING))
        return s;
    const struct session_row *row = ended_row(r, id);
    if (s || row) {
        const char *why = s                    ? (s->end_reason ? s->end_reason : "it is stopping")
                          : row->end_reason[0] ? row->end_reason
                                               : "ended";
        rest_fail(req, 410, ERROR_SESSION_EXPIRED, "session %s has ended: %s", s ? s->id : row->id,
                  why);
        return NULL;
    }
    rest_fail(req, 404, ERROR_NOT_FOUND,
              "no session %.64s (GET /v1/sessions lists the sessions this client may reach)", id);
    return NULL;
}

/* Bodies. */

/* The request body as an object ({} when empty). NULL after answering 400.
 * allowed: the fields it may have. */
static json_t *read_body(struct http_req *req, const char *const *allowed)
{
    if (!req->body.len)
        return json_object();
    json_error_t jerr;
    json_t *body = json_in_loadb(req->body.data, req->body.len, JSON_REJECT_DUPLICATES, &jerr);
    if (!body) {
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT,
                  "the body is not valid JSON: %s (line %d, column %d)", jerr.text, jerr.line,
                  jerr.column);
        return NULL;
    }
    if (!json_is_object(body)) {
        json_decref(body);
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT, "the body must be a JSON object");
        return NULL;
    }
    const char *key;
    json_t *v;
    json_object_foreach(body, key, v)
    {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         a == allowed ? "" : ", ", *a);
            rest_fail(req, 400, ERROR_INVALID_ARGUMENT, "%.100s: unknown field (expected %s)", key,
                      list);
            json_decref(body);
            return NULL;
        }
    }
    return body;
}

/* body.arguments: an object (a new reference; {} when absent). NULL after
 * answering. The body was just parsed and is the caller's alone, so the
 * object is taken as it is, not copied, and may be changed. */
static json_t *arguments_of(struct http_req *req, const json_t *body)
{
    json_t *a = json_object_get(body, "arguments");
    if (a && !json_is_object(a)) {
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT, "arguments: expected an object");
        return NULL;
    }
    return a ? json_incref(a) : json_object();
}

/* POST /v1/sessions. */

static const struct backend_kind *kind_named(const char *name)
{
    int n;
    const struct backend_kind *kinds = backend_kinds(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(kinds[i].kind, name) == 0)
            return &kinds[i];
    return NULL;
}

static void fail_kind(struct http_req *req, const char *given)
{
    int n;
    const struct backend_kind *kinds = backend_kinds(&n);
    char list[256] = "";
    for (int i = 0; i < n; i++)
        if (kinds[i].module && kinds[i].tools && kinds[i].tools[0])
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                     kinds[i].kind);
    const struct backend_kind *k = given ? kind_named(given) : NULL;
    if (k)
        rest_fail(req, 400, ERROR_NOT_SUPPORTED,
                  "kind: %s sessions are not in this build (this build has: %s)", given, list);
    else
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT, "kind: expected one of %s%s%.40s%s", list,
                  given ? ", got \"" : "", given ? given : "", given ? "\"" : "");
}

static void create_session(struct rest *r, struct http_req *req)
{
    static const char *const fields[] = {"kind",   "arguments",      "name", "idle_s",
                                         "shared", "correlation_id", NULL};
    json_t *body = read_body(req, fields);
    if (!body)
        return;
    char cid[REST_CID_MAX];
    json_t *args = NULL;
    const char *kind = json_string_value(json_object_get(body, "kind"));
    const json_t *name = json_object_get(body, "name");
    const json_t *idle = json_object_get(body, "idle_s");
    const json_t *shared = json_object_get(body, "shared");
    const struct backend_kind *k = kind ? kind_named(kind) : NULL;
    if (!rest_correlation_id(req, body, cid)) {
        /* answered */
    } else if (!k || !k->module || !k->tools || !k->tools[0]) {
        fail_kind(req, kind);
    } else if (name && !json_is_string(name)) {
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT, "name: expected a string");
    } else if (idle && (!json_is_integer(idle) || json_integer_value(idle) < 1 ||
                        json_integer_value(idle) > MAX_IDLE_S)) {
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT,
                  "idle_s: expected a whole number of seconds from 1 to %d", MAX_IDLE_S);
    } else if (shared && !json_is_boolean(shared)) {
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT, "shared: expected true or false");
    } else if ((args = arguments_of(req, body))) {
        if (name)
            json_object_set(args, "name", (json_t *)name);
        if (shared)
            json_object_set(args, "shared", (json_t *)shared);
        int idle_s = idle ? (int)json_integer_value(idle) : r->t->opts.session_idle_s;
        rest_call_start(r->t, req, k->tools[0]->name, args, cid, "", false, rest_session_started,
                        idle_s);
    }
    json_decref(body);
}

void rest_session_started(struct rest_call *call, const json_t *result, const json_t *rpc_error)
{
    struct rest *r = call->t->rest;
    int status;
    json_t *body = rest_call_body(call, result, rpc_error, &status);
    const char *st = json_string_value(json_object_get(body, "status"));
    if (status == 200 && st && strcmp(st, "failed") == 0) {
        /* A start that ran and failed is no session: a refusal. */
        json_t *err = json_object_get(body, "error");
        status = rest_status_of(rest_code_named(json_string_value(json_object_get(err, "code"))));
        json_object_del(body, "status");
    }
    const char *id =
        json_string_value(json_object_get(json_object_get(result, "structuredContent"), "id"));
    char *err = NULL;
    struct session *s = status == 200 && id && r
                            ? session_resolve(r->t->app->sessions, SESSION_OWNER_REST, id, &err)
                            : NULL;
    free(err);
    if (!s) {
        if (status == 200)
            status = 500;
        rest_json(call->req, status, body);
        return;
    }
    json_decref(body);
    struct rest_sess *rs = sess_add(r, s->id, call->idle_s);
    log_info("session %s started over /v1 (idle_s %d)", s->id, rs->idle_s);
    char *loc = xasprintf("/v1/sessions/%s", s->id);
    http_req_header(call->req, "location", loc);
    free(loc);
    json_t *o = session_json(r, s);
    json_object_set_new(o, "correlation_id", json_string(call->cid));
    rest_json(call->req, 201, o);
}

/* GET /v1/sessions. */

static void list_sessions(struct rest *r, struct http_req *req)
{
    bool all = false;
    if (req->query[0]) {
        if (strcmp(req->query, "state=all") == 0) {
            all = true;
        } else if (strcmp(req->query, "state=live") != 0) {
            rest_fail(req, 400, ERROR_INVALID_ARGUMENT,
                      "state: expected live (the default) or all, in the query \"%.100s\"",
                      req->query);
            return;
        }
    }
    json_t *reg = session_registry_list(r->t->app->sessions, SESSION_OWNER_REST, false);
    json_t *out = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(reg, i, v)
    {
        char *err = NULL;
        struct session *s = session_resolve(r->t->app->sessions, SESSION_OWNER_REST,
                                            json_string_value(json_object_get(v, "id")), &err);
        free(err);
        if (s)
            json_array_append_new(out, session_json(r, s));
    }
    json_decref(reg);
    if (all && r->t->app->session_table) {
        json_t *ended = session_table_list_ended(r->t->app->session_table);
        json_array_foreach(ended, i, v)
        {
            const char *door = json_string_value(json_object_get(v, "front_door"));
            if ((door && strcmp(door, "rest") == 0) || json_is_true(json_object_get(v, "shared")))
                json_array_append(out, v);
        }
        json_decref(ended);
    }
    rest_json(req, 200, json_pack("{s:o}", "sessions", out));
}

/* /v1/sessions/{id}… */

static void session_events(struct rest *r, struct http_req *req, struct session *s)
{
    struct rest_watch *w = xcalloc(1, sizeof *w);
    w->r = r;
    w->req = req;
    snprintf(w->id, sizeof w->id, "%s", s->id);
    w->next = r->watches;
    r->watches = w;
    req->owner = w;
    req->on_detach = watch_detached;
    http_req_stream(req);
    watch_emit(w, "state", session_json(r, s));
}

static void call_tool(struct rest *r, struct http_req *req, struct session *s, const char *tool)
{
    static const char *const fields[] = {"arguments", "correlation_id", NULL};
    json_t *body = read_body(req, fields);
    if (!body)
        return;
    char cid[REST_CID_MAX];
    json_t *args = NULL;
    const struct tool_entry *e = registry_find(tool);
    const json_t *props = e ? json_object_get(e->input_schema, "properties") : NULL;
    const json_t *given = NULL;
    if (!rest_correlation_id(req, body, cid)) {
        /* answered */
    } else if (!e) {
        const char *why = registry_absent_why(tool);
        if (why)
            rest_fail(req, 404, ERROR_NOT_FOUND, "no tool %.64s: it is %s", tool, why);
        else
            rest_fail(req, 404, ERROR_NOT_FOUND,
                      "no tool %.64s (GET /v1/openapi.json lists the tools)", tool);
    } else if ((args = arguments_of(req, body))) {
        given = json_object_get(args, "session");
        if (given && (!json_is_string(given) || strcmp(json_string_value(given), s->id) != 0)) {
            rest_fail(req, 400, ERROR_INVALID_ARGUMENT,
                      "arguments.session: the path names the session (%s); leave it out", s->id);
            json_decref(args);
        } else {
            if (json_object_get(props, "session"))
                json_object_set_new(args, "session", json_string(s->id));
            rest_touch(r->t, s->id);
            bool sse = req->accept && strstr(req->accept, "text/event-stream");
            rest_call_start(r->t, req, tool, args, cid, s->id, sse, NULL, 0);
        }
    }
    json_decref(body);
}

static void allow(struct http_req *req, const char *methods, const char *path)
{
    http_req_header(req, "allow", methods);
    rest_fail(req, 405, ERROR_INVALID_ARGUMENT, "%s takes %s", path, methods);
}

static void session_route(struct rest *r, struct http_req *req, const char *rest_of_path)
{
    char id[64];
    size_t n = strcspn(rest_of_path, "/");
    if (n == 0 || n >= sizeof id) {
        rest_fail(req, 404, ERROR_NOT_FOUND, "no session %.64s", rest_of_path);
        return;
    }
    memcpy(id, rest_of_path, n);
    id[n] = '\0';
    const char *sub = rest_of_path + n;
    enum http_method m = req->method;
    if (!*sub) {
        if (m != HTTP_GET && m != HTTP_DELETE) {
            allow(req, "GET, DELETE", "/v1/sessions/{id}");
            return;
        }
        if (m == HTTP_GET) {
            /* An ended session is still described, from the table once the
             * registry has let it go. */
            char *err = NULL;
            struct session *s = session_resolve(r->t->app->sessions, SESSION_OWNER_REST, id, &err);
            free(err);
            const struct session_row *row = ended_row(r, id);
            if (s && strcmp(s->id, id) == 0) {
                rest_json(req, 200, session_json(r, s));
                return;
            }
            if (row) {
                rest_json(req, 200, session_row_json(row));
                return;
            }
        }
        struct session *s = find_session(r, req, id, true);
        if (!s)
            return;
        log_info("session %s stopped over /v1 by %s", s->id, req->remote);
        session_stop(s, "stopped over /v1 (DELETE)");
        http_req_respond(req, 204, NULL, NULL, 0);
    } else if (strcmp(sub, "/keepalive") == 0) {
        if (m != HTTP_POST) {
            allow(req, "POST", "/v1/sessions/{id}/keepalive");
            return;
        }
        struct session *s = find_session(r, req, id, true);
        if (!s)
            return;
        rest_touch(r->t, s->id);
        rest_json(req, 200, session_json(r, s));
    } else if (strcmp(sub, "/events") == 0) {
        if (m != HTTP_GET) {
            allow(req, "GET", "/v1/sessions/{id}/events");
            return;
        }
        struct session *s = find_session(r, req, id, true);
        if (s)
            session_events(r, req, s);
    } else if (strncmp(sub, "/tools/", 7) == 0 && sub[7] && !strchr(sub + 7, '/')) {
        if (m != HTTP_POST) {
            allow(req, "POST", "/v1/sessions/{id}/tools/{tool}");
            return;
        }
        if (!registry_find(sub + 7)) {
            rest_fail(req, 404, ERROR_NOT_FOUND,
                      "no tool %.64s (GET /v1/openapi.json lists the tools)", sub + 7);
            return;
        }
        struct session *s = find_session(r, req, id, true);
        if (s)
            call_tool(r, req, s, sub + 7);
    } else {
        rest_fail(req, 404, ERROR_NOT_FOUND, "no such path: %.200s", req->path);
    }
}

void http_rest_handle(struct http_req *req)
{
    struct rest *r = req->t->rest;
    if (!r || !req->t->app->sessions) {
        rest_fail(req, 503, ERROR_DEVICE_UNAVAILABLE, "the REST API is not running");
        return;
    }
    const char *p = req->path;
    if (strcmp(p, "/v1/openapi.json") == 0) {
        if (req->method != HTTP_GET) {
            allow(req, "GET", "/v1/openapi.json");
            return;
        }
        rest_json(req, 200, rest_openapi(req->t));
    } else if (strcmp(p, "/v1/sessions") == 0 || strcmp(p, "/v1/sessions/") == 0) {
        if (req->method == HTTP_GET)
            list_sessions(r, req);
        else if (req->method == HTTP_POST)
            create_session(r, req);
        else
            allow(req, "GET, POST", "/v1/sessions");
    } else if (strncmp(p, "/v1/sessions/", 13) == 0) {
        session_route(r, req, p + 13);
    } else {
        rest_fail(req, 404, ERROR_NOT_FOUND,
                  "no such path: %.200s (the API is /v1/sessions; /v1/openapi.json describes it)",
                  p);
    }
}

/* Idle sessions end. Ids are gathered first: stopping a session may end it
 * at once, which removes its entry from the list being walked. */
void http_rest_sweep(struct http_transport *t)
{
    struct rest *r = t->rest;
    if (!r)
        return;
    /* Calls note their session's last activity in memory only; it goes to
     * disk from here, not once a call. */
    session_table_flush(t->app->session_table, audit_now_ms());
    uint64_t now = uv_now(t->app->loop);
    char ids[16][48];
    int n = 0;
    for (struct rest_sess *rs = r->sessions; rs && n < 16; rs = rs->next)
        if (now - rs->last_ms >= (uint64_t)rs->idle_s * 1000)
            snprintf(ids[n++], sizeof ids[0], "%s", rs->id);
    for (int i = 0; i < n; i++) {
        struct rest_sess *rs = sess_find(r, ids[i]);
        char *err = NULL;
        struct session *s = session_resolve(t->app->sessions, SESSION_OWNER_REST, ids[i], &err);
        free(err);
        if (!s || s->state != SESSION_LIVE || strcmp(s->id, ids[i]) != 0) {
            if (!s || s->state == SESSION_ENDED)
                sess_forget(r, ids[i]);
            continue;
        }
        if (s->in_use > 0) {
            /* A call is working on it (a long wait_for, from either front
             * door): that is activity, and its end starts the clock anew. */
            rs->last_ms = now;
            continue;
        }
        log_info("session %s idle for %d s: ending it", s->id, rs->idle_s);
        char *why = xasprintf("idle_timeout: no call for %d s (idle_s)", rs->idle_s);
        session_stop(s, why);
        free(why);
    }
}

struct rest *http_rest_create(struct http_transport *t)
{
    struct rest *r = xcalloc(1, sizeof *r);
    r->t = t;
    if (t->app->sessions) {
        session_registry_listen(t->app->sessions, changed, r);
        session_registry_listen_events(t->app->sessions, session_event_heard, r);
    }
    return r;
}

void http_rest_destroy(struct rest *r)
{
    if (!r)
        return;
    if (r->t->app->sessions) {
        session_registry_unlisten(r->t->app->sessions, changed, r);
        session_registry_unlisten_events(r->t->app->sessions, session_event_heard, r);
    }
    while (r->watches)
        watch_end(r->watches);
    while (r->sessions)
        sess_forget(r, r->sessions->id);
    free(r);
}
