/* The MCP protocol engine, independent of transport. A transport creates one
 * connection per client, feeds it whole messages and delivers what it sends.
 * Both protocol eras are served: the legacy handshake (initialize, versions
 * 2024-11-05 … 2025-11-25) and the stateless 2026-07-28 revision, where each
 * request carries its version and capabilities in _meta. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct app;
struct mcp_conn;

struct mcp_transport {
    const char *name; /* "stdio", "http" — for status and the audit log */
    /* Deliver msg (borrowed) to the client. stream is the value given with
     * the request msg belongs to (NULL for messages tied to no request).
     * final marks the request's last message (its response); msg is NULL
     * when a cancelled request ends without an answer. */
    void (*send)(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud);
    /* Optional: close the connection carrying stream without ending the
     * stream (HTTP: the client comes back with Last-Event-ID). */
    void (*disconnect)(struct mcp_conn *c, void *stream, void *ud);
    void *ud;
};

/* A tools/call may carry a correlation id in params._meta under this key:
 * it is noted on the call ("correlation_id" in its audit row's notes). The
 * REST API (/v1) sets it on every call it makes. */
#define MCP_META_CORRELATION_ID "io.glovebox/correlationId"

/* Free the tool registry and resource providers (at exit). */
void mcp_server_finish(void);

struct mcp_conn *mcp_conn_create(struct app *app, const struct mcp_transport *t);
/* Requests still in flight are cancelled and finish silently. Accepts NULL. */
void mcp_conn_destroy(struct mcp_conn *c);
/* Handle one complete message. */
void mcp_conn_receive(struct mcp_conn *c, const char *data, size_t len, void *stream);
/* The same for a message the transport already parsed (jsonrpc_parse) to
 * route it: not parsed twice. m stays the caller's. */
struct jsonrpc_message;
void mcp_conn_receive_message(struct mcp_conn *c, const struct jsonrpc_message *m, void *stream);
/* A tools/call from a front door inside glovebox (the REST API): the
 * stateless 2026-07-28 request it stands for, without building a JSON-RPC
 * envelope only to read it back. The answer comes through the transport's
 * send as for any request: a JSON-RPC response with id 1, its result without
 * the 2026-07-28 decorations (serverInfo, resultType "complete") a client of
 * /mcp reads; progress, when asked for, as notifications/progress with token
 * 1. Validation, policy, confirmations and the audit are the ones of
 * tools/call. */
struct mcp_direct_call {
    const char *tool;
    json_t *args;               /* an object; stolen */
    const char *correlation_id; /* noted on the call; NULL: none */
    const json_t *client_info;  /* {name, version} for the audit log; borrowed */
    bool progress;              /* report progress */
};
void mcp_conn_call_tool(struct mcp_conn *c, const struct mcp_direct_call *d, void *stream);
/* Report a transport-level problem (oversized or unframeable message) as a
 * JSON-RPC error with a null id. */
void mcp_conn_report(struct mcp_conn *c, int code, const char *message);
/* Requests one connection may have in flight; more are answered
 * MCP_TOO_MANY_IN_FLIGHT (the HTTP transport allows as many per client). */
#define MCP_MAX_IN_FLIGHT 256
int mcp_conn_in_flight(const struct mcp_conn *c);
/* Who is on the other end, for the audit log and status (copied). */
void mcp_conn_set_peer(struct mcp_conn *c, const char *remote, const char *session_id);

/* Supported versions, newest first; NULL-terminated. */
extern const char *const mcp_modern_versions[];
extern const char *const mcp_legacy_versions[];
/* The protocol version the most recent request used (for status). */
const char *mcp_conn_protocol_version(const struct mcp_conn *c);

/* Which tools the gate shows now: one '0'/'1' per registered tool (freed by
 * the caller, or by mcp_tools_notify_if_changed). */
char *mcp_visible_tools(const struct app *app);
/* Send notifications/tools/list_changed to every initialized connection and
 * every subscriptions/listen stream that asked for it. */
void mcp_tools_list_changed(void);
/* After a change that may hide or show tools (a policy reload, set_mode):
 * compare with before (from mcp_visible_tools; freed here) and notify if
 * the visible tools differ. Returns whether they did. */
bool mcp_tools_notify_if_changed(const struct app *app, char *before);

struct tool;
/* Stop every tool call in flight whose tool which() picks (a person paused
 * input): calls waiting for a person's confirmation stop waiting, running
 * ones get their cancel hook so backends abort, and each answers with the
 * error reason (copied) instead of its own result. Calls that cannot be
 * stopped (no cancel hook) answer as usual. Returns how many were stopped. */
int mcp_abort_calls(bool (*which)(const struct tool *tool, void *ud), void *ud, const char *reason);
struct tool_call;
/* The same for the calls which() picks by the call itself (a person took
 * control of one session: the input calls on it). */
int mcp_abort_calls_if(bool (*which)(const struct tool_call *call, void *ud), void *ud,
                       const char *reason);
