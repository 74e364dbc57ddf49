/* MCP response streams over HTTP. A POST's answer stays plain JSON unless
 * something (progress, a log message, a question for the client) comes
 * before it; then it becomes an SSE stream, primed with an event id so a
 * client that loses the connection can come back with Last-Event-ID. */
#define LOG_MODULE "http"
#include "core/json_out.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "transport/http_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Replay buffer bounds per stream; the oldest events go first. */
#define MAX_EVENTS      1024
#define MAX_EVENT_BYTES (8u * 1024 * 1024)

struct mcp_stream *stream_create(struct http_transport *t, enum stream_kind kind,
                                 struct mcp_session *s, struct mcp_conn *conn)
{
    struct mcp_stream *st = xcalloc(1, sizeof *st);
    st->t = t;
    st->kind = kind;
    st->session = s;
    st->conn = conn;
    st->next_seq = 1;
    if (s) {
        st->number = kind == STREAM_STANDALONE ? 0 : ++s->next_stream;
        st->next = s->streams;
        s->streams = st;
    }
    return st;
}

struct mcp_stream *stream_find(struct mcp_session *s, int number)
{
    for (struct mcp_stream *st = s->streams; st; st = st->next)
        if (st->number == number && st->kind != STREAM_LEGACY)
            return st;
    return NULL;
}

bool stream_parse_event_id(const char *id, int *number, uint64_t *seq)
{
    char *end = NULL;
    long n = strtol(id, &end, 10);
    if (end == id || *end != '-' || n < 0 || n > 1000000000)
        return false;
    const char *s = end + 1;
    unsigned long long q = strtoull(s, &end, 10);
    if (end == s || *end)
        return false;
    *number = (int)n;
    *seq = q;
    return true;
}

static void drop_events(struct mcp_stream *st)
{
    for (size_t i = 0; i < st->n_events; i++)
        free(st->events[i].text);
    free(st->events);
    st->events = NULL;
    st->n_events = st->cap_events = st->bytes = 0;
}

static void req_detached(struct http_req *req);
static void detach(struct mcp_stream *st)
{
    if (st->req) {
        st->req->owner = NULL;
        st->req->on_detach = NULL;
        st->req = NULL;
    }
}

void stream_free(struct mcp_stream *st)
{
    if (st->session) {
        for (struct mcp_stream **pp = &st->session->streams; *pp; pp = &(*pp)->next) {
            if (*pp == st) {
                *pp = st->next;
                break;
            }
        }
    }
    if (st->req) {
        struct http_req *req = st->req;
        detach(st);
        if (req->streaming)
            http_req_end(req);
        else
            http_req_fail(req, 404, JSONRPC_INVALID_REQUEST,
                          "Not found: the MCP session ended before the answer");
    }
    drop_events(st);
    free(st);
}

static void remember(struct mcp_stream *st, uint64_t seq, char *text, size_t len)
{
    if (st->kind == STREAM_LEGACY) {
        free(text); /* that transport has no resumption */
        return;
    }
    while (st->n_events && (st->n_events >= MAX_EVENTS || st->bytes + len > MAX_EVENT_BYTES)) {
        st->bytes -= st->events[0].len;
        free(st->events[0].text);
        memmove(st->events, st->events + 1, --st->n_events * sizeof *st->events);
    }
    if (st->n_events == st->cap_events) {
        st->cap_events = st->cap_events ? st->cap_events * 2 : 8;
        st->events = xrealloc(st->events, st->cap_events * sizeof *st->events);
    }
    st->events[st->n_events++] = (struct sse_event){seq, text, len};
    st->bytes += len;
}

/* One event to the current connection (if any) and the replay buffer. */
static void emit(struct mcp_stream *st, const char *data, bool with_retry)
{
    char *text;
    uint64_t seq = st->next_seq++;
    if (st->kind == STREAM_LEGACY)
        text = xasprintf("event: message\ndata: %s\n\n", data);
    else
        text = xasprintf("id: %d-%" PRIu64 "\n%sdata: %s\n\n", st->number, seq,
                         with_retry ? "retry: 1000\n" : "", data);
    size_t len = strlen(text);
    if (st->req) {
        http_req_write(st->req, text, len);
        st->delivered = seq;
    }
    remember(st, seq, text, len);
}

static void req_detached(struct http_req *req)
{
    struct mcp_stream *st = req->owner;
    if (!st)
        return;
    st->req = NULL;
    req->owner = NULL;
    if (st->kind == STREAM_LEGACY) {
        /* The 2024-11-05 transport's session is its stream. */
        session_close_later(st->session);
    } else if (!st->session) {
        /* 2026-07-28: closing the response stream cancels the request. This
         * runs from libwebsockets, never inside the connection's own code,
         * so the connection can go at once (its requests end silently). */
        mcp_conn_destroy(st->conn);
        st->conn = NULL;
        stream_free(st);
    } else if (st->kind == STREAM_POST && !st->sse) {
        /* The client left before any event id reached it: it cannot come
         * back for this answer, so nothing of it is kept. */
        st->orphan = true;
    }
    /* Otherwise the stream waits for a client that comes back with
     * Last-Event-ID. */
}

