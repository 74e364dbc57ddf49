/* Shared between the files of the protocol engine; not for tools. */
#pragma once
#include "mcp/registry.h"
#include "mcp/server.h"

#include <jansson.h>
#include <stdbool.h>

#define META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CLIENT_INFO      "io.modelcontextprotocol/clientInfo"
#define META_CLIENT_CAPS      "io.modelcontextprotocol/clientCapabilities"
#define META_LOG_LEVEL        "io.modelcontextprotocol/logLevel"
#define META_SERVER_INFO      "io.modelcontextprotocol/serverInfo"

/* MCP log levels, RFC 5424 order; LEVEL_NONE sends nothing. */
enum mcp_level {
    LEVEL_DEBUG,
    LEVEL_INFO,
    LEVEL_NOTICE,
    LEVEL_WARNING,
    LEVEL_ERROR,
    LEVEL_CRITICAL,
    LEVEL_ALERT,
    LEVEL_EMERGENCY,
    LEVEL_NONE,
};
bool mcp_level_parse(const char *name, enum mcp_level *out);
const char *mcp_level_name(enum mcp_level level);

/* What one request arrived with: its era, version and options. */
struct request_ctx {
    bool modern;            /* stateless 2026-07-28 request */
    const char *version;    /* static string from the supported lists */
    json_t *progress_token; /* borrowed from the request; NULL if none */
    enum mcp_level log_level;
    json_t *client_caps; /* borrowed: 2026-07-28 _meta clientCapabilities */
    json_t *client_info; /* borrowed: 2026-07-28 _meta clientInfo; may be NULL */
    /* A front door inside glovebox (mcp_conn_call_tool) reads the result
     * itself: no serverInfo or resultType "complete" added to it. */
    bool bare;
};

/* An in-flight request: a tool call or a resource read. */
struct pending {
    struct mcp_conn *conn; /* NULL once the connection is gone */
    json_t *id;            /* owned */
    void *stream;
    bool modern;
    bool bare; /* request_ctx.bare */
    const char *version;
    json_t *progress_token; /* owned; NULL if none */
    enum mcp_level log_level;
    json_t *client_caps; /* owned; 2026-07-28 requests only */
    json_t *client_info; /* owned; 2026-07-28 requests only; may be NULL */
    bool cancelled;
    /* A call one of glovebox's own tools made (tool_call_spawn): its answer
     * goes to the caller, never to the client, and the client's ids (in
     * notifications/cancelled) never name it. */
    bool internal;
    void (*on_cancel)(struct pending *p);
    struct pending *prev, *next; /* the connection's, or the detached list (server.c) */
    /* Set while its connection is being destroyed: the connection's address,
     * only compared, and how far its teardown got (1: asks aborted, 2: cancelled). */
    const struct mcp_conn *detached_from;
    int detach_step;
};

struct mcp_conn {
    struct app *app;
    struct mcp_transport transport;
    const char *legacy_version; /* negotiated by initialize; NULL before */
    bool initialized_notified;
    json_t *client_info;         /* from initialize; NULL before */
    json_t *client_capabilities; /* from initialize */
    enum mcp_level log_level;    /* legacy logging/setLevel */
    const char *last_version;    /* for status */
    struct pending *pending;     /* in-flight requests */
    int in_flight;
    char *remote;     /* peer address ("127.0.0.1:5123"); NULL for stdio */
    char *session_id; /* transport session (HTTP MCP-Session-Id); NULL if none */
    char *key;        /* "connection-N": names a stdio connection as a session owner */
    struct ask *asks; /* server-to-client requests awaiting an answer */
    json_int_t next_ask_id;
    json_t *subscriptions;                  /* resources/subscribe: {uri: true}; NULL if none */
    struct mcp_conn *prev_conn, *next_conn; /* every open connection (server.c) */
};

/* The client that owns the screen sessions this connection starts: its MCP
 * session id (HTTP), its key (stdio: the connection is the client), or NULL
 * for a stateless HTTP request (a peer address without an MCP session),
 * which identifies no client. Borrowed: valid while c lives. */
const char *mcp_conn_owner(const struct mcp_conn *c);

/* The first of every open connection; walk on with next_conn. */
struct mcp_conn *conns_first(void);

/* Server-to-client requests (ask.c). */
struct ask;
/* A response arrived: route it to its ask. False if no ask has this id. */
bool ask_receive(struct mcp_conn *c, const json_t *id, const json_t *result, const json_t *error);
/* Answer every ask of this pending request with error (the request is being
 * cancelled or its connection is gone); with tell, the client hears that
 * the question is withdrawn (notifications/cancelled). Returns how many
 * there were. */
