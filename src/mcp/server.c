/* Connection state and dispatch: one message in, the right method out. */
#include "mcp/server.h"

#define LOG_MODULE "mcp"
#include "core/app.h"
#include "core/check.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/prompt.h"
#include "mcp/resources.h"

#include <string.h>

const char *const mcp_modern_versions[] = {"2026-07-28", NULL};
const char *const mcp_legacy_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
                                           NULL};

static const char *const level_names[] = {"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};

bool mcp_level_parse(const char *name, enum mcp_level *out)
{
    for (int i = 0; i < LEVEL_NONE; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (enum mcp_level)i;
            return true;
        }
    }
    return false;
}

const char *mcp_level_name(enum mcp_level level)
{
    return level < LEVEL_NONE ? level_names[level] : "none";
}

static struct mcp_conn *all_conns;

struct mcp_conn *conns_first(void)
{
    return all_conns;
}

void mcp_server_finish(void)
{
    registry_clear();
    resources_clear();
    prompts_clear();
}

struct mcp_conn *mcp_conn_create(struct app *app, const struct mcp_transport *t)
{
    struct mcp_conn *c = xcalloc(1, sizeof *c);
    c->app = app;
    c->transport = *t;
    /* Until the client picks a level, only problems are worth its attention. */
    c->log_level = LEVEL_WARNING;
    /* "connection-N" without printf: the REST API makes one per call. */
    static unsigned long n_conns;
    char digits[24], *d = digits + sizeof digits;
    *--d = '\0';
    for (unsigned long n = ++n_conns; n || d == digits + sizeof digits - 1; n /= 10)
        *--d = (char)('0' + n % 10);
    size_t nd = (size_t)(digits + sizeof digits - d);
    c->key = xmalloc(11 + nd);
    memcpy(c->key, "connection-", 11);
    memcpy(c->key + 11, d, nd);
    c->next_conn = all_conns;
    if (all_conns)
        all_conns->prev_conn = c;
    all_conns = c;
    return c;
}

/* In-flight requests of connections being destroyed. A cancel hook may
 * finish, and so free, any of them, not only its own (cancelling the
 * running clipboard_get answers the queued one at once), so they stay on
 * this list, which pending_finish unlinks from, and every step chooses its
 * next request afresh. */
static struct pending *detached;

static void detach(struct pending *p, const struct mcp_conn *c)
{
    p->conn = NULL;
    p->detached_from = c;
    p->detach_step = 0;
    p->prev = NULL;
    p->next = detached;
    if (detached)
        detached->prev = p;
    detached = p;
}

static void undetach(struct pending *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        detached = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->prev = p->next = NULL;
    p->detached_from = NULL;
}

/* The first request of c still live and not yet at step. */
static struct pending *next_detached(const struct mcp_conn *c, int step)
{
    for (struct pending *p = detached; p; p = p->next)
        if (p->detached_from == c && p->detach_step < step)
            return p;
    return NULL;
}

void mcp_conn_destroy(struct mcp_conn *c)
{
    if (!c)
        return;
    if (c->prev_conn)
        c->prev_conn->next_conn = c->next_conn;
    else
        all_conns = c->next_conn;
    if (c->next_conn)
        c->next_conn->prev_conn = c->prev_conn;
    /* Detach first: nothing may be sent on a connection that is going. */
    while (c->pending) {
        struct pending *p = c->pending;
        c->pending = p->next;
        detach(p, c);
    }
    c->in_flight = 0;
    /* A call waiting for the client's answer hears that none will come; its
     * answer callback finishes it (silently: the connection is gone). */
    struct pending *p;
    while ((p = next_detached(c, 1))) {
        p->detach_step = 2; /* an aborted ask stands for the cancel */
        p->cancelled = true;
        if (ask_abort_for(c, p, "the connection to the client closed", false) == 0) {
            /* Nothing ran: p is still here. */
            p->detach_step = 1;
            p->cancelled = false;
        }
    }
    while ((p = next_detached(c, 2))) {
        p->detach_step = 2;
        pending_cancel(p);
    }
    /* The rest finish later, on no connection. */
    for (p = detached; p; p = p->next)
        if (p->detached_from == c)
            p->detached_from = NULL;
    subscriptions_drop(c);
    free(c->remote);
    free(c->session_id);
    free(c->key);
    json_decref(c->client_info);
    json_decref(c->client_capabilities);
    free(c);
}

void mcp_conn_set_peer(struct mcp_conn *c, const char *remote, const char *session_id)
{
    free(c->remote);
    free(c->session_id);
    c->remote = remote ? xstrdup(remote) : NULL;
    c->session_id = session_id ? xstrdup(session_id) : NULL;
}

