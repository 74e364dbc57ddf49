/* libFuzzer harness: raw bytes from a client through glovebox's own plain
 * HTTP/1.1 reader (transport/http_conn.c) — request lines, headers,
 * Content-Length bodies, pipelined requests, refusals (400, 411, 413, 431),
 * Expect: 100-continue — and on into the routing of /mcp. The input is what
 * the client writes on one connection, then it half-closes; the harness
 * reads and drops whatever the server answers. One socketpair per input,
 * adopted as an accepted connection would be.
 * Tools: the conformance fixtures; nothing that starts programs. */
#include "../tests/fixtures/fixtures.h"
#include "core/app.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "transport/http_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

static uv_loop_t loop;
static struct app app;
static bool echo; /* GLOVEBOX_FUZZ_ECHO=1: show what the server answered */

const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    uv_loop_init(&loop);
    app.loop = &loop;
    app.max_message = 1 << 20;
    app.page_size = 2;
    app.data_dir = xstrdup("/nonexistent/glovebox-fuzz");
    app.sessions = session_registry_create(&app);
    echo = getenv("GLOVEBOX_FUZZ_ECHO") != NULL;
    conformance_tools_register();
    conformance_ask_register();
    conformance_prompts_register();
    conformance_resources_register();
    return 0;
}

/* Reads and drops what the server wrote; true once it closed its end. */
static bool drain(int fd)
{
    char buf[16384];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            if (echo)
                fwrite(buf, 1, (size_t)n, stderr);
            continue;
        }
        return n == 0;
    }
}

static void sessions_stopped(void *ud)
{
    (void)ud;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct http_transport t;
    memset(&t, 0, sizeof t);
    t.app = &app;
    http_options_defaults(&t.opts);
    uv_timer_init(&loop, &t.reaper);
    t.reaper.data = &t;
    uv_idle_init(&loop, &t.flusher);
    t.flusher.data = &t;

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    /* The whole input fits in the socket buffer of a pair made for it. */
    int bufsize = (int)size + 65536;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof bufsize);
    setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof bufsize);
    http_conn_adopt(&t, sv[0], "127.0.0.1");
    size_t off = 0;
    while (off < size) {
        ssize_t n = send(sv[1], data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n <= 0) {
            uv_run(&loop, UV_RUN_NOWAIT);
            drain(sv[1]);
            continue;
        }
        off += (size_t)n;
    }
    shutdown(sv[1], SHUT_WR);
    /* Let the reader see everything and the end of input, answering as it
     * goes; a connection left streaming (an SSE GET) is closed below. */
    for (int i = 0; i < 16; i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        if (drain(sv[1]))
            break;
    }
    close(sv[1]);
    http_conns_close_all(&t);
    http_sessions_close_all(&t);
    uv_close((uv_handle_t *)&t.flusher, NULL);
    uv_timer_stop(&t.reaper);
    uv_close((uv_handle_t *)&t.reaper, NULL);
    /* Anything still keeping the loop alive now is a leak (the run hangs). */
    uv_run(&loop, UV_RUN_DEFAULT);
    while (t.reqs)
        http_req_destroy(t.reqs);
    http_guard_finish(&t);
    http_options_finish(&t.opts);
    session_registry_stop_all(app.sessions, sessions_stopped, NULL);
    return 0;
}
