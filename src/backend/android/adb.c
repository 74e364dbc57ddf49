/* The adb smart-socket client (adb.h). A request is a small state machine
 * over one TCP connection: [transport switch → OKAY + 8-byte id] → request →
 * OKAY/FAIL → body by mode. Its answer is delivered once both libuv handles
 * have closed, so done never runs inside adb_request and the buffers the
 * reply points at are freed only after done returns. */
#define LOG_MODULE "adb"
#include "backend/android/adb.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_PORT              5037
#define ANDROID_STREAM_MAX_PACKET (1u << 20) /* adb's packets are at most 1 MiB */

static bool is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (strcmp(host, "localhost") == 0)
        return true;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return false;
}

static bool parse_host_port(const char *spec, const char *field, bool remote_ok,
                            struct adb_server *out, char **err)
{
    const char *s = strncmp(spec, "tcp:", 4) == 0 ? spec + 4 : spec;
    const char *colon = strrchr(s, ':');
    char host[64];
    if (!colon || colon == s || (size_t)(colon - s) >= sizeof host) {
        *err = xasprintf("%s: expected \"host:port\" (e.g. 127.0.0.1:5037), got \"%.100s\"", field,
                         spec);
        return false;
    }
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = 0;
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = 0;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 1 || port > 65535) {
        *err =
            xasprintf("%s: the port must be a number from 1 to 65535, got \"%.100s\"", field, spec);
        return false;
    }
    struct in6_addr any;
    if (remote_ok && !is_loopback(host) && inet_pton(AF_INET, host, &any) != 1 &&
        inet_pton(AF_INET6, host, &any) != 1) {
        *err = xasprintf("%s: a remote adb server is given by its IP address, not \"%s\"", field,
                         host);
        return false;
    }
    if (!remote_ok && !is_loopback(host)) {
        *err = xasprintf("%s: \"%s\" is not a loopback address; the adb server has no "
                         "authentication, so glovebox only talks to one on this machine "
                         "(127.0.0.1, ::1, localhost) unless the policy lists the host in "
                         "rules.android_connect.hosts (and rules.device_list.hosts); or reach "
                         "it through a tunnel (ssh -L 5037:127.0.0.1:5037 HOST)",
                         field, host);
        return false;
    }
    snprintf(out->host, sizeof out->host, "%s", strcmp(host, "localhost") ? host : "127.0.0.1");
    out->port = (int)port;
    return true;
}

bool adb_server_resolve(const char *spec, const char *field, bool remote_ok, struct adb_server *out,
                        char **err)
{
    if (spec)
        return parse_host_port(spec, field, remote_ok, out, err);
    const char *sock = getenv("ADB_SERVER_SOCKET");
    if (sock && *sock) {
        if (strncmp(sock, "tcp:", 4) != 0) {
            *err = xasprintf("ADB_SERVER_SOCKET: only tcp:HOST:PORT is supported, got \"%.100s\"",
                             sock);
            return false;
        }
        return parse_host_port(sock, "ADB_SERVER_SOCKET", false, out, err);
    }
    snprintf(out->host, sizeof out->host, "127.0.0.1");
    out->port = DEFAULT_PORT;
    const char *p = getenv("ANDROID_ADB_SERVER_PORT");
    if (p && *p) {
        char *end;
        long port = strtol(p, &end, 10);
        if (*end || port < 1 || port > 65535) {
            *err = xasprintf("ANDROID_ADB_SERVER_PORT: expected a port from 1 to 65535, got "
                             "\"%.100s\"",
                             p);
            return false;
        }
        out->port = (int)port;
    }
    return true;
}

enum step {
    STEP_CONNECT,
    STEP_TPORT_STATUS, /* OKAY/FAIL for host:tport */
    STEP_TPORT_ID,     /* 8-byte transport id */
    STEP_STATUS,       /* OKAY/FAIL for the request */
    STEP_FAIL_LEN,     /* FAIL: 4 hex digits */
    STEP_FAIL_MSG,
    STEP_HOST_LEN,
    STEP_HOST_BODY,
    STEP_BODY, /* exec: until EOF; shell v2: packets */
    STEP_DONE,
};

