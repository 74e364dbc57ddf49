/* A small WebSocket client (RFC 6455) for the DevTools protocol of a
 * browser glovebox started: plain TCP on loopback, text frames, client
 * frames masked, messages reassembled from fragments, pings answered. */
#include "backend/webdriver/cdp.h"

#include "core/xmalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message larger than this ends the socket (a screencast PNG of a 4k
 * viewport is a few MB in base64). */
#define MAX_MESSAGE (64u << 20)
/* How often commands are checked for their time limit. */
#define SWEEP_MS 100

struct pending {
    struct pending *next;
    long id;
    uint64_t deadline;
    wd_cdp_reply_fn fn;
    void *ud;
};

struct wd_cdp {
    uv_loop_t *loop;
    uv_tcp_t tcp;
    uv_timer_t timer;
    uv_connect_t connect;
    int open_handles;
    char *request; /* the upgrade request, until sent */
    bool upgraded, closed;
    uint8_t *in; /* bytes read, not yet taken */
    size_t in_len, in_cap;
    char *msg; /* a fragmented message so far */
    size_t msg_len;
    long next_id;
    struct pending *pending;
    wd_cdp_event_fn ev;
    void *ud;
    uint32_t mask_seed;
};

struct write_req {
    uv_write_t req;
    uint8_t *buf;
};

static void fail_pending(struct wd_cdp *c, struct pending **link, const char *err)
{
    struct pending *p = *link;
    *link = p->next;
    if (p->fn)
        p->fn(p->ud, NULL, err);
    free(p);
}

static void handle_closed(uv_handle_t *h)
{
    struct wd_cdp *c = h->data;
    if (--c->open_handles == 0) {
        free(c->in);
        free(c->msg);
        free(c->request);
        free(c);
    }
}

/* The socket is done: pending commands fail, the owner hears it once. */
static void shut(struct wd_cdp *c, const char *why)
{
    if (c->closed)
        return;
    c->closed = true;
    while (c->pending)
        fail_pending(c, &c->pending, why);
    if (c->ev)
        c->ev(c->ud, NULL, NULL);
}

static void wrote(uv_write_t *req, int status)
{
    (void)status;
    struct write_req *w = (struct write_req *)req;
    free(w->buf);
    free(w);
}

/* One masked frame of opcode with payload. */
static void send_frame(struct wd_cdp *c, int opcode, const uint8_t *data, size_t len)
{
    uint8_t *buf = xmalloc(len + 14);
    size_t n = 0;
    buf[n++] = (uint8_t)(0x80 | opcode);
    if (len < 126) {
        buf[n++] = (uint8_t)(0x80 | len);
    } else if (len < 65536) {
        buf[n++] = 0x80 | 126;
        buf[n++] = (uint8_t)(len >> 8);
        buf[n++] = (uint8_t)len;
    } else {
        buf[n++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            buf[n++] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    /* The mask only keeps proxies from reading frames as HTTP: on loopback
     * it needs to differ per frame, not to be unpredictable. */
    c->mask_seed = c->mask_seed * 1103515245u + 12345u;
    uint8_t mask[4] = {(uint8_t)(c->mask_seed >> 24), (uint8_t)(c->mask_seed >> 16),
                       (uint8_t)(c->mask_seed >> 8), (uint8_t)c->mask_seed};
    memcpy(buf + n, mask, 4);
    n += 4;
    for (size_t i = 0; i < len; i++)
        buf[n + i] = data[i] ^ mask[i & 3];
    struct write_req *w = xmalloc(sizeof *w);
    w->buf = buf;
    uv_buf_t b = uv_buf_init((char *)buf, (unsigned)(n + len));
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, wrote) != 0) {
        free(buf);
        free(w);
        shut(c, "the DevTools socket is closed");
    }
}

