/* Requests and responses (struct http_req) shared by both connection kinds,
 * routing, and the libwebsockets plumbing for HTTPS: its context on the
 * libuv loop, writing responses only when the socket can take them, so a
 * slow client never blocks anyone else. Plain HTTP connections are
 * http_conn.c's. */
#define LOG_MODULE "http"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "transport/http_internal.h"
#include "viewer/viewer.h"
#include "viewer/ws_lws.h"

#include <jansson.h>
#include <libwebsockets.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* A response may queue this much before its client counts as stalled and is
 * disconnected (SSE streams of a client that stopped reading). */
#define MAX_QUEUED_OUTPUT (64u * 1024 * 1024)
#define WRITE_CHUNK       (32 * 1024)

struct pss {
    struct http_req *req;
};

/* Requests. */

static char *copy_header(struct lws *wsi, enum lws_token_indexes tok)
{
    int n = lws_hdr_total_length(wsi, tok);
    if (n <= 0)
        return NULL;
    char *s = xmalloc((size_t)n + 1);
    if (lws_hdr_copy(wsi, s, n + 1, tok) < 0) {
        free(s);
        return NULL;
    }
    return s;
}

static char *copy_custom(struct lws *wsi, const char *name)
{
    int nlen = (int)strlen(name);
    int n = lws_hdr_custom_length(wsi, name, nlen);
    if (n < 0)
        return NULL;
    char *s = xmalloc((size_t)n + 1);
    if (lws_hdr_custom_copy(wsi, s, n + 1, name, nlen) < 0) {
        free(s);
        return NULL;
    }
    return s;
}

static enum http_method read_method(struct lws *wsi, char *path, size_t cap)
{
    static const struct {
        enum lws_token_indexes tok;
        enum http_method m;
    } methods[] = {
        {WSI_TOKEN_GET_URI, HTTP_GET},       {WSI_TOKEN_POST_URI, HTTP_POST},
        {WSI_TOKEN_DELETE_URI, HTTP_DELETE}, {WSI_TOKEN_OPTIONS_URI, HTTP_OPTIONS},
        {WSI_TOKEN_PUT_URI, HTTP_OTHER},     {WSI_TOKEN_PATCH_URI, HTTP_OTHER},
        {WSI_TOKEN_HEAD_URI, HTTP_OTHER},
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        if (lws_hdr_total_length(wsi, methods[i].tok) > 0) {
            if (lws_hdr_copy(wsi, path, (int)cap, methods[i].tok) < 0)
                path[0] = '\0';
            return methods[i].m;
        }
    }
    path[0] = '\0';
    return HTTP_OTHER;
}

static void read_query(struct lws *wsi, char *query, size_t cap)
{
    size_t used = 0;
    query[0] = '\0';
    for (int i = 0; i < 16; i++) {
        char frag[256];
        int n = lws_hdr_copy_fragment(wsi, frag, sizeof frag, WSI_TOKEN_HTTP_URI_ARGS, i);
        if (n < 0)
            break;
        int w = snprintf(query + used, cap - used, "%s%s", used ? "&" : "", frag);
        if (w < 0 || (size_t)w >= cap - used)
            break;
        used += (size_t)w;
    }
}

/* Spare requests kept at most, and the largest buffer a spare keeps.
 * None under AddressSanitizer, which then still sees a request used after
 * its end. */
#if defined(__SANITIZE_ADDRESS__)
#define MAX_SPARE_REQS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAX_SPARE_REQS 0
#endif
#endif
#ifndef MAX_SPARE_REQS
#define MAX_SPARE_REQS 64
#endif
#define MAX_SPARE_BUFFER (64 * 1024)

struct http_req *http_req_alloc(struct http_transport *t)
{
    struct http_req *req = t->spare_reqs;
    if (req) {
        t->spare_reqs = req->next;
        t->n_spare_reqs--;
        struct strbuf body = req->body, out = req->out, headers = req->resp_headers;
        memset(req, 0, sizeof *req);
        req->body = body;
        req->out = out;
        req->resp_headers = headers;
        strbuf_clear(&req->body);
        strbuf_clear(&req->out);
        strbuf_clear(&req->resp_headers);
    } else {
        req = xcalloc(1, sizeof *req);
        strbuf_init(&req->body);
        strbuf_init(&req->out);
        strbuf_init(&req->resp_headers);
    }
    req->t = t;
    req->content_length = -1;
    t->n_requests++;
    req->next = t->reqs;
    if (t->reqs)
        t->reqs->prev = req;
    t->reqs = req;
    return req;
}

