/* Plain (non-TLS) HTTP/1.1 connections, served on the libuv loop without
 * libwebsockets. libwebsockets 4.1 re-arms the socket's poll handle three
 * times per request (each a libuv uv_poll_start, which deletes and re-adds
 * the descriptor: six epoll_ctl calls) and waits one more loop turn for a
 * writable event after every answer; here the socket is read with
 * uv_read_start once per connection and answers go out with uv_try_write.
 *
 * Strict by design: Content-Length bodies only (chunked is refused with
 * 411), a head of at most MAX_HEAD bytes and MAX_HEADERS lines, HTTP/1.0 and
 * 1.1 only. Keep-alive (1.1 by default, 1.0 when asked), pipelined requests
 * are read in turn. Routing, the guard and the response building are shared
 * with the TLS path (http_server.c). */
#define LOG_MODULE "http"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "transport/http_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_HEAD    8192
#define MAX_HEADERS 64
/* Bytes of a next (pipelined) request buffered while one is answered. */
#define MAX_PIPELINED (64 * 1024)
/* A head or body must arrive, and an idle keep-alive connection is closed,
 * within this long (checked by the transport's sweep, once a second). */
#define IO_TIMEOUT_MS 30000
/* A body over --max-message is read and dropped up to this much, then
 * answered 413; past it the connection is closed. */
#define MAX_DISCARD (256u * 1024 * 1024)

enum conn_state {
    CONN_HEAD,    /* reading a request head */
    CONN_BODY,    /* reading its body */
    CONN_ROUTED,  /* answered, answering, or streaming */
    CONN_CLOSING, /* uv_close called */
};

struct http_conn {
    struct http_transport *t;
    uv_tcp_t tcp;
    enum conn_state state;
    char remote[64];
    char *in; /* bytes read, not yet consumed */
    size_t in_len, in_cap;
    struct http_req *req;
    size_t body_left;
    struct strbuf head; /* the answer's head, reused from one answer to the next */
    bool keep_alive;
    bool reading;
    bool writing;                  /* a uv_write is in flight */
    bool flush_queued;             /* on the transport's flush list */
    bool drop_body;                /* a body on a method that takes none: dropped, then routed */
    uint64_t since_ms;             /* when the current head, body or idle wait began */
    struct http_conn *prev, *next; /* the transport's connections */
    struct http_conn *flush_next;  /* the transport's flush list */
};

struct write_req {
    uv_write_t w;
    struct http_conn *conn;
    char data[];
};

static void conn_process(struct http_conn *c);
static void conn_flush(struct http_conn *c);
static void start_reading(struct http_conn *c);

static void on_closed(uv_handle_t *h)
{
    struct http_conn *c = h->data;
    struct http_transport *t = c->t;
    for (struct http_conn **p = &t->flush_list; *p; p = &(*p)->flush_next) {
        if (*p == c) {
            *p = c->flush_next;
            break;
        }
    }
    free(c->in);
    strbuf_finish(&c->head);
    free(c);
    t->n_conns--;
}

static void conn_close(struct http_conn *c)
{
    if (c->state == CONN_CLOSING)
        return;
    c->state = CONN_CLOSING;
    struct http_req *req = c->req;
    c->req = NULL;
    if (req) {
        req->conn = NULL;
        http_req_destroy(req);
    }
    struct http_transport *t = c->t;
    if (c->prev)
        c->prev->next = c->next;
    else
        t->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    /* On the flush list it stays until closed: the runner skips it. */
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}

/* Writing happens outside the caller's stack: whoever answers a request
 * (a tool finishing, a stream event) may still use it after the call, and
 * a completed answer destroys it. */
static void run_flushes(uv_idle_t *idle)
{
    struct http_transport *t = idle->data;
    uv_idle_stop(idle);
    while (t->flush_list) {
        struct http_conn *c = t->flush_list;
        t->flush_list = c->flush_next;
        c->flush_next = NULL;
        c->flush_queued = false;
        if (c->state == CONN_CLOSING)
            continue;
        if (c->state == CONN_ROUTED)
            conn_flush(c);
        else
            conn_process(c);
    }
}

static void queue(struct http_conn *c)
{
    if (c->flush_queued)
        return;
    c->flush_queued = true;
    c->flush_next = c->t->flush_list;
    c->t->flush_list = c;
    uv_idle_start(&c->t->flusher, run_flushes);
}

