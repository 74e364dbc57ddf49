/* libFuzzer harness: a VNC server's bytes, from the input, through the
 * worker's connection code (src/backend/vnc/worker_conn.c, the code each
 * glovebox-vnc-worker process runs) and libgvnc under it. A fake server on
 * one end of a socketpair sends a valid RFB 3.8 handshake (security None,
 * then a ServerInit whose size and name come from the input), then the
 * rest of the input as server messages, and half-closes; the client's end
 * goes to worker_conn_open_fd. The GLib main context runs until the
 * connection ends (the input's end is the server closing) or a bounded
 * number of iterations has passed, when the connection is shut down.
 *
 * Input:
 *   bytes 0-1  width - 1 (big-endian, modulo 2048): 1 ... 2048
 *   bytes 2-3  height - 1, likewise
 *   byte  4    n, the length of the desktop name; then n bytes of name
 *   the rest   server messages (FramebufferUpdate, SetColourMapEntries,
 *              Bell, ServerCutText, ...), as a server writes them
 * The size stays within what the worker accepts (VNC_MAX_PIXELS) and
 * small enough that each input runs quickly; a larger size is refused
 * before libgvnc uses it (make_framebuffer), which the unit tests cover.
 *
 * libgvnc aborts on some hostile data (g_error on an allocation it cannot
 * make, e.g. a 65535x65535 cursor): those stop this process, as they stop
 * one connection's worker process in production. scripts/run-fuzz.sh runs
 * this harness in fork mode and tells libgvnc's crashes from glovebox's
 * (fuzz/README.md).
 *
 * What the worker would send the module is dropped (GLOVEBOX_FUZZ_ECHO=1
 * prints one line per message). */
#include "backend/vnc/worker.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <glib-unix.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

/* As in the worker (worker_main.c): an allocation too large fails, and
 * libgvnc's g_error ends the process, instead of an ASan report. */
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

/* Iterations of the main context an input may take before the connection
 * is shut down: enough for any input of -max_len bytes to be read. */
#define MAX_ITERATIONS 20000
/* And after the shutdown, for the disconnect to arrive. */
#define MAX_AFTER_SHUTDOWN 1000

static bool echo;
static bool done; /* worker_done was called: the connection has ended */

/* The fake server's end. */
struct server {
    int fd;
    uint8_t *out;
    size_t out_len, sent;
    guint in_source, out_source;
};

/* GLib's fatal messages (libgvnc's g_error on an allocation it cannot
 * make) end in a breakpoint trap, which libFuzzer does not catch: no
 * reproducer, no stack. abort() instead, which it does. The rest of
 * libgvnc's log is dropped unless echoed. */
static GLogWriterOutput log_writer(GLogLevelFlags level, const GLogField *fields, gsize n,
                                   gpointer ud)
{
    (void)ud;
    if (echo || (level & G_LOG_LEVEL_ERROR))
        g_log_writer_standard_streams(level, fields, n, NULL);
    if (level & G_LOG_LEVEL_ERROR)
        abort();
    return G_LOG_WRITER_HANDLED;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    echo = getenv("GLOVEBOX_FUZZ_ECHO") != NULL;
    g_log_set_writer_func(log_writer, NULL, NULL);
    return 0;
}

/* worker_main.c's, here: the message to the module is dropped. */
void worker_send(struct worker *w, struct vnc_wire_out *o, int fd)
{
    (void)w;
    (void)fd;
    if (echo && o->len >= 8) {
        uint32_t type;
        memcpy(&type, o->buf + 4, 4);
        fprintf(stderr, "worker -> module: type %u, %zu bytes\n", type, o->len - 8);
    }
    free(o->buf);
    *o = (struct vnc_wire_out){0};
}

void worker_done(struct worker *w)
{
    if (echo)
        fprintf(stderr, "worker done: %s (%s)\n", w->reason ? w->reason : "-",
                w->lib_error ? w->lib_error : "-");
    done = true;
}