static struct http_req *req_create(struct http_transport *t, struct lws *wsi)
{
    struct http_req *req = http_req_alloc(t);
    req->wsi = wsi;
    req->method = read_method(wsi, req->path, sizeof req->path);
    read_query(wsi, req->query, sizeof req->query);
    _Static_assert(sizeof req->remote == sizeof t->peers[0], "same size");
    const char *peer = http_listen_peer(t, lws_get_socket_fd(wsi));
    if (peer)
        memcpy(req->remote, peer, sizeof req->remote);
    else if (!lws_get_peer_simple(wsi, req->remote, sizeof req->remote))
        snprintf(req->remote, sizeof req->remote, "?");
    req->host = copy_header(wsi, WSI_TOKEN_HOST);
    req->origin = copy_header(wsi, WSI_TOKEN_ORIGIN);
    req->authorization = copy_header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
    req->accept = copy_header(wsi, WSI_TOKEN_HTTP_ACCEPT);
    req->content_type = copy_header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE);
    req->session_id = copy_custom(wsi, "mcp-session-id:");
    req->protocol_version = copy_custom(wsi, "mcp-protocol-version:");
    req->last_event_id = copy_custom(wsi, "last-event-id:");
    req->mcp_method = copy_custom(wsi, "mcp-method:");
    req->mcp_name = copy_custom(wsi, "mcp-name:");
    req->correlation_id = copy_custom(wsi, "x-correlation-id:");
    req->cookie = copy_header(wsi, WSI_TOKEN_HTTP_COOKIE);
    req->accept_encoding = copy_header(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING);
    char *cl = copy_header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
    req->content_length = cl ? strtol(cl, NULL, 10) : -1;
    free(cl);
    return req;
}

static void free_req(struct http_req *req)
{
    strbuf_finish(&req->body);
    strbuf_finish(&req->out);
    strbuf_finish(&req->resp_headers);
    free(req);
}

void http_req_destroy(struct http_req *req)
{
    if (req->on_detach) {
        void (*cb)(struct http_req *) = req->on_detach;
        req->on_detach = NULL;
        cb(req);
    }
    http_guard_close(req);
    req->t->n_requests--;
    if (req->prev)
        req->prev->next = req->next;
    else
        req->t->reqs = req->next;
    if (req->next)
        req->next->prev = req->prev;
    free(req->host);
    free(req->origin);
    free(req->authorization);
    free(req->accept);
    free(req->content_type);
    free(req->session_id);
    free(req->protocol_version);
    free(req->last_event_id);
    free(req->mcp_method);
    free(req->mcp_name);
    free(req->correlation_id);
    free(req->cookie);
    free(req->accept_encoding);
    free(req->upgrade);
    free(req->ws_key);
    free(req->ws_version);
    free(req->ws_protocol);
    struct http_transport *t = req->t;
    if (t->n_spare_reqs < MAX_SPARE_REQS && req->body.cap <= MAX_SPARE_BUFFER &&
        req->out.cap <= MAX_SPARE_BUFFER && req->resp_headers.cap <= MAX_SPARE_BUFFER) {
        req->next = t->spare_reqs;
        t->spare_reqs = req;
        t->n_spare_reqs++;
        return;
    }
    free_req(req);
}

static void want_write(struct http_req *req)
{
    if (req->conn) {
        http_conn_want_write(req);
        return;
    }
    /* A request answered while it is being routed is written when routing
     * returns (route_and_answer), without a round through the loop. */
    if (req->wsi && req->t->routing != req)
        lws_callback_on_writable(req->wsi);
}

void http_req_header(struct http_req *req, const char *name, const char *value)
{
    strbuf_printf(&req->resp_headers, "%s:\n%s\n", name, value);
}

void http_req_respond(struct http_req *req, int status, const char *type, const char *body,
                      size_t len)
{
    if (req->responding)
        return;
    req->responding = true;
    req->status = status;
    req->resp_type = type;
    if (body)
        strbuf_append(&req->out, body, len);
    req->ended = true;
    req->on_detach = NULL;
    want_write(req);
}