void http_conn_want_write(struct http_req *req)
{
    /* A request answered while it is routed is written when routing
     * returns (route). */
    if (req->conn && req->t->routing != req)
        queue(req->conn);
}

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 411:
        return "Length Required";
    case 413:
        return "Payload Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Unknown";
    }
}

#define PUT_LITERAL(sb, s) strbuf_append((sb), (s), sizeof(s) - 1)

/* Status line and headers, then the body when it is all there. Built by
 * appending, not printf: this runs for every answer. */
static void build_head(struct http_conn *c, struct http_req *req, struct strbuf *head)
{
    strbuf_reserve(head, 256);
    PUT_LITERAL(head, "HTTP/1.1 ");
    strbuf_put_size(head, (size_t)req->status);
    strbuf_putc(head, ' ');
    strbuf_puts(head, reason(req->status));
    PUT_LITERAL(head, "\r\n");
    if (req->resp_type) {
        PUT_LITERAL(head, "content-type: ");
        strbuf_puts(head, req->resp_type);
        PUT_LITERAL(head, "\r\n");
    }
    if (!req->streaming) {
        PUT_LITERAL(head, "content-length: ");
        strbuf_put_size(head, req->out.len);
        PUT_LITERAL(head, "\r\n");
    }
    for (const char *h = req->resp_headers.data; h && *h;) {
        const char *nl = strchr(h, '\n');
        const char *v = nl + 1;
        const char *vend = strchr(v, '\n');
        strbuf_append(head, h, (size_t)(nl - h)); /* name has its colon */
        strbuf_putc(head, ' ');
        strbuf_append(head, v, (size_t)(vend - v));
        PUT_LITERAL(head, "\r\n");
        h = vend + 1;
    }
    if (req->close_after || !c->keep_alive)
        PUT_LITERAL(head, "connection: close\r\n");
    PUT_LITERAL(head, "\r\n");
}

static void on_written(uv_write_t *w, int status)
{
    struct write_req *wr = (struct write_req *)w;
    struct http_conn *c = wr->conn;
    free(wr);
    c->writing = false;
    if (c->state == CONN_CLOSING)
        return;
    if (status < 0) {
        log_debug("client %s: write failed: %s", c->remote, uv_strerror(status));
        conn_close(c);
        return;
    }
    conn_flush(c);
}

/* Write what can go now; the rest through one uv_write at a time. False
 * when the connection was closed. */
static bool send_bytes(struct http_conn *c, const char *a, size_t alen, const char *b, size_t blen)
{
    uv_buf_t bufs[2] = {uv_buf_init((char *)a, (unsigned)alen),
                        uv_buf_init((char *)b, (unsigned)blen)};
    int n = uv_try_write((uv_stream_t *)&c->tcp, bufs, blen ? 2 : 1);
    if (n == UV_EAGAIN || n == UV_ENOSYS)
        n = 0;
    if (n < 0) {
        log_debug("client %s: write failed: %s", c->remote, uv_strerror(n));
        conn_close(c);
        return false;
    }
    size_t done = (size_t)n, total = alen + blen;
    if (done == total)
        return true;
    struct write_req *wr = xmalloc(sizeof *wr + (total - done));
    size_t off = 0;
    if (done < alen) {
        memcpy(wr->data, a + done, alen - done);
        off = alen - done;
        memcpy(wr->data + off, b, blen);
        off += blen;
    } else {
        memcpy(wr->data, b + (done - alen), total - done);
        off = total - done;
    }
    wr->conn = c;
    uv_buf_t rest = uv_buf_init(wr->data, (unsigned)off);
    c->writing = true;
    int rc = uv_write(&wr->w, (uv_stream_t *)&c->tcp, &rest, 1, on_written);
    if (rc < 0) {
        free(wr);
        c->writing = false;
        conn_close(c);
        return false;
    }
    return true;
}

/* The answer is out: close, or read the next request. */
static void complete(struct http_conn *c)
{
    struct http_req *req = c->req;
    bool close = req->streaming || req->close_after || !c->keep_alive;
    c->req = NULL;
    req->conn = NULL;
    http_req_destroy(req);
    if (close || c->t->shutting_down) {
        conn_close(c);
        return;
    }
    c->state = CONN_HEAD;
    c->since_ms = uv_now(c->t->app->loop);
    if (!c->reading) {
        /* Stopped while a long pipeline waited. */
        c->reading = true;
        start_reading(c);
    }
    if (c->in_len)
        queue(c); /* a pipelined request: read it on the next run */
}

