#include "transport/stdio.h"

#define LOG_MODULE "stdio"
#include "core/app.h"
#include "core/check.h"
#include "core/json_out.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "mcp/framing.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK 65536
/* Replies queued for a client that does not read them: past the high mark
 * no more requests are read (so no more replies are made) until the client
 * has taken the queue down to the low mark. */
#define OUTPUT_HIGH (16u << 20)
#define OUTPUT_LOW  (4u << 20)

struct stdio_transport {
    struct app *app;
    struct mcp_conn *conn;
    struct framing framing;
    /* stdin is a pipe or tty (a stream) or a regular file (read with uv_fs). */
    uv_stream_t *in;
    struct file_read *file_read; /* in flight, when stdin is a regular file */
    char *read_buf;
    bool reading, in_closed;
    /* stdout likewise; a regular file is written synchronously. */
    uv_stream_t *out;
    bool out_failed;
    int writes_pending;
    size_t out_queued; /* bytes handed to libuv and not yet written */
    bool held;         /* reading stopped until out_queued falls to OUTPUT_LOW */
    /* Destroyed by its owner: freed once libuv has called back for every
     * write and handle close, which still point at it. */
    bool destroyed;
    int handles_open;
    void (*closed)(void *ud);
    void *closed_ud;
    void (*drained)(void *ud);
    void *drained_ud;
};

/* Outlives the transport if a read is in flight when it is destroyed. */
struct file_read {
    uv_fs_t req;
    struct stdio_transport *t; /* NULL once the transport is gone */
    char buf[READ_CHUNK];
};

struct write_req {
    uv_write_t req;
    struct stdio_transport *t;
    char *data;
    size_t len;
};

static void resume_reading(struct stdio_transport *t);
static void deliver(struct stdio_transport *t);
static void file_read_next(struct stdio_transport *t);

static void free_transport(struct stdio_transport *t)
{
    framing_finish(&t->framing);
    free(t->read_buf);
    free(t);
}

static void maybe_drained(struct stdio_transport *t)
{
    if (t->destroyed) {
        if (t->writes_pending == 0 && t->handles_open == 0)
            free_transport(t);
        return;
    }
    if (!t->drained || t->writes_pending > 0)
        return;
    void (*cb)(void *) = t->drained;
    t->drained = NULL;
    cb(t->drained_ud);
}

static void write_done(uv_write_t *req, int status)
{
    struct write_req *w = (struct write_req *)req;
    struct stdio_transport *t = w->t;
    if (status < 0 && !t->out_failed && !t->destroyed) {
        t->out_failed = true;
        log_warn("stdout: %s; the client is gone", uv_strerror(status));
    }
    /* One write_done per uv_write that succeeded, even after destroy: t
     * must outlive them all (the issue-24 use-after-free). */
    CHECK(t->writes_pending > 0 && t->out_queued >= w->len);
    t->out_queued -= w->len;
    free(w->data);
    free(w);
    t->writes_pending--;
    if (t->held && t->out_queued <= OUTPUT_LOW && !t->destroyed) {
        t->held = false;
        log_info("stdout: the client reads again; reading requests again");
        resume_reading(t);
    }
    maybe_drained(t);
}

static void write_bytes(struct stdio_transport *t, char *data, size_t len)
{
    if (t->out_failed) {
        free(data);
        return;
    }
    if (!t->out) {
        /* A regular file: a blocking write is fine and keeps order. */
        size_t off = 0;
        while (off < len) {
            ssize_t n = write(STDOUT_FILENO, data + off, len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                t->out_failed = true;
                log_warn("stdout: %s", strerror(errno));
                break;
            }
            off += (size_t)n;
        }
        free(data);
        return;
    }
    struct write_req *w = xmalloc(sizeof *w);
    w->t = t;
    w->data = data;
    w->len = len;
    uv_buf_t buf = uv_buf_init(data, (unsigned)len);
    int rc = uv_write(&w->req, t->out, &buf, 1, write_done);
    if (rc < 0) {
        t->out_failed = true;
        log_warn("stdout: %s", uv_strerror(rc));
        free(data);
        free(w);
        return;
    }
    t->writes_pending++;
    t->out_queued += len;
    if (!t->held && t->out_queued > OUTPUT_HIGH) {
        t->held = true;
        log_warn("stdout: %zu bytes of replies wait for the client to read them; no more "
                 "requests are read until it does",
                 t->out_queued);
        if (t->in && t->reading) {
            uv_read_stop(t->in);
            t->reading = false;
        }
    }
}

