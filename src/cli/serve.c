/* glovebox serve: run the MCP server until the client goes away or a
 * signal asks us to stop; then stop every session, reap every child and
 * flush every reply before exiting. */
#define LOG_MODULE "serve"
#include "cli/cli.h"
#include "cli/options.h"
#include "core/app.h"
#include "core/children.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/xmalloc.h"
#include "mcp/server.h"
#include "session/session.h"
#include "tools/tools.h"
#include "transport/stdio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* If sessions refuse to end (they are killed after their own grace period)
 * the process still exits. */
#define SHUTDOWN_DEADLINE_MS 10000
/* Worker-pool jobs cannot be interrupted; once every reply is out, they get
 * this long to finish before glovebox exits without them. */
#define WORK_GRACE_MS 1000

struct server {
    struct app app;
    struct stdio_transport *stdio;
    uv_signal_t sigint, sigterm;
    uv_timer_t deadline;
    bool stopping;
    int exit_code;
};

static void usage(FILE *to)
{
    fputs("Usage: glovebox serve [options]\n"
          "\n"
          "Runs the MCP server. With no transport option it speaks MCP on stdin/stdout\n"
          "(newline-delimited JSON, or Content-Length framing if the client starts with it).\n"
          "\n"
          "Options:\n"
          "  --stdio              serve on stdin/stdout (the default)\n"
          "  --max-message SIZE   largest accepted message, e.g. 16M (default 16M)\n"
          "  --data-dir DIR       recordings, screenshots, audit log\n"
          "                       (default $XDG_DATA_HOME/glovebox)\n"
          "  --page-size N        items per page in list results (default 100)\n"
          "  --log-level LEVEL    debug, info, warning or error (default warning; also\n"
          "                       GLOVEBOX_LOG)\n"
          "  -h, --help           show this help\n"
          "\n"
          "Exit status: 0 after a clean shutdown (stdin closed, SIGINT or SIGTERM),\n"
          "1 when the server could not start, 2 on a usage error.\n",
          to);
}

/* Closes every handle but arg (which may be NULL). */
static void close_walk(uv_handle_t *h, void *arg)
{
    if (h != arg && !uv_is_closing(h))
        uv_close(h, NULL);
}

static void work_deadline(uv_timer_t *t)
{
    log_warn("worker-pool jobs still running %d ms after shutdown; exiting without them",
             WORK_GRACE_MS);
    uv_stop(t->loop);
}

static void finish(struct server *srv)
{
    stdio_transport_destroy(srv->stdio);
    srv->stdio = NULL;
    uv_walk(srv->app.loop, close_walk, &srv->deadline);
    /* Unreferenced: when no job is left the loop ends at once. */
    uv_timer_start(&srv->deadline, work_deadline, WORK_GRACE_MS, 0);
    uv_unref((uv_handle_t *)&srv->deadline);
}

static void drained(void *ud)
{
    finish(ud);
}

static void sessions_stopped(void *ud)
{
    struct server *srv = ud;
    log_info("all sessions ended");
    if (srv->stdio)
        stdio_transport_shutdown(srv->stdio, drained, srv);
    else
        finish(srv);
}

static void deadline_hit(uv_timer_t *t)
{
    struct server *srv = t->data;
    log_error("shutdown took longer than %d ms; exiting anyway", SHUTDOWN_DEADLINE_MS);
    srv->exit_code = EXIT_FAILURE_RUNTIME;
    finish(srv);
}

static void begin_shutdown(struct server *srv, const char *why)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    srv->app.shutting_down = true;
    log_info("shutting down: %s", why);
    uv_timer_start(&srv->deadline, deadline_hit, SHUTDOWN_DEADLINE_MS, 0);
    uv_unref((uv_handle_t *)&srv->deadline);
    uv_unref((uv_handle_t *)&srv->sigint);
    uv_unref((uv_handle_t *)&srv->sigterm);
    session_registry_stop_all(srv->app.sessions, sessions_stopped, srv);
}

static void stdin_closed(void *ud)
{
    begin_shutdown(ud, "stdin closed");
}

