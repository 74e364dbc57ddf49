/* MCP sessions over HTTP (protocol 2025-03-26 … 2025-11-25, and the
 * 2024-11-05 HTTP+SSE transport): one protocol connection per session, named
 * by an unguessable MCP-Session-Id, ended by DELETE, by the client leaving
 * (2024-11-05) or by staying idle too long. Screen sessions are not tied to
 * MCP sessions: a client that reconnects can go on using them. */
#define LOG_MODULE "http"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/server.h"
#include "session/session.h"
#include "transport/http_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

/* Beyond this, new sessions are refused (503) until old ones end. */
#define MAX_SESSIONS 4096

char http_no_answer;

struct doomed_conn {
    struct mcp_conn *conn;
    struct doomed_conn *next;
};

static bool random_id(char *out, size_t cap)
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        return false;
    for (size_t i = 0; i < sizeof b && 2 * i + 2 < cap; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return true;
}

static struct mcp_session **bucket(struct http_transport *t, const char *id)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 16777619u;
    return &t->session_index[h & (SESSION_INDEX_SIZE - 1)];
}

struct mcp_session *session_open(struct http_transport *t, bool legacy, const char *remote)
{
    if (t->n_sessions >= MAX_SESSIONS)
        return NULL;
    struct mcp_session *s = xcalloc(1, sizeof *s);
    if (!random_id(s->id, sizeof s->id)) {
        free(s);
        return NULL;
    }
    s->t = t;
    s->legacy = legacy;
    s->last_used_ms = uv_now(t->app->loop);
    struct mcp_transport tr = {
        .name = "http", .send = http_conn_send, .disconnect = http_conn_disconnect, .ud = s};
    s->conn = mcp_conn_create(t->app, &tr);
    mcp_conn_set_peer(s->conn, remote, s->id);
    s->next = t->sessions;
    t->sessions = s;
    struct mcp_session **b = bucket(t, s->id);
    s->index_next = *b;
    *b = s;
    t->n_sessions++;
    log_info("MCP session %.8s… opened for %s%s", s->id, remote, legacy ? " (HTTP+SSE)" : "");
    return s;
}

struct mcp_session *session_lookup(struct http_transport *t, const char *id)
{
    for (struct mcp_session *s = *bucket(t, id); s; s = s->index_next)
        if (!s->doomed && strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

void session_close(struct mcp_session *s)
{
    struct http_transport *t = s->t;
    /* Whatever the teardown below sets off must not queue s for a later
     * close: it is freed here. */
    s->doomed = true;
    for (struct mcp_session **pp = &t->sessions; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    for (struct mcp_session **pp = &t->doomed; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    for (struct mcp_session **pp = bucket(t, s->id); *pp; pp = &(*pp)->index_next) {
        if (*pp == s) {
            *pp = s->index_next;
            break;
        }
    }
    t->n_sessions--;
    /* Its screen sessions go with it (unless shared): nobody else can reach
     * them. At shutdown they are already stopping. */
    int released = session_registry_release_owner(t->app->sessions, s->id);
    if (released)
        log_info("MCP session %.8s… closed: stopping the %d screen session(s) it started", s->id,
                 released);
    /* Requests in flight end silently; then the streams go. */
    mcp_conn_destroy(s->conn);
    s->conn = NULL;
    while (s->streams)
        stream_free(s->streams);
    log_info("MCP session %.8s… closed", s->id);
    free(s);
}

static void reap(uv_timer_t *timer)
{
    struct http_transport *t = timer->data;
    while (t->doomed)
        session_close(t->doomed);
    while (t->doomed_conns) {
        struct doomed_conn *d = t->doomed_conns;
        t->doomed_conns = d->next;
        mcp_conn_destroy(d->conn);
        free(d);
    }
}

static void reap_soon(struct http_transport *t)
{
    if (!uv_is_active((uv_handle_t *)&t->reaper))
        uv_timer_start(&t->reaper, reap, 0, 0);
}

void session_close_later(struct mcp_session *s)
{
    if (s->doomed)
        return;
    s->doomed = true;
    struct http_transport *t = s->t;
    /* Move it from the live list to the doomed one. */
    for (struct mcp_session **pp = &t->sessions; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    s->next = t->doomed;
    t->doomed = s;
    reap_soon(t);
}

void conn_destroy_later(struct http_transport *t, struct mcp_conn *c)
{
    struct doomed_conn *d = xcalloc(1, sizeof *d);
    d->conn = c;
    d->next = t->doomed_conns;
    t->doomed_conns = d;
    reap_soon(t);
}

static struct mcp_stream *legacy_stream(struct mcp_session *s)
{
    for (struct mcp_stream *st = s->streams; st; st = st->next)
        if (st->kind == STREAM_LEGACY)
            return st;
    return NULL;
}

void http_conn_send(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud)
{
    (void)c;
    struct mcp_session *s = ud;
    if (stream == &http_no_answer)
        return; /* a notification or response: its POST got 202 already */
    struct mcp_stream *st = stream;
    if (s && s->legacy) {
        st = legacy_stream(s);
        if (st && msg)
            stream_deliver(st, msg, false);
        return;
    }
    if (!st) {
        /* Tied to no request: the session's standalone GET stream, which
         * keeps it until the client opens one. */
        if (!msg || !s)
            return;
        st = stream_find(s, 0);
        if (!st)
            st = stream_create(s->t, STREAM_STANDALONE, s, s->conn);
        stream_deliver(st, msg, false);
        return;
    }
    stream_deliver(st, msg, final);
}

static bool has_connection(const struct mcp_session *s)
{
    for (const struct mcp_stream *st = s->streams; st; st = st->next)
        if (st->req)
            return true;
    return false;
}

static bool expired(const struct mcp_session *s, uint64_t now_ms, uint64_t idle_ms)
{
    return !s->legacy && mcp_conn_in_flight(s->conn) == 0 && !has_connection(s) &&
           now_ms - s->last_used_ms >= idle_ms;
}

void http_sessions_sweep(struct http_transport *t, uint64_t now_ms)
{
    uint64_t idle_ms = (uint64_t)t->opts.session_idle_s * 1000;
    /* Ending a session runs cancel hooks and stops screen sessions, which
     * may end or move other MCP sessions: choose afresh from the live list
     * each time (an ended one has left it) rather than keep a next pointer. */
    for (;;) {
        struct mcp_session *s = t->sessions;
        while (s && !expired(s, now_ms, idle_ms))
            s = s->next;
        if (!s)
            return;
        log_info("MCP session %.8s… unused for %d s; ending it", s->id, t->opts.session_idle_s);
        session_close(s);
    }
}

void http_sessions_close_all(struct http_transport *t)
{
    while (t->sessions)
        session_close(t->sessions);
    reap(&t->reaper);
}

void http_conn_disconnect(struct mcp_conn *c, void *stream, void *ud)
{
    (void)c;
    struct mcp_session *s = ud;
    if (s && !s->legacy && stream && stream != &http_no_answer)
        http_stream_disconnect(stream);
}
