/* The 2024-11-05 HTTP+SSE transport, kept so older clients still connect:
 * GET /sse opens the session's only stream and names the endpoint to POST
 * to; POST /messages?sessionId=… carries each message and gets 202, its
 * answer arriving on the stream. The session ends when the stream closes. */
#define LOG_MODULE "http"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "transport/http_internal.h"

#include <stdio.h>
#include <string.h>

void http_legacy_sse(struct http_req *req)
{
    if (!http_req_accepts(req, "text/event-stream")) {
        http_req_fail(req, 406, JSONRPC_INVALID_REQUEST,
                      "Not acceptable: /sse is an event stream; the Accept header must list "
                      "text/event-stream");
        return;
    }
    struct mcp_session *s = session_open(req->t, true, req->remote);
    if (!s) {
        http_req_fail(req, 503, JSONRPC_INTERNAL_ERROR,
                      "Service unavailable: too many MCP sessions are open");
        return;
    }
    struct mcp_stream *st = stream_create(req->t, STREAM_LEGACY, s, s->conn);
    stream_attach(st, req, 0);
    char *event = xasprintf("event: endpoint\ndata: /messages?sessionId=%s\n\n", s->id);
    http_req_write(req, event, strlen(event));
    free(event);
}

/* The sessionId query argument, or NULL. */
static const char *session_arg(const char *query, char *out, size_t cap)
{
    for (const char *p = query; p && *p;) {
        if (strncmp(p, "sessionId=", 10) == 0) {
            size_t n = strcspn(p + 10, "&");
            snprintf(out, cap, "%.*s", (int)n, p + 10);
            return out;
        }
        const char *amp = strchr(p, '&');
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
}

void http_legacy_message(struct http_req *req)
{
    char id[64];
    if (!session_arg(req->query, id, sizeof id)) {
        http_req_fail(req, 400, JSONRPC_INVALID_REQUEST,
                      "Bad Request: /messages needs ?sessionId= (from the /sse endpoint event)");
        return;
    }
    struct mcp_session *s = session_lookup(req->t, id);
    if (!s || !s->legacy) {
        http_req_fail(req, 404, JSONRPC_INVALID_REQUEST,
                      "Not found: no HTTP+SSE session %.64s (open GET /sse first)", id);
        return;
    }
    struct jsonrpc_message m;
    char *err = NULL;
    json_t *err_id = NULL;
    int code =
        jsonrpc_parse(req->body.data ? req->body.data : "", req->body.len, &m, &err, &err_id);
    if (code) {
        http_req_fail(req, 400, code, "%s", err);
        free(err);
        json_decref(err_id);
        return;
    }
    jsonrpc_message_finish(&m);
    s->last_used_ms = uv_now(req->t->app->loop);
    http_req_respond(req, 202, NULL, NULL, 0);
    mcp_conn_receive(s->conn, req->body.data, req->body.len, NULL);
}