static void send_message(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud)
{
    struct stdio_transport *t = ud;
    if (!msg)
        return;
    struct strbuf sb;
    strbuf_init(&sb);
    if (t->framing.mode == FRAMING_CONTENT_LENGTH) {
        size_t body_len;
        char *body = json_out_dump(msg, &body_len);
        if (!body) {
            log_error("could not serialise a reply");
            return;
        }
        framing_encode(FRAMING_CONTENT_LENGTH, body, body_len, &sb);
        free(body);
    } else if (json_out_append(&sb, msg)) {
        /* A line: the JSON written straight into the buffer that goes out
         * (a screenshot's few hundred KB copied once less). */
        strbuf_putc(&sb, '\n');
    } else {
        strbuf_finish(&sb);
        log_error("could not serialise a reply");
        return;
    }
    size_t len = sb.len;
    write_bytes(t, strbuf_steal(&sb), len);
}

static void deliver(struct stdio_transport *t)
{
    const char *msg;
    size_t len;
    for (;;) {
        if (t->held)
            return; /* the rest waits in the framing buffer */
        enum framing_event ev = framing_next(&t->framing, &msg, &len);
        if (ev == FRAMING_NEED_MORE || !t->conn)
            return;
        if (ev == FRAMING_MESSAGE) {
            mcp_conn_receive(t->conn, msg, len, NULL);
        } else if (ev == FRAMING_TOO_LARGE) {
            char *m = xasprintf("Invalid Request: message of %zu bytes exceeds the limit of %zu "
                                "bytes (glovebox serve --max-message)",
                                len, t->framing.max_message);
            mcp_conn_report(t->conn, JSONRPC_INVALID_REQUEST, m);
            free(m);
        } else {
            mcp_conn_report(t->conn, JSONRPC_PARSE_ERROR,
                            "Parse error: malformed Content-Length header block");
        }
    }
}

static void input_ended(struct stdio_transport *t)
{
    if (t->in_closed)
        return;
    t->in_closed = true;
    /* A last line without its newline still counts as a message. */
    if (t->conn && t->framing.mode == FRAMING_NDJSON && framing_pending(&t->framing) > 0) {
        framing_push(&t->framing, "\n", 1);
        deliver(t);
    }
    if (t->closed)
        t->closed(t->closed_ud);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct stdio_transport *t = h->data;
    buf->base = t->read_buf;
    buf->len = READ_CHUNK;
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct stdio_transport *t = s->data;
    if (n > 0) {
        framing_push(&t->framing, buf->base, (size_t)n);
        deliver(t);
    } else if (n < 0) {
        if (n != UV_EOF)
            log_warn("stdin: %s", uv_strerror((int)n));
        uv_read_stop(s);
        t->reading = false;
        input_ended(t);
    }
}

static void file_read_cb(uv_fs_t *req);

static void resume_reading(struct stdio_transport *t)
{
    deliver(t); /* what was read before the hold */
    if (t->held || t->in_closed || t->reading)
        return;
    if (!t->in) {
        file_read_next(t);
        return;
    }
    int rc = uv_read_start(t->in, alloc_cb, read_cb);
    if (rc < 0) {
        log_warn("stdin: %s", uv_strerror(rc));
        input_ended(t);
        return;
    }
    t->reading = true;
}

static void file_read_next(struct stdio_transport *t)
{
    struct file_read *r = xmalloc(sizeof *r);
    r->t = t;
    r->req.data = r;
    uv_buf_t buf = uv_buf_init(r->buf, READ_CHUNK);
    t->file_read = r;
    t->reading = true;
    uv_fs_read(t->app->loop, &r->req, STDIN_FILENO, &buf, 1, -1, file_read_cb);
}