static void conn_flush(struct http_conn *c)
{
    struct http_req *req = c->req;
    if (!req || !req->responding || c->writing || c->state != CONN_ROUTED)
        return;
    if (!req->headers_sent) {
        strbuf_clear(&c->head);
        build_head(c, req, &c->head);
        req->headers_sent = true;
        bool with_body = !req->streaming && req->ended;
        bool ok = send_bytes(c, c->head.data, c->head.len, with_body ? req->out.data : NULL,
                             with_body ? req->out.len : 0);
        if (!ok)
            return;
        if (with_body)
            strbuf_clear(&req->out);
    }
    if (req->out.len && !c->writing) {
        if (!send_bytes(c, req->out.data, req->out.len, NULL, 0))
            return;
        strbuf_clear(&req->out);
    }
    if (!c->writing && req->ended && !req->out.len)
        complete(c);
}

/* Routing, once the guard passed and the body is in; an answer complete by
 * the time routing returns is written here, without a loop turn. */
static void route(struct http_conn *c)
{
    struct http_req *req = c->req;
    struct http_transport *t = c->t;
    c->state = CONN_ROUTED;
    req->routed = true;
    t->routing = req;
    http_dispatch(req);
    t->routing = NULL;
    if (c->req == req && req->responding)
        conn_flush(c);
}

/* Answered before the request was read to its end: what follows in the
 * stream cannot be trusted to be a request. */
static void refuse(struct http_conn *c, int status, const char *msg)
{
    if (!c->req) {
        c->req = http_req_alloc(c->t);
        c->req->conn = c;
        memcpy(c->req->remote, c->remote, sizeof c->req->remote);
    }
    c->state = CONN_ROUTED;
    c->req->close_after = true;
    c->req->routed = true;
    c->t->routing = c->req;
    http_req_fail(c->req, status, JSONRPC_INVALID_REQUEST, "%s", msg);
    c->t->routing = NULL;
    c->in_len = 0;
    conn_flush(c);
}

static bool token_eq(const char *a, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(a, lit, n) == 0;
}

/* A copy of a header value in req->head_values, which parse_head sized
 * for the whole head: it never moves while the head is read. */
static char *dup_value(struct http_req *req, const char *v, size_t n)
{
    struct strbuf *sb = &req->head_values;
    char *s = sb->data + sb->len;
    strbuf_append(sb, v, n);
    strbuf_putc(sb, '\0');
    return s;
}