struct req {
    uv_tcp_t tcp;
    uv_timer_t timer;
    uv_connect_t connect;
    uv_write_t write;
    int closing;
    enum step step;
    enum adb_mode mode;
    struct adb_server srv;
    char *serial, *request;
    size_t max_bytes;
    uint64_t timeout_ms;
    adb_done_fn done;
    void *ud;
    char *wbuf; /* the frame being written */
    /* ADB_SYNC_PUSH: what to send once sync: is open. */
    const uint8_t *push_data;
    size_t push_len;
    char *push_path; /* "remote,mode" */
    uv_write_t push_write;
    uint8_t *push_heads; /* the packet headers, 8 bytes each */
    uv_buf_t *push_bufs;
    size_t push_nbufs, push_next; /* buffers made, the first not yet written */
    size_t push_sent;             /* bytes of data the socket took */
    adb_progress_fn push_progress;
    struct strbuf in; /* unparsed input */
    size_t want;      /* FAIL message / host payload length */
    struct strbuf out, err;
    int exit_code;
    bool got_exit;
    /* ADB_STREAM */
    adb_packet_fn packet;
    struct strbuf stdin_held; /* written before the service answered */
    bool stdin_end;           /* and stdin closed then */
    /* the answer */
    bool ok, lost;
    enum error_code code;
    char *error;
    bool step_reached_body;
};

static void closed(uv_handle_t *h)
{
    struct req *r = h->data;
    if (--r->closing > 0)
        return;
    struct adb_reply reply = {
        .ok = r->ok,
        .code = r->code,
        .error = r->error,
        .device_lost = r->lost,
        .out = (const uint8_t *)(r->out.data ? r->out.data : ""),
        .out_len = r->out.len,
        .err = (const uint8_t *)(r->err.data ? r->err.data : ""),
        .err_len = r->err.len,
        .exit_code = r->exit_code,
        .opened = r->step_reached_body,
        .req = r,
    };
    r->done(r->ud, &reply);
    free(r->serial);
    free(r->request);
    free(r->wbuf);
    free(r->push_path);
    free(r->push_heads);
    free(r->push_bufs);
    free(r->error);
    strbuf_finish(&r->in);
    strbuf_finish(&r->out);
    strbuf_finish(&r->err);
    strbuf_finish(&r->stdin_held);
    free(r);
}

static void finish(struct req *r)
{
    if (r->step == STEP_DONE)
        return;
    r->step = STEP_DONE;
    r->closing = 2;
    uv_close((uv_handle_t *)&r->timer, closed);
    uv_close((uv_handle_t *)&r->tcp, closed);
}

static void succeed(struct req *r)
{
    r->ok = true;
    finish(r);
}

static void __attribute__((format(printf, 4, 5)))
fail(struct req *r, enum error_code code, bool lost, const char *fmt, ...)
{
    if (r->step == STEP_DONE)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    r->ok = false;
    r->code = code;
    r->lost = lost;
    r->error = msg;
    log_debug("%s: %s", r->request, msg);
    finish(r);
}

/* What the caller asked, for messages: "the device emulator-5554". */
static const char *who(const struct req *r)
{
    return r->serial ? r->serial : "the adb server";
}

static void on_write(uv_write_t *w, int status)
{
    struct req *r = w->data;
    free(r->wbuf);
    r->wbuf = NULL;
    if (status < 0 && status != UV_ECANCELED)
        fail(r, ERROR_DEVICE_UNAVAILABLE, r->serial != NULL, "cannot send to the adb server: %s",
             uv_strerror(status));
}

static void send_frame(struct req *r, const char *payload)
{
    size_t n = strlen(payload);
    r->wbuf = xasprintf("%04zx%s", n, payload);
    uv_buf_t b = uv_buf_init(r->wbuf, (unsigned)(n + 4));
    r->write.data = r;
    int rc = uv_write(&r->write, (uv_stream_t *)&r->tcp, &b, 1, on_write);
    if (rc < 0)
        fail(r, ERROR_DEVICE_UNAVAILABLE, false, "cannot send to the adb server: %s",
             uv_strerror(rc));
}

