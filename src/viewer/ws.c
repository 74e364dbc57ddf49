/* WebSocket framing (ws.h). The socket is read with uv_read_start into a
 * buffer bounded by one frame; writes are queued with uv_write and counted
 * so the viewer can skip frames for a client that cannot keep up. */
#define LOG_MODULE "viewer"
#include "viewer/ws.h"

#include "core/log.h"
#include "core/xmalloc.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ws {
    uv_tcp_t tcp;
    const struct ws_handlers *h;
    void *ud;
    uint8_t *in;
    size_t in_len, in_cap;
    size_t queued; /* bytes handed to uv_write, not yet written */
    bool closing;  /* a close frame sent or the peer gone */
    bool handle_closed;
    double tokens; /* message rate bucket */
    uint64_t refilled_ms;
    struct ws_lws *lws; /* HTTPS: libwebsockets frames it (tcp unused); NULL: ours */
    uv_loop_t *loop;
};

struct ws_write {
    uv_write_t w;
    struct ws *ws;
    size_t len;
    bool then_close;
    uint8_t data[];
};

void ws_accept_key(const char *key, char *out)
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s%s", key, guid);
    unsigned char md[20];
    unsigned int mdlen = 0;
    EVP_Digest(buf, (size_t)n, md, &mdlen, EVP_sha1(), NULL);
    EVP_EncodeBlock((unsigned char *)out, md, 20); /* 28 characters and a NUL */
}

static void on_handle_closed(uv_handle_t *hd)
{
    struct ws *ws = hd->data;
    ws->h->closed(ws, ws->ud);
    free(ws->in);
    free(ws);
}

static void shut(struct ws *ws)
{
    ws->closing = true;
    if (ws->handle_closed)
        return;
    ws->handle_closed = true;
    uv_close((uv_handle_t *)&ws->tcp, on_handle_closed);
}

static void on_written(uv_write_t *w, int status)
{
    struct ws_write *wr = (struct ws_write *)w;
    struct ws *ws = wr->ws;
    ws->queued -= wr->len;
    bool close_now = wr->then_close || status < 0;
    free(wr);
    if (close_now)
        shut(ws);
}

