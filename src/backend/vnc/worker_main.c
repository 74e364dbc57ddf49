/* glovebox-vnc-worker: the process one VNC connection runs in (worker.h).
 * The vnc module starts it (proc.c) with the module's end of a socket
 * pair as fd 3, /dev/null as stdin and stdout, stderr shared for log
 * lines, and nothing else open; the connection's parameters, the password
 * among them, come over the socket, never in argv or the environment. It
 * dies with glovebox (PR_SET_PDEATHSIG, and the socket's end), and its
 * address space is bounded so that an allocation a hostile server asks for
 * fails at once instead of eating the machine. */
#include "backend/vnc/worker.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* The address space a worker may map: the largest framebuffer, and room
 * for libgvnc, GLib, GnuTLS, their threads and the libraries' mappings. */
#define WORKER_MAX_AS ((rlim_t)VNC_MAX_PIXELS * 4 + ((rlim_t)768 << 20))

#if defined(__SANITIZE_ADDRESS__)
/* Under AddressSanitizer (tests): an allocation too large fails as it does
 * in a release build (libgvnc's g_error), instead of an ASan report; and,
 * as RLIMIT_AS (not set under ASan, below) makes it in a release build,
 * one over 1 GiB is too large (libgvnc allocates a ZRLE rectangle's
 * announced length, up to 4 GiB, before reading it). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}
#endif

static void dispatch(struct worker *w);

static gboolean dispatch_later(gpointer ud)
{
    struct worker *w = ud;
    w->dispatch_source = 0;
    dispatch(w);
    return G_SOURCE_REMOVE;
}

void worker_send(struct worker *w, struct vnc_wire_out *o, int fd)
{
    /* The module may be writing to us as we write to it (a long cut
     * text): what it sends meanwhile is read aside (a message being
     * dispatched may be what led here) and taken in an idle. */
    if (!vnc_wire_send(w->sock, o, fd, &w->aside))
        /* The module is gone or stuck: nobody to connect for. */
        _exit(3);
    if (w->aside.len != w->aside.start && !w->dispatch_source && w->loop)
        w->dispatch_source = g_idle_add(dispatch_later, w);
}

void worker_done(struct worker *w)
{
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_DISCONNECTED);
    const char *reason = w->reason ? w->reason : "the VNC server closed the connection";
    const char *detail = w->lib_error ? w->lib_error : "no reason given";
    vnc_wire_u32(&o, (uint32_t)(w->reason ? w->code : ERROR_DEVICE_UNAVAILABLE));
    vnc_wire_str(&o, reason, strlen(reason));
    vnc_wire_str(&o, detail, strlen(detail));
    worker_send(w, &o, -1);
    if (w->loop)
        g_main_loop_quit(w->loop);
}

static void limits(void)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
#if !defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer maps terabytes of shadow memory up front. */
    struct rlimit as = {WORKER_MAX_AS, WORKER_MAX_AS};
    setrlimit(RLIMIT_AS, &as);
#endif
}

/* The module's messages: input for the server, or the end. */
static gboolean on_module(gint fd, GIOCondition cond, gpointer ud)
{
    (void)cond;
    struct worker *w = ud;
    /* What was read aside came first. */
    vnc_wire_reader_take(&w->rd, &w->aside);
    if (vnc_wire_fill(fd, &w->rd) < 0)
        _exit(0); /* glovebox closed its end: it is gone, or done with us */
    dispatch(w);
    return G_SOURCE_CONTINUE;
}

/* The module's whole messages so far. */
static void dispatch(struct worker *w)
{
    vnc_wire_reader_take(&w->rd, &w->aside);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad;
    while (vnc_wire_next(&w->rd, &type, &in, &bad)) {
        if (type == VNC_WIRE_INPUT)
            worker_conn_input(w, &in);
        else if (type == VNC_WIRE_SHUTDOWN)
            worker_conn_shutdown(w);
    }
    if (bad)
        _exit(4);
}

/* The first message: what to connect to. */
static bool read_connect(struct worker *w)
{
    for (;;) {
        uint32_t type;
        struct vnc_wire_in in;
        bool bad;
        if (vnc_wire_next(&w->rd, &type, &in, &bad)) {
            if (type != VNC_WIRE_CONNECT)
                return false;
            w->port = (int)vnc_wire_get_u32(&in);
            w->timeout_ms = (int)vnc_wire_get_u32(&in);
            w->tls_verify = vnc_wire_get_u32(&in) != 0;
            w->host = vnc_wire_get_cstr(&in);
            w->password = vnc_wire_get_cstr(&in);
            w->username = vnc_wire_get_cstr(&in);
            w->ca_file = vnc_wire_get_cstr(&in);
            /* The password's bytes in the reader's buffer: wiped too (what
             * follows the message is the module's next one). */
            explicit_bzero(w->rd.buf, w->rd.start);
            return !in.bad && w->host;
        }
        if (bad)
            return false;
        struct pollfd p = {.fd = w->sock, .events = POLLIN};
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return false;
        if (vnc_wire_fill(w->sock, &w->rd) < 0)
            return false;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "--vnc-worker") != 0) {
        fprintf(stderr, "glovebox-vnc-worker runs one VNC connection for glovebox's vnc module; "
                        "it is not run by hand\n");
        return 2;
    }
    /* Dies with glovebox; a glovebox that is already gone has no use for
     * it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if ((long)getppid() != strtol(argv[2], NULL, 10))
        return 1;
    limits();
    signal(SIGPIPE, SIG_IGN);
    struct worker w = {.sock = 3};
    if (fcntl(w.sock, F_SETFL, fcntl(w.sock, F_GETFL) | O_NONBLOCK) != 0)
        return 1;
    vnc_wire_reader_init(&w.rd);
    vnc_wire_reader_init(&w.aside);
    if (!read_connect(&w)) {
        worker_conn_free(&w);
        vnc_wire_reader_finish(&w.rd);
        vnc_wire_reader_finish(&w.aside);
        return 1;
    }
    w.loop = g_main_loop_new(NULL, FALSE);
    guint watch = g_unix_fd_add(w.sock, G_IO_IN | G_IO_HUP | G_IO_ERR, on_module, &w);
    if (worker_conn_open(&w))
        g_main_loop_run(w.loop);
    else
        worker_done(&w);
    g_source_remove(watch);
    if (w.dispatch_source)
        g_source_remove(w.dispatch_source);
    worker_conn_free(&w);
    g_main_loop_unref(w.loop);
    vnc_wire_reader_finish(&w.rd);
    vnc_wire_reader_finish(&w.aside);
    close(w.sock);
    return 0;
}
