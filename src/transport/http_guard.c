/* Every HTTP request passes here first. DNS rebinding: a web page the user
 * visits can make the browser talk to 127.0.0.1 under the attacker's host
 * name, so Host and Origin must name this machine (or be listed by the
 * person). Tokens: bearer in the Authorization header only — a token in a
 * URL ends up in logs and browser history. Limits: requests per second and
 * open requests per client address. */
#define LOG_MODULE "http"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "transport/http_internal.h"
#include "viewer/viewer.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct client_slot {
    char remote[64];
    double tokens;
    uint64_t refilled_ms;
    int open; /* requests in progress */
    struct client_slot *next;
};

/* "localhost:7800" → "localhost"; "[::1]:7800" → "::1". */
static void host_name(const char *hostport, char *out, size_t cap)
{
    if (hostport[0] == '[') {
        const char *close = strchr(hostport, ']');
        size_t n = close ? (size_t)(close - hostport - 1) : strlen(hostport + 1);
        snprintf(out, cap, "%.*s", (int)n, hostport + 1);
        return;
    }
    size_t n = strcspn(hostport, ":");
    snprintf(out, cap, "%.*s", (int)n, hostport);
}

static bool listed(char **list, const char *v)
{
    for (char **p = list; p && *p; p++)
        if (strcasecmp(*p, v) == 0)
            return true;
    return false;
}

static bool host_allowed_uncached(const struct http_transport *t, const char *host_header)
{
    char name[256];
    host_name(host_header, name, sizeof name);
    if (http_host_is_loopback(name) || listed(t->opts.allow_hosts, name))
        return true;
    /* Bound to a specific non-loopback address: that address is its name. */
    return strcmp(t->opts.host, "0.0.0.0") != 0 && strcmp(t->opts.host, "::") != 0 &&
           strcasecmp(name, t->opts.host) == 0;
}

static bool host_allowed(struct http_transport *t, const char *host_header)
{
    /* Every request of a client names the same host: the last one allowed
     * is remembered rather than parsed again. */
    if (t->allowed_host[0] && strcmp(host_header, t->allowed_host) == 0)
        return true;
    if (!host_allowed_uncached(t, host_header))
        return false;
    size_t n = strlen(host_header);
    if (n < sizeof t->allowed_host)
        memcpy(t->allowed_host, host_header, n + 1);
    return true;
}

static bool origin_allowed(const struct http_transport *t, const char *origin)
{
    if (listed(t->opts.allow_origins, origin))
        return true;
    const char *rest = NULL;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    if (!rest || strchr(rest, '/'))
        return false;
    char name[256];
    host_name(rest, name, sizeof name);
    return http_host_is_loopback(name);
}

/* Constant time in the length of the expected token. */
static bool token_matches(const char *expected, const char *given)
{
    size_t n = strlen(expected), m = strlen(given);
    unsigned char diff = (unsigned char)(n != m);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(expected[i] ^ (i < m ? given[i] : 0));
    return diff == 0;
}

static bool query_has_token(const char *query)
{
    static const char *const names[] = {"token=", "access_token=", "auth=", "bearer="};
    for (const char *p = query; p && *p;) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strncasecmp(p, names[i], strlen(names[i])) == 0)
                return true;
        const char *amp = strchr(p, '&');
        p = amp ? amp + 1 : NULL;
    }
    return false;
}

static void cors_headers(struct http_req *req)
{
    if (!req->origin)
        return;
    http_req_header(req, "access-control-allow-origin", req->origin);
    http_req_header(req, "vary", "Origin");
    http_req_header(req, "access-control-expose-headers", "mcp-session-id, mcp-protocol-version");
}

static struct client_slot *slot_for(struct http_transport *t, const char *remote)
{
    for (struct client_slot *c = t->clients; c; c = c->next)
        if (strcmp(c->remote, remote) == 0)
            return c;
    struct client_slot *c = xcalloc(1, sizeof *c);
    snprintf(c->remote, sizeof c->remote, "%s", remote);
    c->tokens = t->opts.rate_per_s * 2.0; /* a burst of two seconds' worth */
    c->refilled_ms = uv_now(t->app->loop);
    c->next = t->clients;
    t->clients = c;
    return c;
}

bool http_guard_host_origin(struct http_transport *t, const char *host, const char *origin)
{
    return host && host_allowed(t, host) && (!origin || origin_allowed(t, origin));
}