/* One header line: false (and *why) if it is malformed. */
static bool take_header(struct http_req *req, const char *line, size_t n, bool *keep_alive,
                        bool *chunked, bool *expect_continue, const char **why)
{
    const char *colon = memchr(line, ':', n);
    if (!colon || colon == line || line[0] == ' ' || line[0] == '\t') {
        *why = "Bad request: a malformed header line";
        return false;
    }
    size_t nlen = (size_t)(colon - line);
    for (size_t i = 0; i < nlen; i++)
        if ((unsigned char)line[i] <= 0x20 || (unsigned char)line[i] >= 0x7f) { /* isgraph in C */
            *why = "Bad request: a malformed header name";
            return false;
        }
    const char *v = colon + 1, *end = line + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vlen = (size_t)(end - v);
#define KNOWN(name, field)                                                                         \
    {                                                                                              \
        name, sizeof name - 1, offsetof(struct http_req, field)                                    \
    }
    static const struct {
        const char *name;
        size_t len;
        size_t off;
    } known[] = {
        KNOWN("host", host),
        KNOWN("origin", origin),
        KNOWN("authorization", authorization),
        KNOWN("accept", accept),
        KNOWN("content-type", content_type),
        KNOWN("mcp-session-id", session_id),
        KNOWN("mcp-protocol-version", protocol_version),
        KNOWN("last-event-id", last_event_id),
        KNOWN("mcp-method", mcp_method),
        KNOWN("mcp-name", mcp_name),
        KNOWN("x-correlation-id", correlation_id),
        KNOWN("cookie", cookie),
        KNOWN("accept-encoding", accept_encoding),
        KNOWN("upgrade", upgrade),
        KNOWN("sec-websocket-key", ws_key),
        KNOWN("sec-websocket-version", ws_version),
        KNOWN("sec-websocket-protocol", ws_protocol),
    };
#undef KNOWN
    char first = (char)tolower((unsigned char)line[0]);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        /* The length and the first letter first: most names differ there. */
        if (known[i].len == nlen && first == known[i].name[0] &&
            strncasecmp(line, known[i].name, nlen) == 0) {
            char **slot = (char **)((char *)req + known[i].off);
            if (!*slot) /* the first of repeated headers counts */
                *slot = dup_value(req, v, vlen);
            return true;
        }
    }
    if (token_eq(line, nlen, "content-length")) {
        long cl = 0;
        if (!vlen || vlen > 15) {
            *why = "Bad request: Content-Length is not a number of bytes";
            return false;
        }
        for (size_t i = 0; i < vlen; i++) {
            if (!isdigit((unsigned char)v[i])) {
                *why = "Bad request: Content-Length is not a number of bytes";
                return false;
            }
            cl = cl * 10 + (v[i] - '0');
        }
        if (req->content_length >= 0 && req->content_length != cl) {
            *why = "Bad request: two different Content-Length headers";
            return false;
        }
        req->content_length = cl;
    } else if (token_eq(line, nlen, "transfer-encoding")) {
        *chunked = true;
    } else if (token_eq(line, nlen, "expect")) {
        *expect_continue = token_eq(v, vlen, "100-continue");
    } else if (token_eq(line, nlen, "connection")) {
        for (const char *p = v; p < end;) {
            while (p < end && (*p == ' ' || *p == ','))
                p++;
            const char *q = p;
            while (q < end && *q != ',' && *q != ' ')
                q++;
            if (token_eq(p, (size_t)(q - p), "close"))
                *keep_alive = false;
            else if (token_eq(p, (size_t)(q - p), "keep-alive"))
                *keep_alive = true;
            p = q;
        }
    }
    return true;
}

static enum http_method method_of(const char *m, size_t n)
{
    if (n == 3 && !memcmp(m, "GET", 3))
        return HTTP_GET;
    if (n == 4 && !memcmp(m, "POST", 4))
        return HTTP_POST;
    if (n == 6 && !memcmp(m, "DELETE", 6))
        return HTTP_DELETE;
    if (n == 7 && !memcmp(m, "OPTIONS", 7))
        return HTTP_OPTIONS;
    return HTTP_OTHER;
}

/* Parses the head in c->in[0..len) (ending with its empty line) into a new
 * request; false when it was refused. */