void stream_bind(struct mcp_stream *st, struct http_req *req)
{
    detach(st);
    st->req = req;
    req->owner = st;
    req->on_detach = req_detached;
}

void stream_attach(struct mcp_stream *st, struct http_req *req, uint64_t after_seq)
{
    stream_bind(st, req);
    http_req_stream(req);
    if (st->kind == STREAM_LEGACY)
        return;
    bool replayed = false;
    for (size_t i = 0; i < st->n_events; i++) {
        if (st->events[i].seq > after_seq) {
            http_req_write(req, st->events[i].text, st->events[i].len);
            st->delivered = st->events[i].seq;
            replayed = true;
        }
    }
    if (!replayed && !st->done)
        emit(st, "", true); /* prime: gives the client an id to come back with */
    if (st->done) {
        detach(st);
        http_req_end(req);
        stream_free(st);
    }
}

static int status_for(const struct mcp_stream *st, const json_t *msg)
{
    const json_t *err = json_object_get(msg, "error");
    if (!err)
        return 200;
    json_int_t code = json_integer_value(json_object_get(err, "code"));
    if (code == JSONRPC_PARSE_ERROR || code == JSONRPC_INVALID_REQUEST)
        return 400;
    if (st->modern) {
        if (code == JSONRPC_METHOD_NOT_FOUND)
            return 404;
        if (code == MCP_UNSUPPORTED_PROTOCOL_VERSION || code == MCP_HEADER_MISMATCH ||
            code == MCP_MISSING_CLIENT_CAPABILITY)
            return 400;
    }
    return 200;
}

/* The final answer while still plain: one JSON response. */
static void answer_json(struct mcp_stream *st, json_t *msg)
{
    struct http_req *req = st->req;
    detach(st);
    bool ok = msg && json_object_get(msg, "result");
    if (st->creates_session) {
        if (ok) {
            http_req_header(req, "mcp-session-id", st->session->id);
        } else {
            session_close_later(st->session);
        }
    }
    if (!msg) {
        http_req_respond(req, 202, NULL, NULL, 0);
        return;
    }
    if (req->responding)
        return;
    /* Straight into the request's output buffer, which is reused between
     * requests: no copy of the answer on the way. A value that cannot be
     * written answers with an empty body, as before. */
    if (!json_out_append(&req->out, msg))
        strbuf_clear(&req->out);
    http_req_respond(req, status_for(st, msg), "application/json", NULL, 0);
}

static void become_sse(struct mcp_stream *st)
{
    st->sse = true;
    if (!st->req)
        return;
    if (st->creates_session)
        http_req_header(st->req, "mcp-session-id", st->session->id);
    struct http_req *req = st->req;
    detach(st);
    stream_attach(st, req, 0);
}

/* Finished answers nobody has fetched yet, per session; beyond this the
 * oldest is dropped, so a client that keeps leaving cannot pile them up. */
#define MAX_UNCLAIMED 16

static void limit_unclaimed(struct mcp_session *s)
{
    int n = 0;
    struct mcp_stream *oldest = NULL;
    for (struct mcp_stream *st = s->streams; st; st = st->next) {
        if (st->done && !st->req) {
            n++;
            oldest = st; /* the list is newest first */
        }
    }
    if (n > MAX_UNCLAIMED)
        stream_free(oldest);
}

void stream_deliver(struct mcp_stream *st, json_t *msg, bool final)
{
    if (st->orphan) {
        if (final)
            stream_free(st);
        return;
    }
    if (st->kind == STREAM_POST && !st->sse && final) {
        if (st->req)
            answer_json(st, msg);
        if (!st->session && st->conn) {
            conn_destroy_later(st->t, st->conn);
            st->conn = NULL;
        }
        stream_free(st);
        return;
    }
    if (!st->sse && st->kind == STREAM_POST)
        become_sse(st);
    if (msg) {
        char *data = json_out_dump(msg, NULL);
        emit(st, data, false);
        free(data);
    }
    if (!final)
        return;
    st->done = true;
    if (!st->session && st->conn) {
        conn_destroy_later(st->t, st->conn);
        st->conn = NULL;
    }
    /* Delivered to a connected client: nothing left to resume. Otherwise
     * kept until the client comes back or the session ends. */
    if (st->req)
        stream_free(st);
    else if (st->session)
        limit_unclaimed(st->session);
}

/* The test fixture's "close the stream mid-call" (conformance SSE polling):
 * end the connection but keep the stream for Last-Event-ID. */
void http_stream_disconnect(struct mcp_stream *st)
{
    if (st->kind == STREAM_POST && !st->sse)
        become_sse(st);
    struct http_req *req = st->req;
    if (!req)
        return;
    detach(st);
    http_req_end(req);
}