void http_req_fail(struct http_req *req, int status, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    char *body;
    if (http_rest_path(req->path)) {
        body = http_rest_error_body(status, msg);
    } else {
        json_t *err = jsonrpc_error(NULL, code, msg, NULL);
        body = json_dumps(err, JSON_COMPACT);
        json_decref(err);
    }
    log_info("%s %s from %s: %d %s", req->method == HTTP_POST ? "POST" : "request", req->path,
             req->remote, status, msg);
    http_req_respond(req, status, "application/json", body, strlen(body));
    free(body);
    free(msg);
}

void http_req_stream(struct http_req *req)
{
    if (req->responding)
        return;
    req->responding = true;
    req->streaming = true;
    req->status = 200;
    req->resp_type = "text/event-stream";
    http_req_header(req, "cache-control", "no-cache");
    http_req_header(req, "x-accel-buffering", "no");
    want_write(req);
}

void http_req_write(struct http_req *req, const char *data, size_t len)
{
    if ((!req->wsi && !req->conn) || req->ended)
        return;
    if (req->out.len + len > MAX_QUEUED_OUTPUT) {
        log_warn("client %s stopped reading its stream; disconnecting it", req->remote);
        req->close_after = true;
        req->ended = true;
        strbuf_clear(&req->out);
        want_write(req);
        return;
    }
    strbuf_append(&req->out, data, len);
    want_write(req);
}

void http_req_end(struct http_req *req)
{
    req->ended = true;
    req->on_detach = NULL;
    want_write(req);
}

bool http_req_accepts(const struct http_req *req, const char *type)
{
    if (!req->accept)
        return false;
    const char *slash = strchr(type, '/');
    size_t major = slash ? (size_t)(slash - type) : strlen(type);
    for (const char *p = req->accept; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ",;");
        if ((n == strlen(type) && strncasecmp(p, type, n) == 0) ||
            (n == 3 && !strncmp(p, "*/*", 3)) ||
            (n == major + 2 && strncasecmp(p, type, major + 1) == 0 && p[major + 1] == '*'))
            return true;
        p += strcspn(p, ",");
    }
    return false;
}

/* Writing. Returns -1 to close the connection. */

/* A complete answer up to this size goes out with its headers in one
 * write (one send() per call instead of two). */
#define INLINE_BODY (16 * 1024)

static int write_headers(struct http_req *req)
{
    struct lws *wsi = req->wsi;
    bool with_body = !req->streaming && req->ended && req->out.len <= INLINE_BODY;
    size_t hdr_space = 1024 + req->resp_headers.len * 2;
    size_t need = LWS_PRE + hdr_space + (with_body ? req->out.len : 0);
    /* On the stack when it fits: a malloc this large would make glibc
     * consolidate its fast bins on every response. */
    unsigned char stack[LWS_PRE + 8192];
    unsigned char *buf = need <= sizeof stack ? stack : xmalloc(need);
    unsigned char *start = buf + LWS_PRE, *p = start, *end = start + hdr_space - 1;
    lws_filepos_t length = req->streaming ? LWS_ILLEGAL_HTTP_CONTENT_LEN : req->out.len;
    int rc = 0;
    if (lws_add_http_common_headers(wsi, (unsigned)req->status, req->resp_type, length, &p, end))
        rc = -1;
    const char *h = req->resp_headers.data;
    while (rc == 0 && h && *h) {
        const char *nl = strchr(h, '\n');
        const char *v = nl + 1;
        const char *vend = strchr(v, '\n');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(nl - h), h);
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)v,
                                        (int)(vend - v), &p, end))
            rc = -1;
        h = vend + 1;
    }
    if (rc == 0 && req->close_after &&
        lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5,
                                     &p, end))
        rc = -1;
    if (rc == 0 && lws_finalize_http_header(wsi, &p, end))
        rc = -1;
    if (rc == 0 && with_body && req->out.len) {
        memcpy(p, req->out.data, req->out.len);
        p += req->out.len;
        strbuf_clear(&req->out);
    }
    if (rc == 0 && lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS) != p - start)
        rc = -1;
    if (buf != stack)
        free(buf);
    req->headers_sent = true;
    if (req->streaming) {
        /* Streams live as long as they need. Letting go of the request
         * headers also lets libwebsockets read from the socket again, so it
         * sees the client hang up; with them held it leaves the socket
         * unread in CLOSE-WAIT and the loop spins on it. */
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
        lws_http_headers_detach(wsi);
    }
    return rc;
}