static bool parse_head(struct http_conn *c, size_t len, bool *chunked, bool *expect_continue)
{
    struct http_req *req = http_req_alloc(c->t);
    req->conn = c;
    c->req = req;
    memcpy(req->remote, c->remote, sizeof req->remote);
    /* Every value with its NUL fits in the head's length. */
    strbuf_reserve(&req->head_values, len + 1);
    const char *p = c->in, *end = c->in + len;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)(eol - p);
    if (n && p[n - 1] == '\r')
        n--;
    /* METHOD SP target SP HTTP/1.x */
    const char *sp1 = memchr(p, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(p + n - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == p || sp2 == sp1 + 1 || sp1[1] != '/' ||
        (size_t)(p + n - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
        (sp2[8] != '0' && sp2[8] != '1')) {
        refuse(c, 400, "Bad request: expected \"METHOD /path HTTP/1.1\"");
        return false;
    }
    req->method = method_of(p, (size_t)(sp1 - p));
    c->keep_alive = sp2[8] == '1';
    const char *target = sp1 + 1;
    size_t tlen = (size_t)(sp2 - target);
    const char *q = memchr(target, '?', tlen);
    size_t plen = q ? (size_t)(q - target) : tlen;
    if (plen >= sizeof req->path || (q && tlen - plen - 1 >= sizeof req->query)) {
        refuse(c, 414, "URI too long");
        return false;
    }
    memcpy(req->path, target, plen);
    req->path[plen] = '\0';
    if (q) {
        memcpy(req->query, q + 1, tlen - plen - 1);
        req->query[tlen - plen - 1] = '\0';
    }
    int count = 0;
    for (p = eol + 1; p < end;) {
        eol = memchr(p, '\n', (size_t)(end - p));
        n = (size_t)(eol - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n == 0)
            break;
        const char *why = NULL;
        if (++count > MAX_HEADERS) {
            refuse(c, 431, "Request header fields too large: more than 64 headers");
            return false;
        }
        if (!take_header(req, p, n, &c->keep_alive, chunked, expect_continue, &why)) {
            refuse(c, 400, why);
            return false;
        }
        p = eol + 1;
    }
    return true;
}

static void consume(struct http_conn *c, size_t n)
{
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

static void answer_too_large(struct http_req *req, bool closing)
{
    size_t limit = req->t->app->max_message;
    http_req_fail(req, 413, JSONRPC_INVALID_REQUEST,
                  "Payload too large: the body is %ld bytes; the limit is %zu bytes "
                  "(glovebox serve --max-message)",
                  req->content_length, limit);
    req->close_after = closing;
}

/* Body bytes: kept, or dropped when over --max-message. True once the body
 * is complete. */
static bool take_body(struct http_conn *c)
{
    struct http_req *req = c->req;
    size_t n = c->in_len < c->body_left ? c->in_len : c->body_left;
    if (req->discarding || c->drop_body)
        req->discarded += n;
    else
        strbuf_append(&req->body, c->in, n);
    consume(c, n);
    c->body_left -= n;
    return c->body_left == 0;
}

static void body_done(struct http_conn *c)
{
    struct http_req *req = c->req;
    if (c->drop_body) {
        c->drop_body = false;
    } else if (req->discarding) {
        c->state = CONN_ROUTED;
        req->routed = true;
        c->t->routing = req;
        answer_too_large(req, false); /* the body is read: the connection serves on */
        c->t->routing = NULL;
        conn_flush(c);
        return;
    }
    req->close_after = false;
    route(c);
}

/* The length of the head at the start of in[0..n), up to and including its
 * empty line; 0 when that line is not there (yet). Searched a line at a
 * time with memchr: a byte at a time was 6% of the server's instructions
 * per call. Looks no further than MAX_HEAD + 4 bytes. */
static size_t head_end(const char *in, size_t n)
{
    size_t limit = n < MAX_HEAD + 4 ? n : MAX_HEAD + 4;
    const char *p = in, *end = in + limit;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl || (size_t)(nl - in) + 1 >= n)
            return 0;
        if (nl[1] == '\n')
            return (size_t)(nl - in) + 2;
        if (nl[1] == '\r' && (size_t)(nl - in) + 2 < n && nl[2] == '\n')
            return (size_t)(nl - in) + 3;
        p = nl + 1;
    }
    return 0;
}