bool http_guard_check(struct http_req *req)
{
    struct http_transport *t = req->t;
    /* Health probes (Kubernetes, container health checks) name the pod's
     * address as Host and carry no token; the answer says only that the
     * server answers, so it is the one path that passes unchecked. */
    if (strcmp(req->path, HTTP_HEALTH_PATH) == 0)
        return true;
    if (!req->host || !host_allowed(t, req->host)) {
        http_req_fail(req, 403, JSONRPC_INVALID_REQUEST,
                      "Forbidden: Host \"%.100s\" is not this server (allowed: localhost, "
                      "127.0.0.1, [::1]%s; add names with --allow-host)",
                      req->host ? req->host : "",
                      t->opts.allow_hosts && *t->opts.allow_hosts ? " and the listed hosts" : "");
        return false;
    }
    if (req->origin && !origin_allowed(t, req->origin)) {
        http_req_fail(req, 403, JSONRPC_INVALID_REQUEST,
                      "Forbidden: Origin \"%.100s\" may not use this server (allowed: localhost "
                      "pages; add origins with --allow-origin)",
                      req->origin);
        return false;
    }
    cors_headers(req);
    if (req->method == HTTP_OPTIONS) {
        /* CORS preflight for browser-based clients on an allowed origin. */
        http_req_header(req, "access-control-allow-methods", "GET, POST, DELETE, OPTIONS");
        http_req_header(req, "access-control-allow-headers",
                        "content-type, accept, authorization, mcp-session-id, "
                        "mcp-protocol-version, last-event-id, mcp-method, mcp-name");
        http_req_header(req, "access-control-max-age", "600");
        http_req_respond(req, 204, NULL, NULL, 0);
        return false;
    }
    if (query_has_token(req->query)) {
        http_req_fail(req, 400, JSONRPC_INVALID_REQUEST,
                      "Bad request: tokens in the URL are refused (they end up in logs); send "
                      "\"Authorization: Bearer <token>\"");
        return false;
    }
    /* The viewer's pages and WebSocket: a browser sends no bearer token;
     * the viewer link's secret and cookie stand in (src/viewer/). */
    if (t->opts.token && !viewer_path(req->path)) {
        const char *a = req->authorization;
        bool ok = a && strncasecmp(a, "Bearer ", 7) == 0 && token_matches(t->opts.token, a + 7);
        if (!ok) {
            http_req_header(req, "www-authenticate", "Bearer realm=\"glovebox\"");
            http_req_fail(req, 401, JSONRPC_INVALID_REQUEST,
                          a ? "Unauthorized: the bearer token is not valid"
                            : "Unauthorized: send \"Authorization: Bearer <token>\"");
            return false;
        }
    }
    if (t->opts.rate_per_s > 0) {
        struct client_slot *c = slot_for(t, req->remote);
        uint64_t now = uv_now(t->app->loop);
        double cap = t->opts.rate_per_s * 2.0;
        c->tokens += (double)(now - c->refilled_ms) * t->opts.rate_per_s / 1000.0;
        if (c->tokens > cap)
            c->tokens = cap;
        c->refilled_ms = now;
        if (c->tokens < 1.0) {
            int wait_s = (int)((1.0 - c->tokens) / t->opts.rate_per_s) + 1;
            char retry[16];
            snprintf(retry, sizeof retry, "%d", wait_s);
            http_req_header(req, "retry-after", retry);
            http_req_fail(req, 429, JSONRPC_INVALID_REQUEST,
                          "Too many requests: at most %d per second from one client; retry after "
                          "%d s",
                          t->opts.rate_per_s, wait_s);
            return false;
        }
        c->tokens -= 1.0;
    }
    return true;
}

bool http_guard_open(struct http_req *req)
{
    struct http_transport *t = req->t;
    struct client_slot *c = slot_for(t, req->remote);
    if (c->open >= t->opts.max_requests_per_client) {
        http_req_header(req, "retry-after", "1");
        http_req_fail(req, 429, JSONRPC_INVALID_REQUEST,
                      "Too many requests: %d are already open from this client (the limit)",
                      c->open);
        return false;
    }
    c->open++;
    req->counted = true;
    return true;
}

void http_guard_close(struct http_req *req)
{
    if (!req->counted)
        return;
    req->counted = false;
    for (struct client_slot *c = req->t->clients; c; c = c->next) {
        if (strcmp(c->remote, req->remote) == 0) {
            c->open--;
            return;
        }
    }
}

/* Forget clients with nothing open whose bucket is full again. */
void http_guard_sweep(struct http_transport *t, uint64_t now_ms)
{
    struct client_slot **pp = &t->clients;
    while (*pp) {
        struct client_slot *c = *pp;
        if (c->open == 0 && now_ms - c->refilled_ms > 10000) {
            *pp = c->next;
            free(c);
        } else {
            pp = &c->next;
        }
    }
}

void http_guard_finish(struct http_transport *t)
{
    while (t->clients) {
        struct client_slot *c = t->clients;
        t->clients = c->next;
        free(c);
    }
}