/* Everything is out. A streamed response ends by closing; a sized one
 * hands the connection back at once, in this same callback: the client has
 * the whole answer and may already be sending its next request, which
 * libwebsockets must read as a new request, not as more of this one. */
static int complete(struct lws *wsi, struct pss *pss)
{
    struct http_req *req = pss->req;
    bool close = req->streaming || req->close_after;
    pss->req = NULL;
    req->wsi = NULL;
    http_req_destroy(req);
    if (close)
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int on_writeable(struct lws *wsi, struct pss *pss)
{
    struct http_req *req = pss->req;
    if (!req || !req->responding)
        return 0;
    if (!req->headers_sent && write_headers(req) < 0)
        return -1;
    /* The socket just said it is writable: a response that fits in one
     * chunk goes without asking again (lws_send_pipe_choked is a poll()
     * syscall); longer output checks before each chunk. */
    if (req->out.len && (req->out.len <= WRITE_CHUNK || !lws_send_pipe_choked(wsi))) {
        size_t n = req->out.len < WRITE_CHUNK ? req->out.len : WRITE_CHUNK;
        bool last = req->ended && n == req->out.len && !req->streaming;
        unsigned char stack[LWS_PRE + 4096];
        unsigned char *buf = LWS_PRE + n <= sizeof stack ? stack : xmalloc(LWS_PRE + n);
        memcpy(buf + LWS_PRE, req->out.data, n);
        int w = lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP);
        if (buf != stack)
            free(buf);
        if (w < (int)n)
            return -1;
        strbuf_consume(&req->out, n);
    }
    if (!req->out.len && req->ended)
        return complete(wsi, pss);
    if (req->out.len)
        lws_callback_on_writable(wsi);
    return 0;
}

/* GET /healthz: 200 while the server serves (a server shutting down
 * closes connections instead), for probes and container health checks. */
static void health(struct http_req *req)
{
    if (req->method != HTTP_GET) {
        http_req_header(req, "allow", "GET");
        http_req_fail(req, 405, JSONRPC_INVALID_REQUEST,
                      "Method not allowed: " HTTP_HEALTH_PATH " takes GET");
        return;
    }
    static const char ok[] = "{\"status\":\"ok\"}\n";
    http_req_header(req, "cache-control", "no-store");
    http_req_respond(req, 200, "application/json", ok, sizeof ok - 1);
}

/* Routing, once the guard passed and the body is in. */
void http_dispatch(struct http_req *req)
{
    if (viewer_route(req)) {
        /* /view: the live viewer (src/viewer/). */
    } else if (strcmp(req->path, "/mcp") == 0) {
        http_mcp_handle(req);
    } else if (strcmp(req->path, HTTP_HEALTH_PATH) == 0) {
        health(req);
    } else if (http_rest_path(req->path)) {
        http_rest_handle(req);
    } else if (strcmp(req->path, "/sse") == 0) {
        if (req->method == HTTP_GET) {
            http_legacy_sse(req);
        } else {
            http_req_header(req, "allow", "GET");
            http_req_fail(req, 405, JSONRPC_INVALID_REQUEST,
                          "Method not allowed: /sse takes GET (the 2024-11-05 HTTP+SSE stream)");
        }
    } else if (strcmp(req->path, "/messages") == 0) {
        if (req->method == HTTP_POST) {
            http_legacy_message(req);
        } else {
            http_req_header(req, "allow", "POST");
            http_req_fail(req, 405, JSONRPC_INVALID_REQUEST,
                          "Method not allowed: /messages takes POST");
        }
    } else {
        http_req_fail(req, 404, JSONRPC_INVALID_REQUEST,
                      "Not found: %.200s (the MCP endpoint is /mcp)", req->path);
    }
}

/* While a request waits for its answer or streams one, libwebsockets 4.1
 * does not read its socket (the connection is "in a transaction") yet keeps
 * it in the poll set: when such a client hangs up, the socket stays
 * readable, nobody reads it, and the loop spins. (Pausing reading instead
 * would also stop its writes: HTTP/1 output is driven from the same
 * handler.) So routed requests are watched for hang-ups; see
 * watch_hangups. */