/* A FAIL from the server, mapped to a code a client can branch on. */
static void server_failed(struct req *r, const char *msg)
{
    bool device_gone = strstr(msg, "not found") || strstr(msg, "offline") ||
                       strstr(msg, "unauthorized") || strstr(msg, "no devices");
    if (device_gone)
        fail(r, ERROR_DEVICE_UNAVAILABLE, r->serial != NULL, "%s: %s", who(r), msg);
    else if (strstr(msg, "unknown host service") || strcmp(msg, "closed") == 0)
        fail(r, ERROR_NOT_SUPPORTED, false, "%s does not offer \"%.60s\": %s", who(r), r->request,
             msg);
    else
        fail(r, ERROR_TOOL_FAILED, false, "%s refused \"%.60s\": %s", who(r), r->request, msg);
}

static bool keep(struct req *r, struct strbuf *sb, const char *p, size_t n)
{
    if (sb->len + n > r->max_bytes) {
        fail(r, ERROR_TOOL_FAILED, false,
             "the answer to \"%.60s\" is larger than %zu bytes; glovebox stopped reading",
             r->request, r->max_bytes);
        return false;
    }
    strbuf_append(sb, p, n);
    return true;
}

static long hex4(const char *p)
{
    char t[5];
    memcpy(t, p, 4);
    t[4] = 0;
    char *end;
    long v = strtol(t, &end, 16);
    return *end ? -1 : v;
}