const char *mcp_conn_owner(const struct mcp_conn *c)
{
    if (!c)
        return NULL;
    if (c->session_id)
        return c->session_id;
    return c->remote ? NULL : c->key;
}

int mcp_conn_in_flight(const struct mcp_conn *c)
{
    return c->in_flight;
}

const char *mcp_conn_protocol_version(const struct mcp_conn *c)
{
    return c->last_version;
}

void conn_send(struct mcp_conn *c, void *stream, json_t *msg, bool final)
{
    c->transport.send(c, stream, msg, final, c->transport.ud);
    json_decref(msg);
}

void decorate_result(const struct request_ctx *rc, json_t *result)
{
    if (!rc || !rc->modern || rc->bare)
        return;
    /* An input_required result says so itself. */
    if (!json_object_get(result, "resultType"))
        json_object_set_new_nocheck(result, "resultType", json_string_nocheck("complete"));
    json_t *meta = json_object_get(result, "_meta");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new_nocheck(result, "_meta", meta);
    }
    json_object_set_new_nocheck(meta, META_SERVER_INFO, server_info());
}

void reply_result(struct mcp_conn *c, void *stream, json_t *id, const struct request_ctx *rc,
                  json_t *result)
{
    decorate_result(rc, result);
    conn_send(c, stream, jsonrpc_result(id, result), true);
}

void reply_error(struct mcp_conn *c, void *stream, json_t *id, int code, const char *message,
                 json_t *data)
{
    conn_send(c, stream, jsonrpc_error(id, code, message, data), true);
}

void mcp_conn_report(struct mcp_conn *c, int code, const char *message)
{
    reply_error(c, NULL, NULL, code, message, NULL);
}

void pending_start(struct pending *p, struct mcp_conn *c, json_t *id, void *stream,
                   const struct request_ctx *rc)
{
    p->conn = c;
    p->id = json_incref(id);
    p->stream = stream;
    p->modern = rc->modern;
    p->bare = rc->bare;
    p->version = rc->version;
    p->progress_token = rc->progress_token ? json_incref(rc->progress_token) : NULL;
    p->log_level = rc->log_level;
    p->client_caps = rc->modern && rc->client_caps ? json_incref(rc->client_caps) : NULL;
    p->client_info = rc->modern && rc->client_info ? json_incref(rc->client_info) : NULL;
    p->prev = NULL;
    p->next = c->pending;
    if (c->pending)
        c->pending->prev = p;
    c->pending = p;
    c->in_flight++;
}

bool pending_admit(struct mcp_conn *c, void *stream, json_t *id)
{
    if (c->in_flight < MCP_MAX_IN_FLIGHT)
        return true;
    char *msg = xasprintf("Too many requests in flight: this connection already waits for %d "
                          "answers; wait for some before sending more",
                          MCP_MAX_IN_FLIGHT);
    reply_error(c, stream, id, MCP_TOO_MANY_IN_FLIGHT, msg, NULL);
    free(msg);
    return false;
}

struct pending *pending_find(struct mcp_conn *c, const json_t *id)
{
    for (struct pending *p = c->pending; p; p = p->next)
        if (!p->internal && json_equal(p->id, id))
            return p;
    return NULL;
}

void pending_finish(struct pending *p, json_t *msg)
{
    struct mcp_conn *c = p->conn;
    if (c) {
        if (p->prev)
            p->prev->next = p->next;
        else
            c->pending = p->next;
        if (p->next)
            p->next->prev = p->prev;
        /* Each pending is finished once: a second finish would be a
         * use-after-free of p, and would let the connection exceed its
         * MCP_MAX_IN_FLIGHT budget. */
        CHECK(c->in_flight > 0);
        c->in_flight--;
        if (p->cancelled || p->internal) {
            json_decref(msg);
            msg = NULL;
        }
        /* An internal call's stream is its caller's, which ends with the
         * caller's own answer. */
        if (!p->internal)
            c->transport.send(c, p->stream, msg, true, c->transport.ud);
    } else if (p->prev || p->next || detached == p) {
        undetach(p);
    }
    json_decref(msg);
    json_decref(p->id);
    json_decref(p->progress_token);
    json_decref(p->client_caps);
    json_decref(p->client_info);
}

void pending_cancel(struct pending *p)
{
    if (p->cancelled)
        return;
    p->cancelled = true;
    if (p->on_cancel)
        p->on_cancel(p);
}

static bool is_version(const char *const *list, const char *v)
{
    for (; *list; list++)
        if (strcmp(*list, v) == 0)
            return true;
    return false;
}

static const char *static_version(const char *v)
{
    for (const char *const *l = mcp_modern_versions; *l; l++)
        if (strcmp(*l, v) == 0)
            return *l;
    for (const char *const *l = mcp_legacy_versions; *l; l++)
        if (strcmp(*l, v) == 0)
            return *l;
    return NULL;
}