static void frame_out(struct ws *ws, uint8_t opcode, const void *a, size_t alen, const void *b,
                      size_t blen, bool then_close)
{
    if (ws->handle_closed)
        return;
    size_t len = alen + blen;
    uint8_t head[10];
    size_t hl = 2;
    head[0] = 0x80 | opcode;
    if (len < 126) {
        head[1] = (uint8_t)len;
    } else if (len < 65536) {
        head[1] = 126;
        head[2] = (uint8_t)(len >> 8);
        head[3] = (uint8_t)len;
        hl = 4;
    } else {
        head[1] = 127;
        for (int i = 0; i < 8; i++)
            head[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
        hl = 10;
    }
    struct ws_write *wr = xmalloc(sizeof *wr + hl + len);
    wr->ws = ws;
    wr->len = hl + len;
    wr->then_close = then_close;
    memcpy(wr->data, head, hl);
    if (alen)
        memcpy(wr->data + hl, a, alen);
    if (blen)
        memcpy(wr->data + hl + alen, b, blen);
    uv_buf_t buf = uv_buf_init((char *)wr->data, (unsigned)wr->len);
    ws->queued += wr->len;
    if (uv_write(&wr->w, (uv_stream_t *)&ws->tcp, &buf, 1, on_written) < 0) {
        ws->queued -= wr->len;
        free(wr);
        shut(ws);
    }
}

void ws_send(struct ws *ws, bool text, const void *data, size_t len)
{
    if (ws->closing)
        return;
    if (ws->lws)
        ws_lws_send(ws->lws, text, data, len, NULL, 0);
    else
        frame_out(ws, text ? 1 : 2, data, len, NULL, 0, false);
}

void ws_send2(struct ws *ws, const void *a, size_t alen, const void *b, size_t blen)
{
    if (ws->closing)
        return;
    if (ws->lws)
        ws_lws_send(ws->lws, false, a, alen, b, blen);
    else
        frame_out(ws, 2, a, alen, b, blen, false);
}

size_t ws_queued(const struct ws *ws)
{
    return ws->lws ? ws_lws_queued(ws->lws) : ws->queued;
}

bool ws_closing(const struct ws *ws)
{
    return ws->closing;
}

void ws_close(struct ws *ws, uint16_t code, const char *reason)
{
    if (ws->closing)
        return;
    ws->closing = true;
    if (ws->lws) {
        ws_lws_close(ws->lws, code, reason);
        return;
    }
    uint8_t payload[125];
    size_t rl = strlen(reason);
    if (rl > sizeof payload - 2)
        rl = sizeof payload - 2;
    payload[0] = (uint8_t)(code >> 8);
    payload[1] = (uint8_t)code;
    memcpy(payload + 2, reason, rl);
    frame_out(ws, 8, payload, rl + 2, NULL, 0, true);
}

/* False when ws was closed (by the peer's message or an error). */
static bool one_frame(struct ws *ws, size_t *used)
{
    *used = 0;
    if (ws->in_len < 2)
        return true;
    uint8_t b0 = ws->in[0], b1 = ws->in[1];
    bool fin = b0 & 0x80, masked = b1 & 0x80;
    uint8_t opcode = b0 & 0x0f;
    uint64_t len = b1 & 0x7f;
    size_t hl = 2;
    if (b0 & 0x70) {
        ws_close(ws, 1002, "reserved bits set");
        return false;
    }
    if (!masked) {
        ws_close(ws, 1002, "client frames must be masked");
        return false;
    }
    if (len == 126) {
        if (ws->in_len < 4)
            return true;
        len = (uint64_t)ws->in[2] << 8 | ws->in[3];
        hl = 4;
    } else if (len == 127) {
        if (ws->in_len < 10)
            return true;
        len = 0;
        for (int i = 0; i < 8; i++)
            len = len << 8 | ws->in[2 + i];
        hl = 10;
    }
    if (len > WS_MAX_IN) {
        ws_close(ws, 1009, "message too big: at most 65536 bytes");
        return false;
    }
    if (ws->in_len < hl + 4 + len)
        return true;
    uint8_t *mask = ws->in + hl, *p = ws->in + hl + 4;
    for (uint64_t i = 0; i < len; i++)
        p[i] ^= mask[i & 3];
    *used = hl + 4 + (size_t)len;
    switch (opcode) {
    case 1:
    case 2:
        if (!fin) {
            ws_close(ws, 1003, "fragmented messages are not accepted");
            return false;
        }
        ws->h->message(ws, opcode == 1, (const char *)p, (size_t)len, ws->ud);
        return !ws->closing;
    case 8:
        ws_close(ws, 1000, "");
        return false;
    case 9:
        if (len > 125) {
            ws_close(ws, 1002, "control frame too long");
            return false;
        }
        frame_out(ws, 10, p, (size_t)len, NULL, 0, false);
        return true;
    case 10:
        return true;
    default:
        ws_close(ws, 1003, "unknown or continuation frame");
        return false;
    }
}

static bool rate_ok(struct ws *ws)
{
    uint64_t now = uv_now(ws->loop);
    ws->tokens += (double)(now - ws->refilled_ms) * WS_MAX_RATE / 1000.0;
    if (ws->tokens > 2.0 * WS_MAX_RATE)
        ws->tokens = 2.0 * WS_MAX_RATE;
    ws->refilled_ms = now;
    if (ws->tokens < 1.0)
        return false;
    ws->tokens -= 1.0;
    return true;
}

static void process(struct ws *ws)
{
    size_t off = 0;
    while (!ws->closing) {
        uint8_t *save_in = ws->in;
        size_t save_len = ws->in_len;
        ws->in += off;
        ws->in_len -= off;
        size_t used;
        bool ok = one_frame(ws, &used);
        ws->in = save_in;
        ws->in_len = save_len;
        if (!ok)
            return;
        if (!used)
            break;
        off += used;
        if (!rate_ok(ws)) {
            ws_close(ws, 1008, "too many messages: at most 200 a second");
            return;
        }
    }
    memmove(ws->in, ws->in + off, ws->in_len - off);
    ws->in_len -= off;
}

static void on_alloc(uv_handle_t *hd, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    struct ws *ws = hd->data;
    if (ws->in_cap - ws->in_len < 4096) {
        ws->in_cap = ws->in_cap ? ws->in_cap * 2 : 8192;
        ws->in = xrealloc(ws->in, ws->in_cap);
    }
    *buf = uv_buf_init((char *)ws->in + ws->in_len, (unsigned)(ws->in_cap - ws->in_len));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    struct ws *ws = s->data;
    if (n == 0)
        return;
    if (n < 0) {
        shut(ws);
        return;
    }
    if (ws->closing)
        return; /* waiting for our close frame to go out */
    ws->in_len += (size_t)n;
    process(ws);
    /* One frame at most WS_MAX_IN plus its head is ever kept. */
    if (!ws->closing && ws->in_len > WS_MAX_IN + 14)
        ws_close(ws, 1009, "message too big");
}

struct ws *ws_create(uv_loop_t *loop, int fd, const char *key, const char *protocol, const char *in,
                     size_t n, const struct ws_handlers *h, void *ud, char **err)
{
    struct ws *ws = xcalloc(1, sizeof *ws);
    ws->h = h;
    ws->ud = ud;
    ws->tokens = 2.0 * WS_MAX_RATE;
    ws->loop = loop;
    uv_tcp_init(loop, &ws->tcp);
    ws->tcp.data = ws;
    ws->refilled_ms = uv_now(loop);
    int rc = uv_tcp_open(&ws->tcp, fd);
    if (rc < 0) {
        *err = xasprintf("cannot use the socket: %s", uv_strerror(rc));
        close(fd);
        /* closed() is not called for a ws never returned. */
        ws->handle_closed = true;
        uv_close((uv_handle_t *)&ws->tcp, (uv_close_cb)free);
        return NULL;
    }
    uv_tcp_nodelay(&ws->tcp, 1);
    char accept[32];
    ws_accept_key(key, accept);
    char head[512];
    int hl = snprintf(head, sizeof head,
                      "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n"
                      "connection: Upgrade\r\nsec-websocket-accept: %s\r\n"
                      "sec-websocket-protocol: %s\r\n\r\n",
                      accept, protocol);
    struct ws_write *wr = xmalloc(sizeof *wr + (size_t)hl);
    wr->ws = ws;
    wr->len = (size_t)hl;
    wr->then_close = false;
    memcpy(wr->data, head, (size_t)hl);
    uv_buf_t buf = uv_buf_init((char *)wr->data, (unsigned)hl);
    ws->queued += wr->len;
    uv_write(&wr->w, (uv_stream_t *)&ws->tcp, &buf, 1, on_written);
    if (n) {
        ws->in_cap = n + 8192;
        ws->in = xmalloc(ws->in_cap);
        memcpy(ws->in, in, n);
        ws->in_len = n;
    }
    uv_read_start((uv_stream_t *)&ws->tcp, on_alloc, on_read);
    return ws;
}

void ws_start(struct ws *ws)
{
    /* Bytes the client sent right behind its upgrade request came with it,
     * not with a read: no read event will come for them. */
    if (!ws->in_len || ws->closing)
        return;
    process(ws);
    if (!ws->closing && ws->in_len > WS_MAX_IN + 14)
        ws_close(ws, 1009, "message too big");
}

struct ws *ws_create_lws(uv_loop_t *loop, struct ws_lws *l, const struct ws_handlers *h, void *ud)
{
    struct ws *ws = xcalloc(1, sizeof *ws);
    ws->h = h;
    ws->ud = ud;
    ws->lws = l;
    ws->loop = loop;
    ws->tokens = 2.0 * WS_MAX_RATE;
    ws->refilled_ms = uv_now(loop);
    return ws;
}

void ws_lws_message(struct ws *ws, bool text, const char *data, size_t len)
{
    if (ws->closing)
        return;
    if (!rate_ok(ws)) {
        ws_close(ws, 1008, "too many messages: at most 200 a second");
        return;
    }
    ws->h->message(ws, text, data, len, ws->ud);
}

void ws_lws_gone(struct ws *ws)
{
    ws->closing = true;
    ws->h->closed(ws, ws->ud);
    free(ws);
}