static void on_signal(uv_signal_t *s, int signum)
{
    begin_shutdown(s->data, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static int parse_args(struct server *srv, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--stdio") == 0) {
            continue;
        } else if (strcmp(a, "--max-message") == 0 && v) {
            if (!options_parse_size(v, &srv->app.max_message) || srv->app.max_message < 1024) {
                fprintf(stderr,
                        "glovebox serve: --max-message expects a size of at least 1K "
                        "such as 16M, got \"%s\"\n",
                        v);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--data-dir") == 0 && v) {
            free(srv->app.data_dir);
            srv->app.data_dir = xstrdup(v);
        } else if (strcmp(a, "--page-size") == 0 && v) {
            long n;
            if (!options_parse_int(v, 1, 10000, &n)) {
                fprintf(stderr, "glovebox serve: --page-size expects 1..10000, got \"%s\"\n", v);
                return EXIT_USAGE;
            }
            srv->app.page_size = (int)n;
        } else if (strcmp(a, "--log-level") == 0 && v) {
            static const char *const names[] = {"debug", "info", "warning", "error"};
            bool ok = false;
            for (int l = 0; l < 4; l++) {
                if (strcmp(v, names[l]) == 0) {
                    log_set_level((enum log_level)l);
                    ok = true;
                }
            }
            if (!ok) {
                fprintf(stderr,
                        "glovebox serve: --log-level expects debug, info, warning or "
                        "error, got \"%s\"\n",
                        v);
                return EXIT_USAGE;
            }
        } else {
            bool needs_value = strcmp(a, "--max-message") == 0 || strcmp(a, "--data-dir") == 0 ||
                               strcmp(a, "--page-size") == 0 || strcmp(a, "--log-level") == 0;
            if (needs_value)
                fprintf(stderr, "glovebox serve: %s needs a value\n", a);
            else
                fprintf(stderr, "glovebox serve: unknown option \"%s\" (try --help)\n", a);
            return EXIT_USAGE;
        }
        i++; /* the option's value */
    }
    return 0;
}

int cli_serve(int argc, char **argv)
{
    struct server srv = {0};
    srv.app.loop = uv_default_loop();
    srv.app.max_message = 16u * 1024 * 1024;
    srv.app.page_size = 100;
    srv.app.data_dir = paths_default_data_dir();
    int rc = parse_args(&srv, argc, argv);
    if (rc != 0) {
        free(srv.app.data_dir);
        return rc < 0 ? EXIT_OK : rc;
    }
    srv.app.started_ms = uv_now(srv.app.loop);
    srv.app.sessions = session_registry_create(&srv.app);
    children_init(srv.app.loop);
    tools_register_all();
    cli_register_extra_tools();

    uv_signal_init(srv.app.loop, &srv.sigint);
    uv_signal_init(srv.app.loop, &srv.sigterm);
    srv.sigint.data = srv.sigterm.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    uv_timer_init(srv.app.loop, &srv.deadline);
    srv.deadline.data = &srv;

    char *err = NULL;
    srv.stdio = stdio_transport_start(&srv.app, stdin_closed, &srv, &err);
    if (!srv.stdio) {
        fprintf(stderr, "glovebox serve: %s\n", err);
        free(err);
        srv.exit_code = EXIT_FAILURE_RUNTIME;
        finish(&srv);
    } else {
        log_info("glovebox %s serving MCP on stdio", GLOVEBOX_VERSION);
    }
    uv_run(srv.app.loop, UV_RUN_DEFAULT);
    /* Close anything a late callback opened and let close callbacks run; do
     * not wait again for jobs the deadline gave up on. */
    uv_walk(srv.app.loop, close_walk, NULL);
    for (int i = 0; i < 16 && uv_run(srv.app.loop, UV_RUN_NOWAIT); i++)
        ;
    /* Jobs the deadline gave up on keep their own memory; they never call
     * back. */
    bool busy = uv_loop_close(srv.app.loop) != 0;
    children_finish();
    session_registry_destroy(srv.app.sessions);
    mcp_server_finish();
    free(srv.app.data_dir);
    if (busy) {
        /* libuv joins its worker threads at exit, which would wait for the
         * very jobs the deadline gave up on. */
        log_debug("exiting with worker-pool jobs still running");
        fflush(NULL);
        _exit(srv.exit_code);
    }
    return srv.exit_code;
}