/* Shell v2 packets in r->in: id byte + 4-byte LE length + data. */
static void shell_packets(struct req *r)
{
    size_t at = 0;
    while (r->step == STEP_BODY && r->in.len - at >= 5) {
        const uint8_t *p = (const uint8_t *)r->in.data + at;
        uint32_t len =
            (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
        if (len > r->max_bytes) {
            fail(r, ERROR_TOOL_FAILED, false, "a shell packet of %u bytes is too large", len);
            return;
        }
        if (r->in.len - at < 5 + (size_t)len)
            break;
        const char *data = (const char *)p + 5;
        if (r->mode == ADB_STREAM && (p[0] == 1 || p[0] == 2)) {
            r->packet(r->ud, p[0], (const uint8_t *)data, len);
            if (r->step != STEP_BODY)
                return;
            at += 5 + len;
            continue;
        }
        switch (p[0]) {
        case 1:
            if (!keep(r, &r->out, data, len))
                return;
            break;
        case 2:
            if (!keep(r, &r->err, data, len))
                return;
            break;
        case 3:
            r->exit_code = len >= 1 ? (uint8_t)data[0] : 0;
            r->got_exit = true;
            succeed(r);
            return;
        default: /* stdin echo, window size: nothing for us */
            break;
        }
        at += 5 + len;
    }
    strbuf_consume(&r->in, at);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#define SYNC_CHUNK (64u * 1024) /* adb's SYNC_DATA_MAX */

/* Buffers per write: 16 DATA packets (a header and 64 KiB each), so the
 * caller hears of each MiB the socket took. The socket takes what the adb
 * server drains towards the device, so that follows the copy itself within
 * the socket's buffers. */
#define PUSH_WRITE_BUFS 32

static void push_more(struct req *r);

static void on_push_written(uv_write_t *w, int status)
{
    struct req *r = w->data;
    if (status == UV_ECANCELED || r->step == STEP_DONE)
        return;
    if (status < 0) {
        fail(r, ERROR_DEVICE_UNAVAILABLE, true, "cannot send the file to %s: %s", who(r),
             uv_strerror(status));
        return;
    }
    if (r->push_next < r->push_nbufs) {
        if (r->push_progress)
            r->push_progress(r->ud, r->push_sent, r->push_len);
        push_more(r);
    }
}

/* The next group of buffers: data packets' bytes counted as sent once
 * the write completes. */
static void push_more(struct req *r)
{
    size_t first = r->push_next;
    size_t n = r->push_nbufs - first < PUSH_WRITE_BUFS ? r->push_nbufs - first : PUSH_WRITE_BUFS;
    for (size_t i = first; i < first + n; i++)
        if (r->push_bufs[i].base >= (char *)r->push_data &&
            r->push_bufs[i].base < (char *)r->push_data + r->push_len)
            r->push_sent += r->push_bufs[i].len;
    r->push_next = first + n;
    r->push_write.data = r;
    int rc = uv_write(&r->push_write, (uv_stream_t *)&r->tcp, r->push_bufs + first, (unsigned)n,
                      on_push_written);
    if (rc < 0)
        fail(r, ERROR_DEVICE_UNAVAILABLE, false, "cannot send the file: %s", uv_strerror(rc));
}

/* SEND "path,mode", DATA chunks, DONE mtime: buffers over the data itself,
 * not copied, written a group at a time. */
static void push_send(struct req *r)
{
    size_t chunks = (r->push_len + SYNC_CHUNK - 1) / SYNC_CHUNK;
    size_t plen = strlen(r->push_path);
    r->push_heads = xcalloc(chunks + 2, 8);
    r->push_bufs = xcalloc(2 * chunks + 3, sizeof *r->push_bufs);
    size_t nb = 0;
    uint8_t *h = r->push_heads;
    memcpy(h, "SEND", 4);
    put_le32(h + 4, (uint32_t)plen);
    r->push_bufs[nb++] = uv_buf_init((char *)h, 8);
    r->push_bufs[nb++] = uv_buf_init(r->push_path, (unsigned)plen);
    for (size_t i = 0; i < chunks; i++) {
        h += 8;
        size_t n =
            r->push_len - i * SYNC_CHUNK < SYNC_CHUNK ? r->push_len - i * SYNC_CHUNK : SYNC_CHUNK;
        memcpy(h, "DATA", 4);
        put_le32(h + 4, (uint32_t)n);
        r->push_bufs[nb++] = uv_buf_init((char *)h, 8);
        r->push_bufs[nb++] = uv_buf_init((char *)r->push_data + i * SYNC_CHUNK, (unsigned)n);
    }
    h += 8;
    memcpy(h, "DONE", 4);
    put_le32(h + 4, (uint32_t)time(NULL));
    r->push_bufs[nb++] = uv_buf_init((char *)h, 8);
    r->push_nbufs = nb;
    push_more(r);
}

/* The answer to DONE: OKAY + 4 bytes, or FAIL + length + message. */
static void push_answer(struct req *r)
{
    if (r->in.len < 8)
        return;
    if (memcmp(r->in.data, "OKAY", 4) == 0) {
        succeed(r);
        return;
    }
    const uint8_t *p = (const uint8_t *)r->in.data;
    uint32_t n = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    if (memcmp(r->in.data, "FAIL", 4) != 0 || n > 4096) {
        fail(r, ERROR_TOOL_FAILED, false, "%s answered the file with \"%.4s\"", who(r), r->in.data);
        return;
    }
    if (r->in.len < 8 + (size_t)n)
        return;
    fail(r, ERROR_TOOL_FAILED, false, "%s refused the file: %.*s", who(r), (int)n, r->in.data + 8);
}

/* ---- streams (ADB_STREAM) ---- */

struct stream_write {
    uv_write_t w;
    struct req *r;
    size_t len;
    char data[]; /* a stdin packet: id 0, 4-byte LE length, bytes */
};

static void on_stream_written(uv_write_t *w, int status)
{
    struct stream_write *sw = (struct stream_write *)w;
    if (status < 0 && status != UV_ECANCELED)
        fail(sw->r, ERROR_DEVICE_UNAVAILABLE, true, "cannot write to the shell on %s: %s",
             who(sw->r), uv_strerror(status));
    free(sw);
}

/* A shell v2 packet to the device: id 0 stdin, 4 close-stdin. */
static void stream_send(struct req *r, char id, const char *data, size_t len)
{
    struct stream_write *sw = xmalloc(sizeof *sw + 5 + len);
    sw->r = r;
    sw->len = 5 + len;
    sw->data[0] = id;
    put_le32((uint8_t *)sw->data + 1, (uint32_t)len);
    memcpy(sw->data + 5, data, len);
    uv_buf_t b = uv_buf_init(sw->data, (unsigned)sw->len);
    int rc = uv_write(&sw->w, (uv_stream_t *)&r->tcp, &b, 1, on_stream_written);
    if (rc < 0) {
        free(sw);
        fail(r, ERROR_DEVICE_UNAVAILABLE, true, "cannot write to the shell on %s: %s", who(r),
             uv_strerror(rc));
    }
}

/* The service answered: the stream lives on without a deadline; what was
 * written meanwhile goes now. */
static void stream_opened(struct req *r)
{
    uv_timer_stop(&r->timer);
    if (r->stdin_held.len)
        stream_send(r, 0, r->stdin_held.data, r->stdin_held.len);
    strbuf_finish(&r->stdin_held);
    if (r->stdin_end)
        stream_send(r, 4, "", 0);
}

void adb_stream_write(struct adb_stream *s, const char *data, size_t len)
{
    struct req *r = (struct req *)s;
    if (r->step == STEP_DONE)
        return;
    if (r->step != STEP_BODY)
        strbuf_append(&r->stdin_held, data, len);
    else
        stream_send(r, 0, data, len);
}

void adb_stream_end_input(struct adb_stream *s)
{
    struct req *r = (struct req *)s;
    if (r->step == STEP_DONE)
        return;
    if (r->step != STEP_BODY)
        r->stdin_end = true;
    else
        stream_send(r, 4, "", 0);
}

void adb_stream_close(struct adb_stream *s, enum error_code code, const char *why)
{
    fail((struct req *)s, code, false, "%s", why);
}

/* Advance through the steps with what r->in holds. */
static void parse(struct req *r)
{
    for (;;) {
        switch (r->step) {
        case STEP_TPORT_STATUS:
        case STEP_STATUS:
            if (r->in.len < 4)
                return;
            if (memcmp(r->in.data, "OKAY", 4) == 0) {
                strbuf_consume(&r->in, 4);
                if (r->step == STEP_TPORT_STATUS) {
                    r->step = STEP_TPORT_ID;
                } else {
                    r->step = r->mode == ADB_HOST ? STEP_HOST_LEN : STEP_BODY;
                    r->step_reached_body = r->step == STEP_BODY;
                    if (r->mode == ADB_SYNC_PUSH)
                        push_send(r);
                    if (r->mode == ADB_STREAM)
                        stream_opened(r);
                }
                continue;
            }
            if (memcmp(r->in.data, "FAIL", 4) == 0) {
                strbuf_consume(&r->in, 4);
                r->step = STEP_FAIL_LEN;
                continue;
            }
            fail(r, ERROR_TOOL_FAILED, false,
                 "the adb server answered \"%.4s\" instead of OKAY or FAIL (is that an adb "
                 "server at %s:%d?)",
                 r->in.data, r->srv.host, r->srv.port);
            return;
        case STEP_TPORT_ID:
            if (r->in.len < 8)
                return;
            strbuf_consume(&r->in, 8);
            r->step = STEP_STATUS;
            send_frame(r, r->request);
            continue;
        case STEP_FAIL_LEN:
        case STEP_HOST_LEN: {
            if (r->in.len < 4)
                return;
            long n = hex4(r->in.data);
            if (n < 0) {
                fail(r, ERROR_TOOL_FAILED, false, "the adb server sent a bad length \"%.4s\"",
                     r->in.data);
                return;
            }
            strbuf_consume(&r->in, 4);
            r->want = (size_t)n;
            r->step = r->step == STEP_FAIL_LEN ? STEP_FAIL_MSG : STEP_HOST_BODY;
            continue;
        }
        case STEP_FAIL_MSG: {
            if (r->in.len < r->want)
                return;
            char *msg = xasprintf("%.*s", (int)r->want, r->in.data);
            /* The unauthorized text runs over several lines; the first says it. */
            size_t cut = strcspn(msg, "\n");
            while (cut > 0 && (msg[cut - 1] == '.' || msg[cut - 1] == ' '))
                cut--;
            msg[cut] = 0;
            server_failed(r, msg);
            free(msg);
            return;
        }
        case STEP_HOST_BODY:
            if (r->in.len < r->want)
                return;
            if (keep(r, &r->out, r->in.data, r->want))
                succeed(r);
            return;
        case STEP_BODY:
            if (r->mode == ADB_SYNC_PUSH) {
                push_answer(r);
            } else if (r->mode == ADB_SHELL_V2 || r->mode == ADB_STREAM) {
                shell_packets(r);
            } else if (r->in.len) {
                if (keep(r, &r->out, r->in.data, r->in.len))
                    strbuf_consume(&r->in, r->in.len);
            }
            return;
        default:
            return;
        }
    }
}

/* exec: output is read straight into out (a screencap is 10 MB: no
 * second copy through in). */
static bool direct(const struct req *r)
{
    return r->step == STEP_BODY && r->mode == ADB_EXEC;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct req *r = h->data;
    (void)suggested;
    if (direct(r)) {
        strbuf_reserve(&r->out, 256 * 1024);
        buf->base = r->out.data + r->out.len;
        buf->len = r->out.cap - r->out.len - 1;
        return;
    }
    strbuf_reserve(&r->in, 64 * 1024);
    buf->base = r->in.data + r->in.len;
    buf->len = r->in.cap - r->in.len - 1; /* the NUL strbuf keeps */
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct req *r = s->data;
    (void)buf;
    if (r->step == STEP_DONE)
        return;
    if (nread > 0 && direct(r)) {
        r->out.len += (size_t)nread;
        r->out.data[r->out.len] = 0;
        if (r->out.len > r->max_bytes)
            fail(r, ERROR_TOOL_FAILED, false,
                 "the answer to \"%.60s\" is larger than %zu bytes; glovebox stopped reading",
                 r->request, r->max_bytes);
        return;
    }
    if (nread > 0) {
        r->in.len += (size_t)nread;
        r->in.data[r->in.len] = 0;
        parse(r);
        return;
    }
    if (nread == 0)
        return;
    /* The connection ended. */
    if (nread == UV_EOF && r->step == STEP_BODY && r->mode == ADB_EXEC) {
        succeed(r);
        return;
    }
    if (r->serial && r->step == STEP_BODY) {
        /* The device was reached and then went away: a shell without its
         * exit packet (the adb program would exit 0 here) or a reset. */
        fail(r, ERROR_DEVICE_UNAVAILABLE, true,
             "the device %s went away during \"%.60s\" (%s); it is no longer connected to "
             "the adb server",
             r->serial, r->request,
             nread == UV_EOF ? "closed without an exit status" : uv_strerror((int)nread));
        return;
    }
    fail(r, ERROR_DEVICE_UNAVAILABLE, false,
         "the adb server at %s:%d closed the connection during \"%.60s\" (%s)", r->srv.host,
         r->srv.port, r->request, nread == UV_EOF ? "end of stream" : uv_strerror((int)nread));
}

static void on_connect(uv_connect_t *c, int status)
{
    struct req *r = c->data;
    if (r->step == STEP_DONE)
        return;
    if (status < 0) {
        fail(r, ERROR_DEVICE_UNAVAILABLE, false,
             "no adb server at %s:%d (%s). Start one with `adb start-server` (Debian: "
             "apt-get install adb); glovebox does not start it. Another address: the "
             "adb_server argument, ADB_SERVER_SOCKET=tcp:HOST:PORT or ANDROID_ADB_SERVER_PORT",
             r->srv.host, r->srv.port, uv_strerror(status));
        return;
    }
    uv_tcp_nodelay(&r->tcp, 1);
    uv_read_start((uv_stream_t *)&r->tcp, on_alloc, on_read);
    if (r->serial) {
        char *t = xasprintf("host:tport:serial:%s", r->serial);
        r->step = STEP_TPORT_STATUS;
        send_frame(r, t);
        free(t);
    } else {
        r->step = STEP_STATUS;
        send_frame(r, r->request);
    }
}

static void on_timeout(uv_timer_t *t)
{
    struct req *r = t->data;
    fail(r, ERROR_DEVICE_UNAVAILABLE, false, "%s did not answer \"%.60s\" within %llu ms", who(r),
         r->request, (unsigned long long)r->timeout_ms);
}

uint8_t *adb_reply_take_out(const struct adb_reply *reply, size_t *len)
{
    struct req *r = reply->req;
    *len = r->out.len;
    return (uint8_t *)strbuf_steal(&r->out);
}

static struct req *request_new(uv_loop_t *loop, const struct adb_server *srv, const char *serial,
                               const char *request, enum adb_mode mode, uint64_t timeout_ms,
                               size_t max_bytes, adb_done_fn done, void *ud);
static void request_start(uv_loop_t *loop, struct req *r);

void adb_push(uv_loop_t *loop, const struct adb_server *srv, const char *serial, const char *remote,
              unsigned mode, const uint8_t *data, size_t len, uint64_t timeout_ms,
              adb_progress_fn progress, adb_done_fn done, void *ud)
{
    struct req *r =
        request_new(loop, srv, serial, "sync:", ADB_SYNC_PUSH, timeout_ms, 4096, done, ud);
    r->push_progress = progress;
    r->push_data = data;
    r->push_len = len;
    r->push_path = xasprintf("%s,%u", remote, mode);
    request_start(loop, r);
}

struct adb_stream *adb_stream_open(uv_loop_t *loop, const struct adb_server *srv,
                                   const char *serial, const char *request,
                                   uint64_t open_timeout_ms, adb_packet_fn packet, adb_done_fn done,
                                   void *ud)
{
    /* max_bytes bounds one packet: a stream keeps nothing itself. */
    struct req *r = request_new(loop, srv, serial, request, ADB_STREAM, open_timeout_ms,
                                ANDROID_STREAM_MAX_PACKET, done, ud);
    r->packet = packet;
    request_start(loop, r);
    return (struct adb_stream *)r;
}

void adb_request(uv_loop_t *loop, const struct adb_server *srv, const char *serial,
                 const char *request, enum adb_mode mode, uint64_t timeout_ms, size_t max_bytes,
                 adb_done_fn done, void *ud)
{
    request_start(loop,
                  request_new(loop, srv, serial, request, mode, timeout_ms, max_bytes, done, ud));
}

static struct req *request_new(uv_loop_t *loop, const struct adb_server *srv, const char *serial,
                               const char *request, enum adb_mode mode, uint64_t timeout_ms,
                               size_t max_bytes, adb_done_fn done, void *ud)
{
    (void)loop;
    struct req *r = xcalloc(1, sizeof *r);
    r->srv = *srv;
    r->serial = serial ? xstrdup(serial) : NULL;
    r->request = xstrdup(request);
    r->mode = mode;
    r->timeout_ms = timeout_ms;
    r->max_bytes = max_bytes;
    r->done = done;
    r->ud = ud;
    r->step = STEP_CONNECT;
    return r;
}

static void request_start(uv_loop_t *loop, struct req *r)
{
    const struct adb_server *srv = &r->srv;
    uv_tcp_init(loop, &r->tcp);
    uv_timer_init(loop, &r->timer);
    r->tcp.data = r->timer.data = r->connect.data = r;
    uv_timer_start(&r->timer, on_timeout, r->timeout_ms, 0);
    struct sockaddr_storage addr;
    int rc = strchr(srv->host, ':')
                 ? uv_ip6_addr(srv->host, srv->port, (struct sockaddr_in6 *)&addr)
                 : uv_ip4_addr(srv->host, srv->port, (struct sockaddr_in *)&addr);
    if (rc == 0)
        rc = uv_tcp_connect(&r->connect, &r->tcp, (const struct sockaddr *)&addr, on_connect);
    if (rc < 0)
        fail(r, ERROR_DEVICE_UNAVAILABLE, false, "cannot reach the adb server at %s:%d: %s",
             srv->host, srv->port, uv_strerror(rc));
}