static json_t *supported_versions(void)
{
    json_t *a = json_array();
    for (const char *const *l = mcp_modern_versions; *l; l++)
        json_array_append_new(a, json_string(*l));
    for (const char *const *l = mcp_legacy_versions; *l; l++)
        json_array_append_new(a, json_string(*l));
    return a;
}

/* Reads the 2026-07-28 per-request fields. Returns 0, or an error code with
 * msg and data set for the reply. */
static int read_modern_meta(const json_t *meta, struct request_ctx *rc, char **msg, json_t **data)
{
    const json_t *v = json_object_get(meta, META_PROTOCOL_VERSION);
    if (!json_is_string(v)) {
        *msg = xstrdup("Invalid params: _meta." META_PROTOCOL_VERSION " must be a string");
        return JSONRPC_INVALID_PARAMS;
    }
    const char *version = json_string_value(v);
    if (!is_version(mcp_modern_versions, version)) {
        *msg = xstrdup("Unsupported protocol version");
        *data = json_pack("{s:o, s:O}", "supported", supported_versions(), "requested", v);
        return MCP_UNSUPPORTED_PROTOCOL_VERSION;
    }
    rc->modern = true;
    rc->version = static_version(version);
    const json_t *caps = json_object_get(meta, META_CLIENT_CAPS);
    if (!json_is_object(caps)) {
        *msg = xstrdup("Invalid params: _meta." META_CLIENT_CAPS
                       " is required (an object; {} when the client has none)");
        return JSONRPC_INVALID_PARAMS;
    }
    const json_t *info = json_object_get(meta, META_CLIENT_INFO);
    if (info && !json_is_object(info)) {
        *msg = xstrdup("Invalid params: _meta." META_CLIENT_INFO " must be an object");
        return JSONRPC_INVALID_PARAMS;
    }
    rc->client_caps = (json_t *)caps;
    rc->client_info = (json_t *)info;
    rc->log_level = LEVEL_NONE;
    const json_t *lvl = json_object_get(meta, META_LOG_LEVEL);
    if (lvl && (!json_is_string(lvl) || !mcp_level_parse(json_string_value(lvl), &rc->log_level))) {
        *msg = xstrdup("Invalid params: _meta." META_LOG_LEVEL
                       " must be one of debug, info, notice, warning, error, critical, alert, "
                       "emergency");
        return JSONRPC_INVALID_PARAMS;
    }
    return 0;
}

static void method_ping(struct mcp_conn *c, json_t *id, const struct request_ctx *rc, void *stream)
{
    reply_result(c, stream, id, rc, json_object());
}

static void method_set_level(struct mcp_conn *c, json_t *id, json_t *params,
                             const struct request_ctx *rc, void *stream)
{
    const json_t *lvl = json_object_get(params, "level");
    enum mcp_level level;
    if (!json_is_string(lvl) || !mcp_level_parse(json_string_value(lvl), &level)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"level\" must be one of debug, info, notice, warning, "
                    "error, critical, alert, emergency",
                    NULL);
        return;
    }
    c->log_level = level;
    reply_result(c, stream, id, rc, json_object());
}

static void handle_notification(struct mcp_conn *c, const char *method, json_t *params)
{
    if (strcmp(method, "notifications/initialized") == 0) {
        c->initialized_notified = true;
    } else if (strcmp(method, "notifications/cancelled") == 0) {
        const json_t *rid = json_object_get(params, "requestId");
        struct pending *p = rid ? pending_find(c, rid) : NULL;
        if (p) {
            const char *reason = json_string_value(json_object_get(params, "reason"));
            log_info("request cancelled by the client%s%s", reason ? ": " : "",
                     reason ? reason : "");
            pending_cancel(p);
        }
    } else {
        log_debug("ignoring notification %s", method);
    }
}

