/* glovebox serve: run the MCP server until the client goes away or a
 * signal asks us to stop; then stop every session, reap every child and
 * flush every reply before exiting. */
#define LOG_MODULE "serve"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/pidfile.h"
#include "cli/serve_audit.h"
#include "cli/serve_policy.h"
#include "cli/serve_sessions.h"
#include "core/app.h"
#include "core/children.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/version.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "mcp/tool.h"
#include "mcp/tool_groups.h"
#include "policy/pause.h"
#include "session/session.h"
#include "tools/screen_resources.h"
#include "tools/tools.h"
#include "transport/http.h"
#include "transport/stdio.h"

#include <errno.h>
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
    struct http_transport *http;
    bool want_stdio, want_http;
    struct http_options http_opts;
    char *token_file;
    struct serve_policy policy;
    struct serve_audit audit;
    uv_signal_t sigint, sigterm;
    uv_signal_t sigusr1, sigusr2; /* pause, resume (glovebox stop / resume) */
    char *pidfile;                /* DATA_DIR/serve-<pid>.pid; NULL if not written */
    uv_timer_t deadline;
    bool shared_sessions;             /* --shared-sessions */
    char *tools;                      /* --tools GROUPS (or GLOVEBOX_TOOLS), or NULL: all */
    bool output_schemas;              /* --output-schemas */
    int max_sessions, max_per_client; /* --max-sessions, --max-sessions-per-client */
    int subscribe_interval_ms;        /* --subscribe-interval */
    bool stopping;
    bool finished;
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
          "  --stdio              serve on stdin/stdout (the default without --http)\n"
          "  --http [HOST:]PORT   serve Streamable HTTP on http://HOST:PORT/mcp (default host\n"
          "                       127.0.0.1; also /sse + /messages for 2024-11-05 clients)\n"
          "  --token-file PATH    require \"Authorization: Bearer <token>\" with the token in\n"
          "                       PATH (also GLOVEBOX_TOKEN); needed for non-loopback HOST\n"
          "  --allow-origin URL   also accept this Origin (repeatable; default: localhost)\n"
          "  --allow-host NAME    also accept this Host name (repeatable)\n"
          "  --tls-cert PEM, --tls-key PEM   serve HTTPS\n"
          "  --session-idle SECS  end MCP sessions unused this long (default 1800)\n"
          "  --rate-limit N       requests per second per client address (default 2000,\n"
          "                       0 = unlimited)\n"
          "  --max-message SIZE   largest accepted message, e.g. 16M (default 16M)\n"
          "  --data-dir DIR       recordings, screenshots, audit log\n"
          "                       (default $XDG_DATA_HOME/glovebox)\n"
          "  --page-size N        items per page in list results (default 100)\n"
          "  --tools GROUPS       serve only these tool groups (also GLOVEBOX_TOOLS), e.g.\n"
          "                       default,android or all. default: sessions terminal\n"
          "                       desktop perception input server; more: windows\n"
          "                       clipboard recording computer_use vnc webdriver android\n"
          "  --output-schemas     list each tool's outputSchema in tools/list (default\n"
          "                       not; also GLOVEBOX_OUTPUT_SCHEMAS=1)\n"
          "  --shared-sessions    every client may list and use every screen session\n"
          "                       (cooperating agents; default: a session is its\n"
          "                       starter's unless started with shared: true)\n"
          "  --max-sessions N     screen sessions running at once (default 128)\n"
          "  --max-sessions-per-client N   per client (default 64)\n"
          "  --subscribe-interval MS   least time between two resource-updated\n"
          "                       notifications of one session (default 250)\n"
          "  --log-level LEVEL    debug, info, warning or error (default warning; also\n"
          "                       GLOVEBOX_LOG)\n" SERVE_POLICY_USAGE SERVE_AUDIT_USAGE
          "  -h, --help           show this help\n"
          "\n"
          "Signals: SIGUSR1 pauses every input action (glovebox stop), SIGUSR2 resumes\n"
          "(glovebox resume).\n"
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
    /* Once: a child reaped after the loop ended can report the last
     * session's end again. */
    if (srv->finished)
        return;
    srv->finished = true;
    stdio_transport_destroy(srv->stdio);
    srv->stdio = NULL;
    http_options_finish(&srv->http_opts);
    free(srv->token_file);
    srv->token_file = NULL;
    free(srv->tools);
    srv->tools = NULL;
    uv_walk(srv->app.loop, close_walk, &srv->deadline);
    /* Unreferenced: when no job is left the loop ends at once. */
    uv_timer_start(&srv->deadline, work_deadline, WORK_GRACE_MS, 0);
    uv_unref((uv_handle_t *)&srv->deadline);
}

