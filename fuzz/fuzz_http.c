/* libFuzzer harness: sequences of HTTP requests through the HTTP transport's
 * own logic — /mcp sessions, SSE streams and their replay, Last-Event-ID,
 * stateless 2026-07-28 requests and their header checks, the 2024-11-05
 * /sse + /messages pair — without sockets (libwebsockets is not involved:
 * responses are built and dropped). Connections close at fuzzed moments, so
 * the lifetimes of requests, streams, sessions and protocol connections are
 * what is really under test.
 *
 * Input: requests separated by "\n\n\n". Each request is
 *   line 1   flags and target, e.g. "PD /mcp?x=1": letters pick the method
 *            (P = POST, G = GET, D = DELETE, else other) and K (after the
 *            method letter) keeps the connection open until the end of the
 *            input instead of closing it right after the request
 *   lines    "name: value" headers (mcp-session-id, mcp-protocol-version,
 *            last-event-id, mcp-method, mcp-name, accept, content-type);
 *            the value "$S" stands for the newest session id the server gave
 *   "\n"     then the body
 * Tools: the conformance fixtures (content kinds, progress, logging,
 * sampling, elicitation, prompts, subscribable resources) and fixture_ask
 * and test_reconnection (drops its connection mid-call); nothing that
 * starts programs. */
#include "../tests/fixtures/fixtures.h"
#include "core/app.h"
#include "core/children.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "session/session.h"
#include "transport/http_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

#define MAX_REQUESTS 64

static uv_loop_t loop;
static struct app app;

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
    fixture_http_register();
    conformance_tools_register();
    conformance_ask_register();
    conformance_prompts_register();
    conformance_resources_register();
    return 0;
}

static char *dup_value(const char *v, size_t n, const char *sid)
{
    if (n == 2 && strncmp(v, "$S", 2) == 0)
        return xstrdup(sid[0] ? sid : "none");
    return xstrndup(v, n);
}

/* Fills req from one request's text; returns false for an empty one. */
static bool parse_request(struct http_req *req, const char *p, size_t n, const char *sid,
                          bool *keep_open)
{
    const char *end = p + n;
    const char *nl = memchr(p, '\n', n);
    const char *line_end = nl ? nl : end;
    if (line_end == p)
        return false;
    switch (p[0]) {
    case 'P':
        req->method = HTTP_POST;
        break;
    case 'G':
        req->method = HTTP_GET;
        break;
    case 'D':
        req->method = HTTP_DELETE;
        break;
    default:
        req->method = HTTP_OTHER;
        break;
    }
    const char *target = memchr(p, ' ', (size_t)(line_end - p));
    *keep_open = target && memchr(p, 'K', (size_t)(target - p)) != NULL;
    if (target) {
        target++;
        size_t tn = (size_t)(line_end - target);
        const char *q = memchr(target, '?', tn);
        size_t pn = q ? (size_t)(q - target) : tn;
        snprintf(req->path, sizeof req->path, "%.*s", (int)pn, target);
        if (q) {
            char raw[512];
            snprintf(raw, sizeof raw, "%.*s", (int)(line_end - q - 1), q + 1);
            const char *at = strstr(raw, "$S");
            if (at)
                snprintf(req->query, sizeof req->query, "%.*s%s%s", (int)(at - raw), raw,
                         sid[0] ? sid : "none", at + 2);
            else
                snprintf(req->query, sizeof req->query, "%s", raw);
        }
    }
    p = nl ? nl + 1 : end;
    while (p < end) {
        nl = memchr(p, '\n', (size_t)(end - p));
        line_end = nl ? nl : end;
        if (line_end == p) {
            p = nl ? nl + 1 : end;
            break;
        }
        const char *colon = memchr(p, ':', (size_t)(line_end - p));
        if (colon) {
            size_t kn = (size_t)(colon - p);
            const char *v = colon + 1;
            while (v < line_end && *v == ' ')
                v++;
            size_t vn = (size_t)(line_end - v);
            char **slot = NULL;
            if (kn == 14 && !strncasecmp(p, "mcp-session-id", kn))
                slot = &req->session_id;
            else if (kn == 20 && !strncasecmp(p, "mcp-protocol-version", kn))
                slot = &req->protocol_version;
            else if (kn == 13 && !strncasecmp(p, "last-event-id", kn))
                slot = &req->last_event_id;
            else if (kn == 10 && !strncasecmp(p, "mcp-method", kn))
                slot = &req->mcp_method;
            else if (kn == 8 && !strncasecmp(p, "mcp-name", kn))
                slot = &req->mcp_name;
            else if (kn == 16 && !strncasecmp(p, "x-correlation-id", kn))
                slot = &req->correlation_id;
            else if (kn == 6 && !strncasecmp(p, "accept", kn))
                slot = &req->accept;
            else if (kn == 12 && !strncasecmp(p, "content-type", kn))
                slot = &req->content_type;
            if (slot) {
                free(*slot);
                *slot = dup_value(v, vn, sid);
            }
        }
        p = nl ? nl + 1 : end;
    }
    strbuf_append(&req->body, p, (size_t)(end - p));
    return true;
}

static void route(struct http_req *req)
{
    if (http_rest_path(req->path))
        http_rest_handle(req);
    else if (strcmp(req->path, "/sse") == 0 && req->method == HTTP_GET)
        http_legacy_sse(req);
    else if (strcmp(req->path, "/messages") == 0 && req->method == HTTP_POST)
        http_legacy_message(req);
    else
        http_mcp_handle(req);
}

/* The newest session id, for "$S". */
static void remember_session(struct http_transport *t, char *sid, size_t cap)
{
    if (t->sessions)
        snprintf(sid, cap, "%s", t->sessions->id);
}

static void run_loop(void)
{
    for (int i = 0; i < 4 && uv_run(&loop, UV_RUN_NOWAIT); i++)
        ;
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
    t.rest = http_rest_create(&t);

    struct http_req *open_reqs[MAX_REQUESTS];
    int n_open = 0;
    char sid[40] = "";
    const char *p = (const char *)data, *end = p + size;
    for (int count = 0; p < end && count < MAX_REQUESTS; count++) {
        const char *sep = memmem(p, (size_t)(end - p), "\n\n\n", 3);
        size_t n = sep ? (size_t)(sep - p) : (size_t)(end - p);
        struct http_req *req = http_req_alloc(&t);
        snprintf(req->remote, sizeof req->remote, "127.0.0.1");
        bool keep_open = false;
        if (parse_request(req, p, n, sid, &keep_open)) {
            route(req);
            remember_session(&t, sid, sizeof sid);
        }
        run_loop();
        if (keep_open)
            open_reqs[n_open++] = req;
        else
            http_req_destroy(req);
        run_loop();
        p = sep ? sep + 3 : end;
    }
    while (n_open)
        http_req_destroy(open_reqs[--n_open]);
    http_rest_destroy(t.rest);
    t.rest = NULL;
    http_sessions_close_all(&t);
    uv_timer_stop(&t.reaper);
    uv_close((uv_handle_t *)&t.reaper, NULL);
    /* Every call was cancelled with its connection; their timers close.
     * Anything still keeping the loop alive now is a leak (the run hangs). */
    uv_run(&loop, UV_RUN_DEFAULT);
    while (t.reqs)
        http_req_destroy(t.reqs);
    http_guard_finish(&t);
    http_options_finish(&t.opts);
    session_registry_stop_all(app.sessions, sessions_stopped, NULL);
    return 0;
}
