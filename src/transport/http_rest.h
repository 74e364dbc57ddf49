/* Shared by the files of the REST API (/v1, docs/rest.md): answers in its
 * {error: {code, message}} shape, and tool calls through the protocol
 * engine, so /v1 and /mcp share one validation, policy and audit path. */
#pragma once
#include "core/error_code.h"
#include "transport/http_internal.h"

#include <jansson.h>
#include <stdbool.h>

/* A client's X-Correlation-Id or correlation_id: 1..REST_CID_MAX-1 of
 * [A-Za-z0-9._:-]. */
#define REST_CID_MAX 129

/* A JSON answer (body stolen). */
void rest_json(struct http_req *req, int status, json_t *body);
/* A refusal: {"error": {"code", "message"}}. */
void rest_fail(struct http_req *req, int status, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The HTTP status a refusal with this code gets. */
int rest_status_of(enum error_code code);
/* The code named name (a code's wire name), else ERROR_TOOL_FAILED. */
enum error_code rest_code_named(const char *name);

/* One tool call in flight through the engine. */
struct rest_call;
/* The call finished: result is the CallToolResult (borrowed), or NULL with
 * rpc_error the engine's JSON-RPC error object (borrowed). call->req is the
 * request to answer; the call is freed after. */
typedef void (*rest_done_fn)(struct rest_call *call, const json_t *result, const json_t *rpc_error);

struct rest_call {
    struct http_transport *t;
    struct http_req *req; /* NULL once its client left (then the call is cancelled) */
    struct mcp_conn *conn;
    char cid[REST_CID_MAX];
    char tool[64];
    char session[48]; /* the session it acts on; "" for a start */
    bool sse;         /* answered as an event stream */
    rest_done_fn done;
    int idle_s; /* a start: the new session's idle timeout */
};

/* The correlation id of req: body's correlation_id, else X-Correlation-Id,
 * else a new one. false after answering 400 when the given one is bad. */
bool rest_correlation_id(struct http_req *req, const json_t *body, char out[REST_CID_MAX]);
/* Run tool with args (stolen) for req. done NULL: answer as a tool call
 * (JSON, or events when sse). Returns the call (it may already be freed
 * when the tool answered at once: use it only to set fields before). */
void rest_call_start(struct http_transport *t, struct http_req *req, const char *tool, json_t *args,
                     const char *cid, const char *session, bool sse, rest_done_fn done, int idle_s);
/* What a finished tool call answers: its status and body. */
json_t *rest_call_body(const struct rest_call *call, const json_t *result, const json_t *rpc_error,
                       int *status);

/* Sessions (http_rest.c): a REST call used session id now. */
void rest_touch(struct http_transport *t, const char *id);
/* A start finished: remember its idle timeout, answer 201. */
void rest_session_started(struct rest_call *call, const json_t *result, const json_t *rpc_error);

/* /v1/openapi.json (http_rest_openapi.c), new. */
json_t *rest_openapi(const struct http_transport *t);