int ask_abort_for(struct mcp_conn *c, const struct pending *p, const char *error, bool tell);
/* The error an ask's answer function gets when the client did not answer in time. */
#define ASK_TIMED_OUT "the client did not answer in time"
/* Whether this request waits for an answer from the client. */
bool ask_pending_for(const struct mcp_conn *c, const struct pending *p);
/* Forget the asks of a request that finished without waiting for them. */
void ask_forget_for(struct mcp_conn *c, const struct pending *p);

/* Sending. msg is consumed. */
void conn_send(struct mcp_conn *c, void *stream, json_t *msg, bool final);
/* Add resultType/serverInfo for modern requests; result is modified. */
void decorate_result(const struct request_ctx *rc, json_t *result);
/* Reply to a request: result (stolen) or error. */
void reply_result(struct mcp_conn *c, void *stream, json_t *id, const struct request_ctx *rc,
                  json_t *result);
void reply_error(struct mcp_conn *c, void *stream, json_t *id, int code, const char *message,
                 json_t *data);

/* In-flight bookkeeping. */
/* Each request in flight holds its arguments and maybe a worker job, so a
 * connection may not queue work without bound: false (answered with
 * MCP_TOO_MANY_IN_FLIGHT) when it has MCP_MAX_IN_FLIGHT already. Methods
 * that answer later call this before pending_start. */
bool pending_admit(struct mcp_conn *c, void *stream, json_t *id);
void pending_start(struct pending *p, struct mcp_conn *c, json_t *id, void *stream,
                   const struct request_ctx *rc);
struct pending *pending_find(struct mcp_conn *c, const json_t *id);
/* Send msg (consumed; may be NULL) as the request's final message unless it
 * was cancelled or its connection is gone, then unlink p. */
void pending_finish(struct pending *p, json_t *msg);
/* Who sent p, as tool_call_client describes it (new reference). */
json_t *pending_client(const struct pending *p);
void pending_cancel(struct pending *p);

/* Methods. Each replies itself (possibly later). */
void method_initialize(struct mcp_conn *c, json_t *id, json_t *params, void *stream);
void method_discover(struct mcp_conn *c, json_t *id, const struct request_ctx *rc, void *stream);
void method_tools_list(struct mcp_conn *c, json_t *id, json_t *params, const struct request_ctx *rc,
                       void *stream);
void method_tools_call(struct mcp_conn *c, json_t *id, json_t *params, const struct request_ctx *rc,
                       void *stream);
void method_resources_list(struct mcp_conn *c, json_t *id, json_t *params,
                           const struct request_ctx *rc, void *stream);
void method_resources_templates(struct mcp_conn *c, json_t *id, json_t *params,
                                const struct request_ctx *rc, void *stream);
void method_resources_read(struct mcp_conn *c, json_t *id, json_t *params,
                           const struct request_ctx *rc, void *stream);
void method_resources_subscribe(struct mcp_conn *c, json_t *id, json_t *params,
                                const struct request_ctx *rc, void *stream);
void method_resources_unsubscribe(struct mcp_conn *c, json_t *id, json_t *params,
                                  const struct request_ctx *rc, void *stream);
void method_prompts_list(struct mcp_conn *c, json_t *id, json_t *params,
                         const struct request_ctx *rc, void *stream);
void method_prompts_get(struct mcp_conn *c, json_t *id, json_t *params,
                        const struct request_ctx *rc, void *stream);
void method_completion_complete(struct mcp_conn *c, json_t *id, json_t *params,
                                const struct request_ctx *rc, void *stream);

void method_subscriptions_listen(struct mcp_conn *c, json_t *id, json_t *params,
                                 const struct request_ctx *rc, void *stream);
/* Tell the 2026-07-28 listen streams that carry uri that it changed. */
void listen_resource_updated(const char *uri);
/* Whether an open subscriptions/listen carries updates of uri. */
bool listen_watched(const char *uri);
/* Tell the 2026-07-28 listen streams that asked for toolsListChanged. */
void listen_tools_list_changed(void);

/* Forget a connection's subscriptions (it is closing). */
void subscriptions_drop(struct mcp_conn *c);
struct prompt;
/* The prompt's argument called name, or NULL. */
const struct prompt_argument *prompt_argument_find(const struct prompt *p, const char *name);
/* 2026-07-28 caching hints (ttlMs, cacheScope) on a list or read result. */
void cacheable(const struct request_ctx *rc, json_t *result, int ttl_ms);

json_t *server_capabilities(void);
/* Whether any prompt or resource template offers completion/complete. */
bool completions_available(void);
json_t *server_info(void);
const char *server_instructions(void);
/* Cursor for list pagination: "<prefix><offset>"; false if not one we issued. */
bool cursor_parse(const json_t *params, char prefix, size_t total, size_t *offset, char **err);
json_t *cursor_make(char prefix, size_t offset);