static void message(struct wd_cdp *c, const char *text, size_t len)
{
    json_t *doc = json_loadb(text, len, 0, NULL);
    if (!doc)
        return;
    json_t *id = json_object_get(doc, "id");
    if (json_is_integer(id)) {
        for (struct pending **l = &c->pending; *l; l = &(*l)->next) {
            if ((*l)->id != json_integer_value(id))
                continue;
            struct pending *p = *l;
            *l = p->next;
            json_t *err = json_object_get(doc, "error");
            if (p->fn) {
                if (err) {
                    const char *m = json_string_value(json_object_get(err, "message"));
                    p->fn(p->ud, NULL, m ? m : "DevTools error");
                } else {
                    p->fn(p->ud, json_object_get(doc, "result"), NULL);
                }
            }
            free(p);
            break;
        }
    } else if (json_is_string(json_object_get(doc, "method")) && c->ev &&
               (!json_object_get(doc, "sessionId") ||
                strncmp(json_string_value(json_object_get(doc, "method")), "Target.", 7) == 0)) {
        c->ev(c->ud, json_string_value(json_object_get(doc, "method")),
              json_object_get(doc, "params"));
    }
    json_decref(doc);
}

/* Takes the frames in c->in; false when the socket is to end. */
static bool take_frames(struct wd_cdp *c)
{
    size_t at = 0;
    while (!c->closed && c->in_len - at >= 2) {
        const uint8_t *p = c->in + at;
        size_t avail = c->in_len - at, head = 2;
        uint64_t len = p[1] & 0x7f;
        if (len == 126) {
            if (avail < 4)
                break;
            len = (uint64_t)p[2] << 8 | p[3];
            head = 4;
        } else if (len == 127) {
            if (avail < 10)
                break;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = len << 8 | p[2 + i];
            head = 10;
        }
        if (p[1] & 0x80 || len > MAX_MESSAGE)
            return false; /* servers do not mask; nor send this much */
        if (avail - head < len)
            break;
        int opcode = p[0] & 0x0f;
        bool fin = p[0] & 0x80;
        const uint8_t *data = p + head;
        if (opcode == 8)
            return false;
        if (opcode == 9)
            send_frame(c, 10, data, (size_t)len);
        else if (opcode <= 2) {
            if (opcode != 0 || c->msg_len || c->msg) {
                if (c->msg_len + len > MAX_MESSAGE)
                    return false;
                if (fin && !c->msg) {
                    message(c, (const char *)data, (size_t)len);
                } else {
                    c->msg = xrealloc(c->msg, c->msg_len + (size_t)len + 1);
                    memcpy(c->msg + c->msg_len, data, (size_t)len);
                    c->msg_len += (size_t)len;
                    if (fin) {
                        message(c, c->msg, c->msg_len);
                        free(c->msg);
                        c->msg = NULL;
                        c->msg_len = 0;
                    }
                }
            }
        }
        at += head + (size_t)len;
    }
    memmove(c->in, c->in + at, c->in_len - at);
    c->in_len -= at;
    return true;
}

/* The upgrade's answer; false when it is not 101. */
static bool take_upgrade(struct wd_cdp *c)
{
    uint8_t *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    if (!end)
        return c->in_len < 16384;
    if (c->in_len < 12 || memcmp(c->in, "HTTP/1.1 101", 12) != 0)
        return false;
    size_t used = (size_t)(end + 4 - c->in);
    memmove(c->in, c->in + used, c->in_len - used);
    c->in_len -= used;
    c->upgraded = true;
    return true;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct wd_cdp *c = h->data;
    if (suggested < 65536)
        suggested = 65536;
    if (c->in_cap - c->in_len < suggested) {
        c->in_cap = c->in_len + suggested;
        c->in = xrealloc(c->in, c->in_cap);
    }
    *buf = uv_buf_init((char *)c->in + c->in_len, (unsigned)(c->in_cap - c->in_len));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    struct wd_cdp *c = s->data;
    if (c->closed)
        return;
    if (n < 0) {
        uv_read_stop(s);
        shut(c, "the DevTools socket closed");
        return;
    }
    c->in_len += (size_t)n;
    bool ok = c->upgraded || take_upgrade(c);
    if (ok && c->upgraded)
        ok = take_frames(c);
    if (!ok) {
        uv_read_stop(s);
        shut(c, "the DevTools socket broke the protocol");
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    struct wd_cdp *c = req->data;
    if (c->closed)
        return;
    if (status < 0) {
        shut(c, "cannot reach the browser's DevTools");
        return;
    }
    struct write_req *w = xmalloc(sizeof *w);
    w->buf = (uint8_t *)c->request;
    c->request = NULL;
    uv_buf_t b = uv_buf_init((char *)w->buf, (unsigned)strlen((char *)w->buf));
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, wrote) != 0 ||
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) {
        shut(c, "cannot talk to the browser's DevTools");
    }
}

