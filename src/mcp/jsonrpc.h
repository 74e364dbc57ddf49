/* JSON-RPC 2.0 messages: strict parsing and building. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum {
    JSONRPC_PARSE_ERROR = -32700,
    JSONRPC_INVALID_REQUEST = -32600,
    JSONRPC_METHOD_NOT_FOUND = -32601,
    JSONRPC_INVALID_PARAMS = -32602,
    JSONRPC_INTERNAL_ERROR = -32603,
    /* MCP codes. */
    MCP_RESOURCE_NOT_FOUND_LEGACY = -32002, /* 2025-11-25 and earlier */
    MCP_DENIED = -32003, /* glovebox: the permission policy refused a resources/read */
    MCP_HEADER_MISMATCH = -32020,
    MCP_MISSING_CLIENT_CAPABILITY = -32021,
    MCP_UNSUPPORTED_PROTOCOL_VERSION = -32022,
};

/* Ids longer than this are refused rather than echoed back. */
#define JSONRPC_MAX_ID_BYTES 1024

enum jsonrpc_kind { JSONRPC_REQUEST, JSONRPC_NOTIFICATION, JSONRPC_RESPONSE };

struct jsonrpc_message {
    enum jsonrpc_kind kind;
    json_t *root;       /* owned */
    json_t *id;         /* borrowed from root; NULL for notifications */
    const char *method; /* borrowed; NULL for responses */
    json_t *params;     /* borrowed; NULL when absent */
    json_t *result;     /* responses only, borrowed */
    json_t *error;      /* responses only, borrowed */
};

/* Parses one message. Returns 0, or a JSON-RPC error code with *err set to a
 * message (caller frees) and *error_id set to a new reference to the id when
 * it could be read (else NULL), for the error reply. */
int jsonrpc_parse(const char *data, size_t len, struct jsonrpc_message *out, char **err,
                  json_t **error_id);
void jsonrpc_message_finish(struct jsonrpc_message *m);

/* Builders return new references; arguments named "steal" are consumed. */
json_t *jsonrpc_result(json_t *id, json_t *steal_result);
json_t *jsonrpc_error(json_t *id, int code, const char *message, json_t *steal_data);
json_t *jsonrpc_notification(const char *method, json_t *steal_params);
/* "string 'abc'", "integer 5", "object", … for error messages. */
char *jsonrpc_describe_value(const json_t *v);
