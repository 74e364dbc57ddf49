/* The HTTP transport: MCP Streamable HTTP on /mcp (2025-03-26 … 2025-11-25
 * sessions with SSE, and stateless 2026-07-28 requests), the 2024-11-05
 * HTTP+SSE endpoints (/sse, /messages), on the libuv loop via libwebsockets.
 * Requests pass the guard (Host, Origin, bearer token, rate and size limits)
 * before anything else sees them. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct app;
struct http_transport;

struct http_options {
    char *host; /* address to bind: "127.0.0.1", "::1", "0.0.0.0"…, or "localhost"
                 * (127.0.0.1 and, where the machine has it, ::1) */
    int port;
    char *token;                 /* bearer token required of every request; NULL = none */
    char **allow_origins;        /* extra allowed Origin values (exact), NULL-terminated */
    char **allow_hosts;          /* extra allowed Host names, NULL-terminated */
    char *tls_cert, *tls_key;    /* PEM files; both or neither */
    int session_idle_s;          /* an MCP session unused this long ends (default 1800) */
    int rate_per_s;              /* requests per second per client address; 0 = unlimited */
    int max_requests_per_client; /* concurrent open requests per client address */
};

void http_options_defaults(struct http_options *o);
void http_options_finish(struct http_options *o);
/* "7800", "127.0.0.1:7800", "[::1]:7800", "0.0.0.0:8080" → host and port. */
bool http_options_parse_listen(struct http_options *o, const char *spec, char **err);
/* Whether host is a loopback address or name (127.0.0.0/8, ::1, localhost). */
bool http_host_is_loopback(const char *host);

/* Listen. Returns NULL with *err (caller frees) when it cannot, e.g. the port
 * is taken, or a non-loopback address without a token. opts is copied. */
struct http_transport *http_transport_start(struct app *app, const struct http_options *opts,
                                            char **err);
/* The port actually bound (useful with port 0). */
int http_transport_port(const struct http_transport *t);
/* End every MCP session (requests in flight are cancelled), stop listening;
 * done(ud) runs once libwebsockets has let go of the loop. */
void http_transport_shutdown(struct http_transport *t, void (*done)(void *ud), void *ud);
/* For status: {url, listening: ["127.0.0.1:7800", "[::1]:7800"], mcp_sessions,
 * open_requests, token_required, tls}; addresses are the bound ones. */
json_t *http_transport_describe(const struct http_transport *t);