static void drained(void *ud)
{
    finish(ud);
}

static void http_done(void *ud)
{
    struct server *srv = ud;
    if (srv->stdio)
        stdio_transport_shutdown(srv->stdio, drained, srv);
    else
        finish(srv);
}

static void sessions_stopped(void *ud)
{
    struct server *srv = ud;
    log_info("all sessions ended");
    if (srv->http) {
        struct http_transport *t = srv->http;
        srv->http = NULL;
        srv->app.http = NULL;
        http_transport_shutdown(t, http_done, srv);
    } else {
        http_done(srv);
    }
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
    uv_unref((uv_handle_t *)&srv->sigusr1);
    uv_unref((uv_handle_t *)&srv->sigusr2);
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

static void on_pause_signal(uv_signal_t *s, int signum)
{
    struct server *srv = s->data;
    pause_set(&srv->app, signum == SIGUSR1);
}

/* Written once the pause signals are handled: before that SIGUSR1 would
 * kill the process. */
static void write_pidfile(struct server *srv)
{
    char *err = NULL;
    if (!app_ensure_data_dir(&srv->app, &err) ||
        !(srv->pidfile = pidfile_write(srv->app.data_dir, &err))) {
        log_warn("glovebox stop will not find this server: %s", err);
        free(err);
    }
}

static int parse_args(struct server *srv, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int pr;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return -1;
        } else if ((pr = serve_policy_option(&srv->policy, a, v)) != 0) {
            if (pr < 0)
                return EXIT_USAGE;
            if (pr == 1)
                continue;
        } else if ((pr = serve_audit_option(&srv->audit, a, v)) != 0) {
            if (pr < 0)
                return EXIT_USAGE;
            if (pr == 1)
                continue;
        } else if (strcmp(a, "--stdio") == 0) {
            srv->want_stdio = true;
            continue;
        } else if (strcmp(a, "--shared-sessions") == 0) {
            srv->shared_sessions = true;
            continue;
        } else if (strcmp(a, "--output-schemas") == 0) {
            srv->output_schemas = true;
            continue;
        } else if (strcmp(a, "--tools") == 0 && v) {
            free(srv->tools);
            srv->tools = xstrdup(v);
        } else if ((strcmp(a, "--max-sessions") == 0 ||
                    strcmp(a, "--max-sessions-per-client") == 0) &&
                   v) {
            long n;
            if (!options_parse_int(v, 1, 10000, &n)) {
                fprintf(stderr, "glovebox serve: %s expects 1..10000, got \"%s\"\n", a, v);
                return EXIT_USAGE;
            }
            if (strcmp(a, "--max-sessions") == 0)
                srv->max_sessions = (int)n;
            else
                srv->max_per_client = (int)n;
        } else if (strcmp(a, "--subscribe-interval") == 0 && v) {
            long n;
            if (!options_parse_int(v, 0, 600000, &n)) {
                fprintf(stderr,
                        "glovebox serve: --subscribe-interval expects milliseconds "
                        "(0..600000), got \"%s\"\n",
                        v);
                return EXIT_USAGE;
            }
            srv->subscribe_interval_ms = (int)n;
        } else if (strcmp(a, "--http") == 0 && v) {
            char *err = NULL;
            srv->want_http = true;
            if (!http_options_parse_listen(&srv->http_opts, v, &err)) {
                fprintf(stderr, "glovebox serve: --http %s\n", err);
                free(err);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--token-file") == 0 && v) {
            free(srv->token_file);
            srv->token_file = xstrdup(v);
        } else if ((strcmp(a, "--allow-origin") == 0 || strcmp(a, "--allow-host") == 0) && v) {
            char ***list =
                a[8] == 'o' ? &srv->http_opts.allow_origins : &srv->http_opts.allow_hosts;
            size_t n = 0;
            while (*list && (*list)[n])
                n++;
            *list = xrealloc(*list, (n + 2) * sizeof **list);
            (*list)[n] = xstrdup(v);
            (*list)[n + 1] = NULL;
        } else if (strcmp(a, "--tls-cert") == 0 && v) {
            free(srv->http_opts.tls_cert);
            srv->http_opts.tls_cert = xstrdup(v);
        } else if (strcmp(a, "--tls-key") == 0 && v) {
            free(srv->http_opts.tls_key);
            srv->http_opts.tls_key = xstrdup(v);
        } else if ((strcmp(a, "--session-idle") == 0 || strcmp(a, "--rate-limit") == 0) && v) {
            bool idle = a[2] == 's';
            long n;
            if (!options_parse_int(v, idle ? 1 : 0, idle ? 604800 : 1000000, &n)) {
                fprintf(stderr, "glovebox serve: %s expects %s, got \"%s\"\n", a,
                        idle ? "seconds (1..604800)" : "a number (0..1000000)", v);
                return EXIT_USAGE;
            }
            if (idle)
                srv->http_opts.session_idle_s = (int)n;
            else
                srv->http_opts.rate_per_s = (int)n;
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
            static const char *const valued[] = {
                "--max-message",  "--data-dir",
                "--page-size",    "--log-level",
                "--http",         "--token-file",
                "--allow-origin", "--allow-host",
                "--tls-cert",     "--tls-key",
                "--session-idle", "--rate-limit",
                "--policy",       "--mode",
                "--audit-db",     "--audit-retention-days",
                "--max-sessions", "--max-sessions-per-client",
                "--tools",        "--subscribe-interval",
            };
            bool needs_value = false;
            for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
                needs_value |= strcmp(a, valued[k]) == 0;
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

/* The token comes from --token-file or GLOVEBOX_TOKEN; surrounding
 * whitespace (a trailing newline) is not part of it. */
static int load_token(struct server *srv)
{
    char *token = NULL;
    if (srv->token_file) {
        FILE *f = fopen(srv->token_file, "r");
        char buf[4096];
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        if (!f) {
            fprintf(stderr,
                    "glovebox serve: --token-file %s: cannot read it: %s (the bearer token "
                    "every client must send; without it glovebox does not start — write one, "
                    "e.g. head -c 32 /dev/urandom | base64 > FILE, or mount it there)\n",
                    srv->token_file, strerror(errno));
            return EXIT_USAGE;
        }
        buf[n] = '\0';
        token = xstrdup(buf);
    } else if (getenv("GLOVEBOX_TOKEN") && *getenv("GLOVEBOX_TOKEN")) {
        token = xstrdup(getenv("GLOVEBOX_TOKEN"));
    }
    if (!token)
        return 0;
    char *start = token;
    while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')
        start++;
    size_t len = strlen(start);
    while (len && (start[len - 1] == ' ' || start[len - 1] == '\t' || start[len - 1] == '\n' ||
                   start[len - 1] == '\r'))
        len--;
    if (len < 16) {
        fprintf(stderr,
                "glovebox serve: the token must be at least 16 characters (got %zu); make one "
                "with: head -c 32 /dev/urandom | base64\n",
                len);
        free(token);
        return EXIT_USAGE;
    }
    srv->http_opts.token = xstrndup(start, len);
    free(token);
    return 0;
}

static bool start_transports(struct server *srv)
{
    char *err = NULL;
    if (srv->want_stdio || !srv->want_http) {
        srv->stdio = stdio_transport_start(&srv->app, stdin_closed, srv, &err);
        if (!srv->stdio) {
            fprintf(stderr, "glovebox serve: %s\n", err);
            free(err);
            return false;
        }
        log_info("glovebox %s serving MCP on stdio", GLOVEBOX_VERSION);
    }
    if (srv->want_http) {
        srv->http = http_transport_start(&srv->app, &srv->http_opts, &err);
        if (!srv->http) {
            fprintf(stderr, "glovebox serve: %s\n", err);
            free(err);
            return false;
        }
        srv->app.http = srv->http;
        json_t *d = http_transport_describe(srv->http);
        /* Every bound address, so the line says all that listens. */
        json_t *listening = json_object_get(d, "listening");
        char also[160] = "";
        for (size_t i = 1; i < json_array_size(listening); i++)
            snprintf(also + strlen(also), sizeof also - strlen(also), "%s%s",
                     i > 1 ? ", " : " (also ", json_string_value(json_array_get(listening, i)));
        if (also[0])
            snprintf(also + strlen(also), sizeof also - strlen(also), ")");
        fprintf(stderr, "glovebox %s serving MCP on %s%s%s\n", GLOVEBOX_VERSION,
                json_string_value(json_object_get(d, "url")), also,
                srv->http_opts.token ? " (bearer token required)" : "");
        json_decref(d);
    }
    return true;
}

/* --tools (else GLOVEBOX_TOOLS) and --output-schemas (GLOVEBOX_OUTPUT_SCHEMAS=1),
 * before the tools are registered: the registry leaves out the groups not
 * named. Without either, every group is served and the default set listed. */
static int choose_tools(struct server *srv)
{
    const char *os = getenv("GLOVEBOX_OUTPUT_SCHEMAS");
    registry_list_output_schemas(srv->output_schemas || (os && strcmp(os, "1") == 0));
    const char *spec = srv->tools ? srv->tools : getenv("GLOVEBOX_TOOLS");
    char *err = NULL;
    if (!spec || !*spec) {
        /* Nothing chosen: every tool answers a call by name, and tools/list
         * (what the model reads on every turn) shows the default set. */
        registry_serve_groups(NULL);
        registry_list_groups(tool_groups_parse("default", &err));
        return 0;
    }
    char **groups = tool_groups_parse(spec, &err);
    if (!groups) {
        fprintf(stderr, "glovebox serve: %s: %s\n", srv->tools ? "--tools" : "GLOVEBOX_TOOLS", err);
        free(err);
        return EXIT_USAGE;
    }
    registry_serve_groups(groups);
    return 0;
}

int cli_serve(int argc, char **argv)
{
    struct server srv = {0};
    http_options_defaults(&srv.http_opts);
    srv.app.loop = uv_default_loop();
    srv.app.max_message = 16u * 1024 * 1024;
    srv.app.page_size = 100;
    srv.max_sessions = SESSION_DEFAULT_MAX_TOTAL;
    srv.max_per_client = SESSION_DEFAULT_MAX_PER_CLIENT;
    srv.subscribe_interval_ms = SESSION_NOTIFY_DEFAULT_MS;
    srv.app.data_dir = paths_default_data_dir();
    serve_audit_init(&srv.audit);
    int rc = parse_args(&srv, argc, argv);
    if (rc == 0)
        rc = load_token(&srv);
    if (rc == 0)
        rc = choose_tools(&srv);
    /* Before the policy: it checks its rules against the tools' facts. */
    tools_register_all();
    cli_register_extra_tools();
    if (rc == 0 && !serve_policy_start(&srv.policy, &srv.app))
        rc = EXIT_USAGE;
    if (rc != 0) {
        free(srv.app.data_dir);
        http_options_finish(&srv.http_opts);
        free(srv.token_file);
        free(srv.tools);
        serve_policy_finish(&srv.policy);
        serve_audit_finish(&srv.audit, &srv.app);
        mcp_server_finish();
        return rc < 0 ? EXIT_OK : rc;
    }
    srv.app.started_ms = uv_now(srv.app.loop);
    serve_audit_start(&srv.audit, &srv.app);
    srv.app.sessions = session_registry_create(&srv.app);
    session_registry_configure(srv.app.sessions, srv.shared_sessions, srv.max_sessions,
                               srv.max_per_client);
    session_registry_observe(srv.app.sessions, screen_resources_observer(),
                             srv.subscribe_interval_ms);
    serve_sessions_start(&srv.app);
    children_init(srv.app.loop);

    uv_signal_init(srv.app.loop, &srv.sigint);
    uv_signal_init(srv.app.loop, &srv.sigterm);
    srv.sigint.data = srv.sigterm.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    uv_signal_init(srv.app.loop, &srv.sigusr1);
    uv_signal_init(srv.app.loop, &srv.sigusr2);
    srv.sigusr1.data = srv.sigusr2.data = &srv;
    uv_signal_start(&srv.sigusr1, on_pause_signal, SIGUSR1);
    uv_signal_start(&srv.sigusr2, on_pause_signal, SIGUSR2);
    write_pidfile(&srv);
    uv_timer_init(srv.app.loop, &srv.deadline);
    srv.deadline.data = &srv;

    if (!start_transports(&srv)) {
        srv.exit_code = EXIT_FAILURE_RUNTIME;
        stdio_transport_destroy(srv.stdio);
        srv.stdio = NULL;
        finish(&srv);
    }
    /* libwebsockets stops the loop while it tears down; go on until the
     * shutdown has run its course. */
    do
        uv_run(srv.app.loop, UV_RUN_DEFAULT);
    while (!srv.finished && uv_loop_alive(srv.app.loop));
    /* Work ran out before the shutdown did (a backend waited on nothing
     * that keeps the loop alive): release what finish would have. */
    finish(&srv);
    /* Close anything a late callback opened and let close callbacks run; do
     * not wait again for jobs the deadline gave up on. */
    uv_walk(srv.app.loop, close_walk, NULL);
    for (int i = 0; i < 16 && uv_run(srv.app.loop, UV_RUN_NOWAIT); i++)
        ;
    /* Jobs the deadline gave up on keep their own memory; they never call
     * back. */
    bool busy = uv_loop_close(srv.app.loop) != 0;
    /* Every call has been answered (and so recorded) by now; those whose
     * record a backend still held open are recorded with their cautious
     * notes (a type_text whose password check did not finish: redacted). */
    tool_calls_release_held();
    serve_audit_finish(&srv.audit, &srv.app);
    serve_sessions_finish(&srv.app);
    pidfile_remove(srv.pidfile);
    srv.pidfile = NULL;
    children_finish();
    session_registry_destroy(srv.app.sessions);
    mcp_server_finish();
    serve_policy_finish(&srv.policy);
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