/* Reads requests out of c->in while it holds whole heads and bodies. */
static void conn_process(struct http_conn *c)
{
    struct http_transport *t = c->t;
    while (c->state == CONN_HEAD || c->state == CONN_BODY) {
        if (c->state == CONN_BODY) {
            if (!take_body(c))
                return;
            body_done(c);
            continue;
        }
        if (!c->in_len)
            return;
        size_t len = head_end(c->in, c->in_len);
        if (!len) {
            if (c->in_len > MAX_HEAD)
                refuse(c, 431, "Request header fields too large: the head is over 8192 bytes");
            return;
        }
        if (len > MAX_HEAD + 4) {
            refuse(c, 431, "Request header fields too large: the head is over 8192 bytes");
            return;
        }
        if (t->shutting_down) {
            conn_close(c);
            return;
        }
        bool chunked = false, expect_continue = false;
        if (!parse_head(c, len, &chunked, &expect_continue))
            return;
        consume(c, len);
        c->since_ms = uv_now(t->app->loop);
        struct http_req *req = c->req;
        if (chunked) {
            refuse(c, 411,
                   "Length required: send the body with Content-Length (Transfer-Encoding is "
                   "not accepted)");
            return;
        }
        bool has_body = req->content_length > 0;
        /* Anything answered before the body was read must close the
         * connection: the unread body would be taken for the next request. */
        req->close_after = has_body;
        c->state = CONN_ROUTED;
        t->routing = req;
        bool pass = http_guard_check(req) && http_guard_open(req);
        t->routing = NULL;
        if (!pass) {
            req->routed = true;
            conn_flush(c);
            return;
        }
        if (req->method == HTTP_POST && has_body) {
            if ((size_t)req->content_length > t->app->max_message) {
                req->discarding = true;
                if ((size_t)req->content_length > MAX_DISCARD) {
                    c->t->routing = req;
                    answer_too_large(req, true);
                    c->t->routing = NULL;
                    req->routed = true;
                    conn_flush(c);
                    return;
                }
            }
            c->body_left = (size_t)req->content_length;
            c->state = CONN_BODY;
            /* curl waits a second for this before sending a body over 1 KiB. */
            static const char go_on[] = "HTTP/1.1 100 Continue\r\n\r\n";
            if (expect_continue && !c->in_len && !send_bytes(c, go_on, sizeof go_on - 1, NULL, 0))
                return;
            continue;
        }
        if (has_body) {
            /* A body on another method: read and dropped. */
            c->drop_body = true;
            c->body_left = (size_t)req->content_length;
            c->state = CONN_BODY;
            req->close_after = false;
            continue;
        }
        req->close_after = false;
        route(c);
    }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    struct http_conn *c = h->data;
    if (c->in_cap - c->in_len < 4096) {
        c->in_cap = c->in_cap ? c->in_cap * 2 : 8192;
        c->in = xrealloc(c->in, c->in_cap);
    }
    *buf = uv_buf_init(c->in + c->in_len, (unsigned)(c->in_cap - c->in_len));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    struct http_conn *c = s->data;
    if (n == 0 || c->state == CONN_CLOSING)
        return;
    if (n < 0) {
        /* The client hung up (or the socket failed): a request waiting for
         * its answer or streaming one is cancelled with it. */
        if (n != UV_EOF)
            log_debug("client %s: read failed: %s", c->remote, uv_strerror((int)n));
        conn_close(c);
        return;
    }
    c->in_len += (size_t)n;
    if (c->state == CONN_ROUTED) {
        /* The next request came before this one's answer: kept for later,
         * up to a bound; past it, reading waits. */
        if (c->in_len > MAX_PIPELINED) {
            uv_read_stop(s);
            c->reading = false;
        }
        return;
    }
    if (c->state == CONN_HEAD && c->in_len == (size_t)n)
        c->since_ms = uv_now(c->t->app->loop);
    conn_process(c);
}

static void start_reading(struct http_conn *c)
{
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

bool http_conn_adopt(struct http_transport *t, int fd, const char *remote)
{
    struct http_conn *c = xcalloc(1, sizeof *c);
    c->t = t;
    snprintf(c->remote, sizeof c->remote, "%s", remote ? remote : "?");
    uv_tcp_init(t->app->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_tcp_open(&c->tcp, fd) < 0) {
        close(fd);
        c->state = CONN_CLOSING;
        t->n_conns++;
        uv_close((uv_handle_t *)&c->tcp, on_closed);
        return false;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    t->n_conns++;
    c->next = t->conns;
    if (t->conns)
        t->conns->prev = c;
    t->conns = c;
    c->state = CONN_HEAD;
    c->keep_alive = true;
    c->since_ms = uv_now(t->app->loop);
    c->reading = true;
    start_reading(c);
    return true;
}

bool http_conn_detach(struct http_req *req, int *fd, struct strbuf *rest)
{
    struct http_conn *c = req->conn;
    uv_os_fd_t ofd;
    if (!c || uv_fileno((uv_handle_t *)&c->tcp, &ofd) < 0)
        return false;
    /* A duplicate survives the close of the connection's own handle, which
     * takes the descriptor out of the loop's epoll set first. */
    int d = fcntl(ofd, F_DUPFD_CLOEXEC, 0);
    if (d < 0)
        return false;
    strbuf_append(rest, c->in, c->in_len);
    c->in_len = 0;
    *fd = d;
    conn_close(c);
    return true;
}

void http_conns_sweep(struct http_transport *t, uint64_t now_ms)
{
    for (struct http_conn *c = t->conns, *next; c; c = next) {
        next = c->next;
        if (c->state != CONN_ROUTED && now_ms - c->since_ms > IO_TIMEOUT_MS) {
            log_debug("client %s: closing an idle or stalled connection", c->remote);
            conn_close(c);
        }
    }
}

void http_conns_close_all(struct http_transport *t)
{
    while (t->conns)
        conn_close(t->conns);
}