/* Reads and drops what the client writes (its version, ClientInit,
 * SetPixelFormat, SetEncodings, update requests). */
static gboolean on_server_in(gint fd, GIOCondition cond, gpointer ud)
{
    (void)cond;
    struct server *s = ud;
    char buf[16384];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            s->in_source = 0;
            return G_SOURCE_REMOVE;
        }
        return G_SOURCE_CONTINUE;
    }
}

/* Writes what the socket takes; at the end, half-closes. */
static gboolean on_server_out(gint fd, GIOCondition cond, gpointer ud)
{
    (void)cond;
    struct server *s = ud;
    while (s->sent < s->out_len) {
        ssize_t n = send(fd, s->out + s->sent, s->out_len - s->sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            s->sent += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return G_SOURCE_CONTINUE;
        break; /* the client is gone */
    }
    shutdown(fd, SHUT_WR);
    s->out_source = 0;
    return G_SOURCE_REMOVE;
}

static void put(uint8_t **p, const void *src, size_t n)
{
    memcpy(*p, src, n);
    *p += n;
}

static void put16(uint8_t **p, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(p, b, 2);
}

static void put32(uint8_t **p, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(p, b, 4);
}

/* The handshake a server sends, then the input's messages. */
static void server_bytes(struct server *s, const uint8_t *data, size_t size)
{
    uint8_t head[5] = {0};
    memcpy(head, data, size < 5 ? size : 5);
    size_t at = size < 5 ? size : 5;
    size_t name_len = head[4];
    if (name_len > size - at)
        name_len = size - at;
    const uint8_t *name = data + at;
    at += name_len;
    uint16_t width = (uint16_t)(1 + (((unsigned)head[0] << 8 | head[1]) % 2048));
    uint16_t height = (uint16_t)(1 + (((unsigned)head[2] << 8 | head[3]) % 2048));

    s->out = xmalloc(64 + name_len + (size - at));
    uint8_t *p = s->out;
    put(&p, "RFB 003.008\n", 12);
    put(&p, "\x01\x01", 2); /* one security type: None */
    put32(&p, 0);           /* SecurityResult: OK */
    /* ServerInit: size, a 32-bit true-colour format, the name. */
    put16(&p, width);
    put16(&p, height);
    static const uint8_t format[16] = {32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0};
    put(&p, format, sizeof format);
    put32(&p, (uint32_t)name_len);
    put(&p, name, name_len);
    put(&p, data + at, size - at);
    s->out_len = (size_t)(p - s->out);
}

static void run_until_done(unsigned iterations)
{
    for (unsigned i = 0; !done && i < iterations; i++)
        g_main_context_iteration(NULL, TRUE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    struct server s = {.fd = sv[0]};
    server_bytes(&s, data, size);
    s.in_source = g_unix_fd_add(s.fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_server_in, &s);
    s.out_source = g_unix_fd_add(s.fd, G_IO_OUT | G_IO_HUP | G_IO_ERR, on_server_out, &s);

    struct worker w = {.sock = -1, .host = xstrdup("fuzz"), .port = 5900, .timeout_ms = 1000};
    done = false;
    if (worker_conn_open_fd(&w, sv[1])) {
        run_until_done(MAX_ITERATIONS);
        if (!done) {
            /* Still reading (or waiting): the end the module would ask for. */
            worker_conn_shutdown(&w);
            run_until_done(MAX_AFTER_SHUTDOWN);
        }
        if (!done)
            abort(); /* a connection that does not end when told to */
    } else {
        close(sv[1]);
    }
    if (s.in_source)
        g_source_remove(s.in_source);
    if (s.out_source)
        g_source_remove(s.out_source);
    close(s.fd);
    worker_conn_free(&w);
    /* What the connection left to do (its last idles) runs now, not in
     * the next input. */
    for (int i = 0; i < 100 && g_main_context_iteration(NULL, FALSE); i++)
        ;
    free(s.out);
    return 0;
}