static int on_writeable(struct lws *wsi, struct pss *pss);

/* Routes the request; an answer that is complete by the time routing
 * returns (every call a tool answers at once) is written right here, from
 * the callback that read the request: waiting for the socket to report
 * itself writable cost a loop round trip and four epoll_ctl calls per
 * request. Streams and answers still to come are written when the socket
 * is writable. Returns what the libwebsockets callback returns. */
static int route(struct lws *wsi, struct pss *pss)
{
    struct http_req *req = pss->req;
    struct http_transport *t = req->t;
    req->routed = true;
    t->routing = req;
    http_dispatch(req);
    t->routing = NULL;
    if (pss->req != req || !req->responding)
        return 0;
    if (req->ended && !req->streaming)
        return on_writeable(wsi, pss);
    lws_callback_on_writable(wsi);
    return 0;
}

static void close_req(struct pss *pss)
{
    struct http_req *req = pss->req;
    if (!req)
        return;
    pss->req = NULL;
    req->wsi = NULL;
    http_req_destroy(req);
}

static int on_http(struct lws *wsi, struct pss *pss, struct http_transport *t)
{
    close_req(pss); /* a keep-alive connection's previous request, if any */
    if (t->shutting_down)
        return -1;
    struct http_req *req = req_create(t, wsi);
    pss->req = req;
    /* Anything answered before the body was read must close the connection:
     * the unread body would be taken for the next request. */
    bool has_body =
        req->content_length > 0 || lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0;
    req->close_after = has_body;
    if (!http_guard_check(req) || !http_guard_open(req))
        return 0;
    if (req->method == HTTP_POST && has_body) {
        if (req->content_length > (long)t->app->max_message)
            req->discarding = true; /* answered once the body has been read */
        return 0;                   /* wait for the body */
    }
    req->close_after = false;
    return route(wsi, pss);
}

/* A body over --max-message is read and dropped, then answered: a client
 * still uploading when the connection closes sees only a reset ("fetch
 * failed"), not why. Past MAX_DISCARD the connection is closed instead. */
#define MAX_DISCARD (256u * 1024 * 1024)

static void answer_too_large(struct http_req *req, bool closing)
{
    size_t limit = req->t->app->max_message;
    if (req->content_length >= 0)
        http_req_fail(req, 413, JSONRPC_INVALID_REQUEST,
                      "Payload too large: the body is %ld bytes; the limit is %zu bytes "
                      "(glovebox serve --max-message)",
                      req->content_length, limit);
    else
        http_req_fail(req, 413, JSONRPC_INVALID_REQUEST,
                      "Payload too large: the body is over the limit of %zu bytes "
                      "(glovebox serve --max-message)",
                      limit);
    req->close_after = closing;
}

static int on_body(struct pss *pss, const void *in, size_t len)
{
    struct http_req *req = pss->req;
    if (!req || req->responding)
        return 0;
    if (!req->discarding && req->body.len + len > req->t->app->max_message) {
        req->discarding = true;
        strbuf_finish(&req->body);
        strbuf_init(&req->body);
    }
    if (req->discarding) {
        req->discarded += len;
        if (req->discarded > MAX_DISCARD)
            answer_too_large(req, true);
        return 0;
    }
    strbuf_append(&req->body, in, len);
    return 0;
}