static void file_read_cb(uv_fs_t *req)
{
    struct file_read *r = req->data;
    struct stdio_transport *t = r->t;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    if (!t) {
        free(r);
        return;
    }
    t->file_read = NULL;
    t->reading = false;
    if (n > 0 && !t->in_closed) {
        framing_push(&t->framing, r->buf, (size_t)n);
        free(r);
        deliver(t);
        if (!t->in_closed && !t->held)
            file_read_next(t);
        return;
    }
    free(r);
    if (n < 0)
        log_warn("stdin: %s", uv_strerror((int)n));
    input_ended(t);
}

static uv_stream_t *open_stream(uv_loop_t *loop, int fd, void *data, char **err)
{
    uv_handle_type type = uv_guess_handle(fd);
    uv_stream_t *s = NULL;
    int rc;
    if (type == UV_TTY) {
        uv_tty_t *tty = xmalloc(sizeof *tty);
        rc = uv_tty_init(loop, tty, fd, 0);
        s = (uv_stream_t *)tty;
    } else if (type == UV_NAMED_PIPE || type == UV_TCP) {
        uv_pipe_t *pipe = xmalloc(sizeof *pipe);
        rc = uv_pipe_init(loop, pipe, 0);
        if (rc == 0)
            rc = uv_pipe_open(pipe, fd);
        s = (uv_stream_t *)pipe;
    } else {
        return NULL;
    }
    if (rc < 0) {
        *err = xasprintf("cannot use fd %d: %s", fd, uv_strerror(rc));
        free(s);
        return NULL;
    }
    s->data = data;
    return s;
}

struct stdio_transport *stdio_transport_start(struct app *app, void (*closed)(void *ud), void *ud,
                                              char **err)
{
    struct stdio_transport *t = xcalloc(1, sizeof *t);
    t->app = app;
    t->closed = closed;
    t->closed_ud = ud;
    t->read_buf = xmalloc(READ_CHUNK);
    framing_init(&t->framing, app->max_message);
    struct mcp_transport mt = {.name = "stdio", .send = send_message, .ud = t};
    t->conn = mcp_conn_create(app, &mt);

    *err = NULL;
    t->in = open_stream(app->loop, STDIN_FILENO, t, err);
    if (!t->in && *err)
        goto fail;
    t->out = open_stream(app->loop, STDOUT_FILENO, t, err);
    if (!t->out && *err)
        goto fail;
    if (t->in) {
        int rc = uv_read_start(t->in, alloc_cb, read_cb);
        if (rc < 0) {
            *err = xasprintf("cannot read stdin: %s", uv_strerror(rc));
            goto fail;
        }
        t->reading = true;
    } else {
        file_read_next(t);
    }
    return t;
fail:
    stdio_transport_destroy(t);
    return NULL;
}

void stdio_transport_shutdown(struct stdio_transport *t, void (*drained)(void *ud), void *ud)
{
    if (t->in && t->reading) {
        uv_read_stop(t->in);
        t->reading = false;
    }
    t->in_closed = true;
    mcp_conn_destroy(t->conn);
    t->conn = NULL;
    t->drained = drained;
    t->drained_ud = ud;
    maybe_drained(t);
}

/* Closing stdout cancels its queued writes: libuv calls write_done for
 * each (with UV_ECANCELED) and then this, so t lives until the last. */
static void handle_closed(uv_handle_t *h)
{
    struct stdio_transport *t = h->data;
    free(h);
    CHECK(t->handles_open > 0);
    t->handles_open--;
    maybe_drained(t);
}

void stdio_transport_destroy(struct stdio_transport *t)
{
    if (!t)
        return;
    mcp_conn_destroy(t->conn);
    t->conn = NULL;
    t->destroyed = true;
    t->drained = NULL;
    t->closed = NULL;
    if (t->in) {
        t->handles_open++;
        uv_close((uv_handle_t *)t->in, handle_closed);
    }
    if (t->out) {
        t->handles_open++;
        uv_close((uv_handle_t *)t->out, handle_closed);
    }
    if (t->file_read)
        t->file_read->t = NULL;
    maybe_drained(t);
}