static void sweep(uv_timer_t *t)
{
    struct wd_cdp *c = t->data;
    uint64_t now = uv_now(c->loop);
    for (struct pending **l = &c->pending; *l;) {
        if ((*l)->deadline <= now)
            fail_pending(c, l, "the browser's DevTools did not answer in time");
        else
            l = &(*l)->next;
    }
}

struct wd_cdp *wd_cdp_open(uv_loop_t *loop, int port, const char *path, wd_cdp_event_fn ev,
                           void *ud)
{
    struct wd_cdp *c = xcalloc(1, sizeof *c);
    c->loop = loop;
    c->ev = ev;
    c->ud = ud;
    c->mask_seed = (uint32_t)uv_hrtime();
    c->request = xasprintf("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: Z2xvdmVib3gtY2RwLWtleQ==\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n",
                           path, port);
    uv_tcp_init(loop, &c->tcp);
    uv_timer_init(loop, &c->timer);
    c->tcp.data = c->timer.data = c->connect.data = c;
    c->open_handles = 2;
    uv_timer_start(&c->timer, sweep, SWEEP_MS, SWEEP_MS);
    uv_unref((uv_handle_t *)&c->timer);
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", port, &addr);
    if (uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)&addr, on_connect) != 0)
        c->closed = true;
    return c;
}

bool wd_cdp_ready(const struct wd_cdp *c)
{
    return c && c->upgraded && !c->closed;
}

void wd_cdp_call(struct wd_cdp *c, const char *method, json_t *params, long timeout_ms,
                 wd_cdp_reply_fn fn, void *ud)
{
    wd_cdp_call_in(c, NULL, method, params, timeout_ms, fn, ud);
}

void wd_cdp_call_in(struct wd_cdp *c, const char *session, const char *method, json_t *params,
                    long timeout_ms, wd_cdp_reply_fn fn, void *ud)
{
    if (!wd_cdp_ready(c)) {
        json_decref(params);
        if (fn)
            fn(ud, NULL, "the browser's DevTools socket is not open");
        return;
    }
    long id = ++c->next_id;
    json_t *msg = json_pack("{s:I, s:s, s:o}", "id", (json_int_t)id, "method", method, "params",
                            params ? params : json_object());
    if (session)
        json_object_set_new(msg, "sessionId", json_string(session));
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    struct pending *p = xcalloc(1, sizeof *p);
    p->id = id;
    p->fn = fn;
    p->ud = ud;
    p->deadline = uv_now(c->loop) + (uint64_t)timeout_ms;
    p->next = c->pending;
    c->pending = p;
    send_frame(c, 1, (const uint8_t *)text, strlen(text));
    free(text);
}

void wd_cdp_close(struct wd_cdp *c)
{
    if (!c)
        return;
    c->ev = NULL;
    shut(c, "closed");
    /* At exit the server has closed every handle already and the loop is
     * gone: nothing refers to ours any more. */
    if (uv_is_closing((uv_handle_t *)&c->tcp)) {
        c->open_handles = 1;
        handle_closed((uv_handle_t *)&c->tcp);
        return;
    }
    uv_close((uv_handle_t *)&c->tcp, handle_closed);
    uv_close((uv_handle_t *)&c->timer, handle_closed);
}