static int on_body_complete(struct lws *wsi, struct pss *pss)
{
    struct http_req *req = pss->req;
    if (!req || req->responding)
        return 0;
    if (req->discarding) {
        answer_too_large(req, false); /* the body is read: the connection can serve on */
        return 0;
    }
    req->close_after = false;
    return route(wsi, pss);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct pss *pss = user;
    struct http_transport *t = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return on_http(wsi, pss, t);
    case LWS_CALLBACK_HTTP_BODY:
        return on_body(pss, in, len);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return on_body_complete(wsi, pss);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return on_writeable(wsi, pss);
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (pss)
            close_req(pss);
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    {"http", callback, sizeof(struct pss), 0, 0, NULL, 0},
    /* The live viewer's WebSocket over HTTPS (src/viewer/ws_lws.c); over
     * plain HTTP the viewer takes the socket over itself. */
    {VIEWER_WS_PROTOCOL, viewer_lws_callback, VIEWER_LWS_PSS_SIZE, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    if (level & LLL_ERR)
        log_warn("libwebsockets: %.*s", (int)n, line);
    else
        log_debug("libwebsockets: %.*s", (int)n, line);
}

/* Options. */

void http_options_defaults(struct http_options *o)
{
    memset(o, 0, sizeof *o);
    o->host = xstrdup("127.0.0.1");
    o->port = 7800;
    o->session_idle_s = 1800;
    o->rate_per_s = 2000;
    o->max_requests_per_client = 256;
}

static void free_list(char **l)
{
    for (char **p = l; p && *p; p++)
        free(*p);
    free(l);
}

void http_options_finish(struct http_options *o)
{
    free(o->host);
    free(o->token);
    free_list(o->allow_origins);
    free_list(o->allow_hosts);
    free(o->tls_cert);
    free(o->tls_key);
    memset(o, 0, sizeof *o);
}

static char **copy_list(char *const *l)
{
    size_t n = 0;
    while (l && l[n])
        n++;
    char **c = xcalloc(n + 1, sizeof *c);
    for (size_t i = 0; i < n; i++)
        c[i] = xstrdup(l[i]);
    return c;
}

bool http_options_parse_listen(struct http_options *o, const char *spec, char **err)
{
    const char *port = spec;
    char host[256] = "";
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':') {
            *err = xasprintf("expected [ADDRESS]:PORT, got \"%s\"", spec);
            return false;
        }
        snprintf(host, sizeof host, "%.*s", (int)(close - spec - 1), spec + 1);
        port = close + 2;
    } else if (strchr(spec, ':')) {
        const char *colon = strrchr(spec, ':');
        snprintf(host, sizeof host, "%.*s", (int)(colon - spec), spec);
        port = colon + 1;
    }
    char *endp = NULL;
    long p = strtol(port, &endp, 10);
    if (!*port || *endp || p < 0 || p > 65535) {
        *err = xasprintf("expected [HOST:]PORT with PORT 0..65535, got \"%s\"", spec);
        return false;
    }
    if (host[0]) {
        unsigned char addr[16];
        if (inet_pton(AF_INET, host, addr) != 1 && inet_pton(AF_INET6, host, addr) != 1 &&
            strcmp(host, "localhost") != 0) {
            *err =
                xasprintf("expected an IP address (or localhost) to listen on, got \"%s\"", host);
            return false;
        }
        free(o->host);
        o->host = xstrdup(host);
    }
    o->port = (int)p;
    return true;
}

bool http_host_is_loopback(const char *host)
{
    unsigned char a[16];
    if (strcmp(host, "localhost") == 0)
        return true;
    if (inet_pton(AF_INET, host, a) == 1)
        return a[0] == 127;
    if (inet_pton(AF_INET6, host, a) == 1) {
        static const unsigned char one[16] = {[15] = 1};
        return memcmp(a, one, 16) == 0;
    }
    return false;
}

/* Lifecycle. */

/* Loop turns between two peeks at the sockets of open streams. A hung-up
 * stream makes the loop spin through this many turns within a millisecond
 * or two; a busy server turns a few times per request, so peeking at every
 * standing stream (each SDK client keeps one) on every turn cost more than
 * the requests themselves. */
#define STREAM_SCAN_TURNS 256

/* A routed request's client hung up if its socket reads as end of file (or
 * fails); more data (a pipelined request) is left for later. Runs after
 * every poll of the loop, at most once per millisecond: a hang-up makes the
 * loop spin, so this is what ends the spin, within a millisecond or two.
 * Requests waiting for their answer are looked at every time, open streams
 * once the loop has turned STREAM_SCAN_TURNS times; a complete answer on its
 * way out needs no look: its write ends the transaction and libwebsockets
 * reads the socket again. */