static void dispatch(struct mcp_conn *c, const char *method, json_t *id, json_t *params,
                     void *stream)
{
    struct request_ctx rc = {.modern = false, .log_level = c->log_level};
    const json_t *meta = json_object_get(params, "_meta");
    rc.progress_token = json_object_get(meta, "progressToken");
    if (rc.progress_token && !json_is_string(rc.progress_token) &&
        !json_is_integer(rc.progress_token))
        rc.progress_token = NULL;

    bool is_initialize = strcmp(method, "initialize") == 0;
    if (!is_initialize && json_object_get(meta, META_PROTOCOL_VERSION)) {
        char *msg = NULL;
        json_t *data = NULL;
        int code = read_modern_meta(meta, &rc, &msg, &data);
        if (code) {
            reply_error(c, stream, id, code, msg, data);
            free(msg);
            return;
        }
    } else if (strcmp(method, "server/discover") == 0) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: server/discover needs _meta." META_PROTOCOL_VERSION
                    " and _meta." META_CLIENT_CAPS,
                    NULL);
        return;
    } else if (is_initialize) {
        method_initialize(c, id, params, stream);
        return;
    } else if (strcmp(method, "ping") == 0) {
        /* Allowed at any time, even before initialize. */
        rc.version = c->legacy_version;
        method_ping(c, id, &rc, stream);
        return;
    } else if (!c->legacy_version) {
        reply_error(c, stream, id, JSONRPC_INVALID_REQUEST,
                    "Invalid Request: the server is not initialized. Send \"initialize\" first, "
                    "or use protocol 2026-07-28 by putting " META_PROTOCOL_VERSION
                    " and " META_CLIENT_CAPS " in params._meta",
                    NULL);
        return;
    } else {
        rc.version = c->legacy_version;
    }
    c->last_version = rc.version;

    if (rc.modern && strcmp(method, "server/discover") == 0)
        method_discover(c, id, &rc, stream);
    else if (!rc.modern && strcmp(method, "logging/setLevel") == 0)
        method_set_level(c, id, params, &rc, stream);
    else if (strcmp(method, "tools/list") == 0)
        method_tools_list(c, id, params, &rc, stream);
    else if (strcmp(method, "tools/call") == 0)
        method_tools_call(c, id, params, &rc, stream);
    else if (strcmp(method, "resources/list") == 0)
        method_resources_list(c, id, params, &rc, stream);
    else if (strcmp(method, "resources/templates/list") == 0)
        method_resources_templates(c, id, params, &rc, stream);
    else if (strcmp(method, "resources/read") == 0)
        method_resources_read(c, id, params, &rc, stream);
    else if (strcmp(method, "resources/subscribe") == 0 && resources_subscribable())
        method_resources_subscribe(c, id, params, &rc, stream);
    else if (strcmp(method, "resources/unsubscribe") == 0 && resources_subscribable())
        method_resources_unsubscribe(c, id, params, &rc, stream);
    else if (strcmp(method, "subscriptions/listen") == 0)
        method_subscriptions_listen(c, id, params, &rc, stream);
    else if (strcmp(method, "prompts/list") == 0 && prompts_any())
        method_prompts_list(c, id, params, &rc, stream);
    else if (strcmp(method, "prompts/get") == 0 && prompts_any())
        method_prompts_get(c, id, params, &rc, stream);
    else if (strcmp(method, "completion/complete") == 0 && completions_available())
        method_completion_complete(c, id, params, &rc, stream);
    else {
        char *msg = xasprintf("Method not found: %s", method);
        reply_error(c, stream, id, JSONRPC_METHOD_NOT_FOUND, msg, NULL);
        free(msg);
    }
}

void mcp_conn_receive(struct mcp_conn *c, const char *data, size_t len, void *stream)
{
    struct jsonrpc_message m;
    char *err = NULL;
    json_t *err_id = NULL;
    int code = jsonrpc_parse(data, len, &m, &err, &err_id);
    if (code) {
        log_debug("bad message: %s", err);
        reply_error(c, stream, err_id, code, err, NULL);
        json_decref(err_id);
        free(err);
        return;
    }
    mcp_conn_receive_message(c, &m, stream);
    jsonrpc_message_finish(&m);
}

void mcp_conn_receive_message(struct mcp_conn *c, const struct jsonrpc_message *msg, void *stream)
{
    const struct jsonrpc_message m = *msg;
    switch (m.kind) {
    case JSONRPC_NOTIFICATION:
        handle_notification(c, m.method, m.params);
        /* Nothing is sent, but an HTTP transport still closes the exchange. */
        c->transport.send(c, stream, NULL, true, c->transport.ud);
        break;
    case JSONRPC_RESPONSE:
        /* Answers to server-to-client requests (elicitation, …). */
        if (!ask_receive(c, m.id, m.result, m.error))
            log_debug("ignoring a response the server did not ask for");
        c->transport.send(c, stream, NULL, true, c->transport.ud);
        break;
    case JSONRPC_REQUEST:
        /* "ping\u0000x" must not be taken for ping. */
        if (strlen(m.method) != json_string_length(json_object_get(m.root, "method"))) {
            reply_error(c, stream, m.id, JSONRPC_METHOD_NOT_FOUND,
                        "Method not found: the method name contains a NUL character", NULL);
            break;
        }
        if (pending_find(c, m.id)) {
            reply_error(c, stream, m.id, JSONRPC_INVALID_REQUEST,
                        "Invalid Request: this id is already used by a request in flight", NULL);
            break;
        }
        dispatch(c, m.method, m.id, m.params, stream);
        break;
    }
}