static void watch_hangups(uv_check_t *check)
{
    struct http_transport *t = check->data;
    t->hangup_turns++;
    uint64_t now = uv_now(check->loop);
    if (now == t->hangup_scan_ms)
        return;
    t->hangup_scan_ms = now;
    bool streams = t->hangup_turns >= STREAM_SCAN_TURNS;
    if (streams)
        t->hangup_turns = 0;
    for (struct http_req *req = t->reqs; req; req = req->next) {
        if (!req->routed || !req->wsi || req->hung_up)
            continue;
        if (req->responding && (!req->streaming || !streams))
            continue;
        char c;
        ssize_t n = recv(lws_get_socket_fd(req->wsi), &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            log_debug("client %s hung up", req->remote);
            req->hung_up = true;
            lws_set_timeout(req->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        }
    }
}

/* Every second: idle sessions, old rate buckets. */
static void on_sweep(uv_timer_t *timer)
{
    struct http_transport *t = timer->data;
    uint64_t now = uv_now(timer->loop);
    http_sessions_sweep(t, now);
    http_guard_sweep(t, now);
    http_conns_sweep(t, now);
    http_rest_sweep(t);
    http_listen_resume(t);
}

struct http_transport *http_transport_start(struct app *app, const struct http_options *opts,
                                            char **err)
{
    if (!http_host_is_loopback(opts->host) && !opts->token) {
        *err = xasprintf("refusing to listen on %s without a token: anyone who can reach that "
                         "address could drive this machine. Give --token-file PATH (or set "
                         "GLOVEBOX_TOKEN), or listen on 127.0.0.1",
                         opts->host);
        return NULL;
    }
    if (!opts->tls_cert != !opts->tls_key) {
        *err = xstrdup("--tls-cert and --tls-key go together: give both or neither");
        return NULL;
    }
    /* libwebsockets allocates its header table (max_http_header_data,
     * 8 KiB) for every request. glibc answers an allocation that large by
     * first merging every free chunk in its fast bins, which the JSON of
     * each call fills: that merge alone was 5% of the server's time per
     * call. Without fast bins (small blocks still come from the
     * per-thread cache) there is nothing to merge. */
    mallopt(M_MXFAST, 0);
    struct http_transport *t = xcalloc(1, sizeof *t);
    t->app = app;
    t->opts = *opts;
    t->opts.host = xstrdup(opts->host);
    t->opts.token = opts->token ? xstrdup(opts->token) : NULL;
    t->opts.allow_origins = copy_list(opts->allow_origins);
    t->opts.allow_hosts = copy_list(opts->allow_hosts);
    t->opts.tls_cert = opts->tls_cert ? xstrdup(opts->tls_cert) : NULL;
    t->opts.tls_key = opts->tls_key ? xstrdup(opts->tls_key) : NULL;

    /* libwebsockets loads its libuv glue as a plugin and unloads it when the
     * context goes, while close callbacks into it may still be queued on
     * the loop; holding our own reference keeps the code mapped. */
    if (!dlopen("libwebsockets-evlib_uv.so", RTLD_NOW | RTLD_NODELETE))
        log_debug("could not pin the libwebsockets libuv plugin: %s", dlerror());
    lws_set_log_level(log_enabled(LOG_DEBUG) ? LLL_ERR | LLL_WARN | LLL_NOTICE : LLL_ERR, lws_log);
    if (!http_listen_bind(t, t->opts.host, opts->port, err)) {
        http_options_finish(&t->opts);
        free(t);
        return NULL;
    }
    t->port = t->listeners[0].port;
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {app->loop};
    /* The sockets are ours (http_listen.c); libwebsockets serves the
     * connections accepted on them. */
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.user = t;
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = loops;
    info.pcontext = &t->ctx; /* cleared when libwebsockets has let go of the loop */
    info.max_http_header_data = 8192;
    info.keepalive_timeout = 30;
    info.timeout_secs = 30;
    /* One protocol version everywhere: HTTP/1.1 also over TLS. */
    info.alpn = "http/1.1";
    if (t->opts.tls_cert) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = t->opts.tls_cert;
        info.ssl_private_key_filepath = t->opts.tls_key;
    }
    t->ctx = lws_create_context(&info);
    t->vhost = t->ctx ? lws_get_vhost_by_name(t->ctx, "default") : NULL;
    if (!t->vhost) {
        *err =
            t->opts.tls_cert
                ? xstrdup("could not start HTTPS: the TLS certificate or key could not be loaded")
                : xstrdup("could not start the HTTP server (libwebsockets failed; run with "
                          "GLOVEBOX_LOG=debug for its reasons)");
        http_listen_abandon(t);
        if (t->ctx) {
            /* Its teardown runs on the loop and writes t->ctx when done, so
             * t must outlive it; the process is about to exit anyway. */
            lws_context_destroy(t->ctx);
            return NULL;
        }
        http_options_finish(&t->opts);
        free(t);
        return NULL;
    }
    http_listen_start(t);
    t->rest = http_rest_create(t);
    uv_timer_init(app->loop, &t->sweep);
    t->sweep.data = t;
    uv_check_init(app->loop, &t->hangups);
    t->hangups.data = t;
    /* Only libwebsockets (HTTPS) leaves hung-up sockets unread; plain
     * connections see their client's end of file as it comes. */
    if (t->opts.tls_cert)
        uv_check_start(&t->hangups, watch_hangups);
    uv_unref((uv_handle_t *)&t->hangups);
    uv_idle_init(app->loop, &t->flusher);
    t->flusher.data = t;
    uv_timer_init(app->loop, &t->reaper);
    t->reaper.data = t;
    uv_unref((uv_handle_t *)&t->reaper);
    uv_timer_start(&t->sweep, on_sweep, 1000, 1000);
    uv_unref((uv_handle_t *)&t->sweep);
    t->viewer = viewer_create(app, t);
    return t;
}

int http_transport_port(const struct http_transport *t)
{
    return t->port;
}

json_t *http_transport_describe(const struct http_transport *t)
{
    /* What the sockets are bound to (getsockname), not what was asked. */
    char *url = xasprintf("%s://%s/mcp", t->opts.tls_cert ? "https" : "http", t->listeners[0].name);
    json_t *listening = json_array();
    for (int i = 0; i < t->n_listeners; i++)
        json_array_append_new(listening, json_string(t->listeners[i].name));
    json_t *o = json_pack("{s:s, s:o, s:i, s:i, s:b, s:b}", "url", url, "listening", listening,
                          "mcp_sessions", t->n_sessions, "open_requests", t->n_requests,
                          "token_required", t->opts.token != NULL, "tls", t->opts.tls_cert != NULL);
    free(url);
    return o;
}

static void reaper_closed(uv_handle_t *h)
{
    struct http_transport *t = h->data;
    void (*done)(void *) = t->done;
    void *ud = t->done_ud;
    http_guard_finish(t);
    http_options_finish(&t->opts);
    while (t->spare_reqs) {
        struct http_req *req = t->spare_reqs;
        t->spare_reqs = req->next;
        free_req(req);
    }
    free(t->peers);
    free(t);
    if (done)
        done(ud);
}

/* libwebsockets closes its libuv handles as the loop runs on and clears
 * t->ctx when it is done; only then may the rest be closed. */
static void wait_for_lws(uv_timer_t *timer)
{
    struct http_transport *t = timer->data;
    /* Its first destroy only starts closing; once the loop has run the
     * closes, a second one frees the context (libwebsockets 4.1). */
    if ((t->ctx || t->n_listening || t->n_conns || viewer_busy(t->viewer)) &&
        ++t->shutdown_ticks < 200) {
        if (t->ctx && t->shutdown_ticks % 5 == 1)
            lws_context_destroy(t->ctx);
        return;
    }
    if (t->ctx)
        log_warn("libwebsockets did not finish closing within 2 s");
    log_debug("libwebsockets closed after %d ms", t->shutdown_ticks * 10);
    uv_timer_stop(&t->sweep);
    uv_close((uv_handle_t *)&t->sweep, NULL);
    uv_check_stop(&t->hangups);
    uv_close((uv_handle_t *)&t->hangups, NULL);
    uv_idle_stop(&t->flusher);
    uv_close((uv_handle_t *)&t->flusher, NULL);
    uv_timer_stop(&t->reaper);
    uv_close((uv_handle_t *)&t->reaper, reaper_closed);
}

void http_transport_shutdown(struct http_transport *t, void (*done)(void *ud), void *ud)
{
    t->shutting_down = true;
    viewer_shutdown(t->viewer);
    t->done = done;
    t->done_ud = ud;
    http_listen_stop(t);
    http_rest_destroy(t->rest);
    t->rest = NULL;
    http_sessions_close_all(t);
    http_conns_close_all(t);
    lws_context_destroy(t->ctx);
    uv_ref((uv_handle_t *)&t->sweep);
    uv_timer_start(&t->sweep, wait_for_lws, 0, 10);
}
