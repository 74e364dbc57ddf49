/* The /mcp endpoint: POST carries one JSON-RPC message, GET opens (or
 * resumes) a session's event stream, DELETE ends a session. Requests that
 * carry protocol 2026-07-28 are stateless: each gets a connection of its own
 * that ends with its answer, and their mirrored headers must match the body. */
#define LOG_MODULE "http"
#include "core/base64.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "transport/http_internal.h"

#include <string.h>

#define META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"

static bool in_list(const char *const *list, const char *v)
{
    for (; *list; list++)
        if (strcmp(*list, v) == 0)
            return true;
    return false;
}

static void fail_unsupported_version(struct http_req *req, const char *version)
{
    json_t *supported = json_array();
    for (const char *const *l = mcp_modern_versions; *l; l++)
        json_array_append_new(supported, json_string(*l));
    for (const char *const *l = mcp_legacy_versions; *l; l++)
        json_array_append_new(supported, json_string(*l));
    json_t *data = json_pack("{s:o, s:s}", "supported", supported, "requested", version);
    json_t *err = jsonrpc_error(NULL, MCP_UNSUPPORTED_PROTOCOL_VERSION,
                                "Bad Request: unsupported MCP-Protocol-Version", data);
    char *body = json_dumps(err, JSON_COMPACT);
    json_decref(err);
    http_req_respond(req, 400, "application/json", body, strlen(body));
    free(body);
}

/* Mcp-Name may carry "=?base64?…?=" for values that are not plain ASCII. */
static char *header_value(const char *h)
{
    size_t n = strlen(h);
    if (n >= 11 && strncmp(h, "=?base64?", 9) == 0 && strcmp(h + n - 2, "?=") == 0) {
        size_t len;
        return base64_decode(h + 9, n - 11, &len);
    }
    return xstrdup(h);
}

/* 2026-07-28: the headers mirror the body and must agree with it. */
static bool headers_match(struct http_req *req, const struct jsonrpc_message *m, json_t *id)
{
    const char *problem = NULL;
    char *detail = NULL;
    const json_t *meta = json_object_get(m->params, "_meta");
    const char *body_version = json_string_value(json_object_get(meta, META_PROTOCOL_VERSION));
    if (!body_version || strcmp(body_version, req->protocol_version) != 0) {
        problem = "MCP-Protocol-Version header does not match _meta." META_PROTOCOL_VERSION;
    } else if (m->kind == JSONRPC_REQUEST && !req->mcp_method) {
        problem = "the Mcp-Method header is required";
    } else if (m->kind == JSONRPC_REQUEST && strcmp(req->mcp_method, m->method) != 0) {
        detail = xasprintf("Mcp-Method header value '%.100s' does not match body value '%.100s'",
                           req->mcp_method, m->method);
    } else if (m->kind == JSONRPC_REQUEST &&
               (strcmp(m->method, "tools/call") == 0 || strcmp(m->method, "prompts/get") == 0 ||
                strcmp(m->method, "resources/read") == 0)) {
        const char *field = strcmp(m->method, "resources/read") == 0 ? "uri" : "name";
        const char *body_name = json_string_value(json_object_get(m->params, field));
        char *hv = req->mcp_name ? header_value(req->mcp_name) : NULL;
        if (!req->mcp_name)
            problem = "the Mcp-Name header is required for this method";
        else if (!hv)
            problem = "the Mcp-Name header is not valid base64 inside =?base64?…?=";
        else if (!body_name || strcmp(hv, body_name) != 0)
            detail = xasprintf("Mcp-Name header value '%.100s' does not match body value '%.100s'",
                               hv, body_name ? body_name : "");
        free(hv);
    }
    if (!problem && !detail)
        return true;
    char *msg = xasprintf("Header mismatch: %s", detail ? detail : problem);
    json_t *err = jsonrpc_error(id, MCP_HEADER_MISMATCH, msg, NULL);
    char *body = json_dumps(err, JSON_COMPACT);
    json_decref(err);
    http_req_respond(req, 400, "application/json", body, strlen(body));
    free(body);
    free(msg);
    free(detail);
    return false;
}

static bool content_type_is_json(const struct http_req *req)
{
    if (!req->content_type)
        return false;
    size_t n = strcspn(req->content_type, ";");
    while (n && req->content_type[n - 1] == ' ')
        n--;
    return n == 16 && strncasecmp(req->content_type, "application/json", 16) == 0;
}

static void post_modern(struct http_req *req, const struct jsonrpc_message *m)
{
    if (!headers_match(req, m, m->id))
        return;
    if (m->kind != JSONRPC_REQUEST) {
        if (m->kind == JSONRPC_RESPONSE) {
            http_req_fail(req, 400, JSONRPC_INVALID_REQUEST,
                          "Bad Request: protocol 2026-07-28 clients send no responses (input "
                          "goes in inputResponses of a retried request)");
        } else {
            http_req_respond(req, 202, NULL, NULL, 0);
        }
        return;
    }
    struct mcp_transport tr = {.name = "http", .send = http_conn_send, .ud = NULL};
    struct mcp_conn *c = mcp_conn_create(req->t->app, &tr);
    mcp_conn_set_peer(c, req->remote, NULL);
    struct mcp_stream *st = stream_create(req->t, STREAM_POST, NULL, c);
    st->modern = true;
    stream_bind(st, req);
    mcp_conn_receive_message(c, m, st);
}

static struct mcp_session *session_of(struct http_req *req)
{
    if (!req->session_id) {
        http_req_fail(req, 400, JSONRPC_INVALID_REQUEST,
                      "Bad Request: the Mcp-Session-Id header is required (send initialize "
                      "first to get one)");
        return NULL;
    }
    struct mcp_session *s = session_lookup(req->t, req->session_id);
    if (!s || s->legacy) {
        http_req_fail(req, 404, JSONRPC_INVALID_REQUEST,
                      "Not found: no MCP session %.64s (it ended or never existed; send "
                      "initialize to start a new one)",
                      req->session_id);
        return NULL;
    }
    s->last_used_ms = uv_now(req->t->app->loop);
    return s;
}

static void post_legacy(struct http_req *req, const struct jsonrpc_message *m)
{
    struct mcp_session *s;
    bool initialize = m->kind == JSONRPC_REQUEST && strcmp(m->method, "initialize") == 0;
    if (initialize) {
        if (req->session_id) {
            http_req_fail(req, 400, JSONRPC_INVALID_REQUEST,
                          "Bad Request: initialize starts a new session; send it without "
                          "Mcp-Session-Id");
            return;
        }
        s = session_open(req->t, false, req->remote);
        if (!s) {
            http_req_fail(req, 503, JSONRPC_INTERNAL_ERROR,
                          "Service unavailable: too many MCP sessions are open");
            return;
        }
    } else if (!(s = session_of(req))) {
        return;
    }
    if (m->kind != JSONRPC_REQUEST) {
        http_req_respond(req, 202, NULL, NULL, 0);
        mcp_conn_receive_message(s->conn, m, &http_no_answer);
        return;
    }
    struct mcp_stream *st = stream_create(req->t, STREAM_POST, s, s->conn);
    st->creates_session = initialize;
    stream_bind(st, req);
    mcp_conn_receive_message(s->conn, m, st);
}

static void handle_post(struct http_req *req)
{
    if (!http_req_accepts(req, "application/json") || !http_req_accepts(req, "text/event-stream")) {
        http_req_fail(req, 406, JSONRPC_INVALID_REQUEST,
                      "Not acceptable: the Accept header must list application/json and "
                      "text/event-stream");
        return;
    }
    if (!content_type_is_json(req)) {
        http_req_fail(req, 415, JSONRPC_INVALID_REQUEST,
                      "Unsupported media type: the body must be application/json, got %.100s",
                      req->content_type ? req->content_type : "no Content-Type");
        return;
    }
    struct jsonrpc_message m;
    char *err = NULL;
    json_t *err_id = NULL;
    int code =
        jsonrpc_parse(req->body.data ? req->body.data : "", req->body.len, &m, &err, &err_id);
    if (code) {
        json_t *e = jsonrpc_error(err_id, code, err, NULL);
        char *body = json_dumps(e, JSON_COMPACT);
        json_decref(e);
        http_req_respond(req, 400, "application/json", body, strlen(body));
        free(body);
        free(err);
        json_decref(err_id);
        return;
    }
    const char *hv = req->protocol_version;
    const json_t *meta = json_object_get(m.params, "_meta");
    const char *bv = json_string_value(json_object_get(meta, META_PROTOCOL_VERSION));
    if (hv && !in_list(mcp_modern_versions, hv) && !in_list(mcp_legacy_versions, hv)) {
        fail_unsupported_version(req, hv);
    } else if ((hv && in_list(mcp_modern_versions, hv)) || (bv && !req->session_id)) {
        if (!hv) {
            json_t *e = jsonrpc_error(m.id, MCP_HEADER_MISMATCH,
                                      "Header mismatch: the MCP-Protocol-Version header is "
                                      "required",
                                      NULL);
            char *body = json_dumps(e, JSON_COMPACT);
            json_decref(e);
            http_req_respond(req, 400, "application/json", body, strlen(body));
            free(body);
        } else {
            post_modern(req, &m);
        }
    } else {
        post_legacy(req, &m);
    }
    jsonrpc_message_finish(&m);
}

static void handle_get(struct http_req *req)
{
    if (req->protocol_version && in_list(mcp_modern_versions, req->protocol_version)) {
        http_req_header(req, "allow", "POST");
        http_req_fail(req, 405, JSONRPC_INVALID_REQUEST,
                      "Method not allowed: protocol %s has no GET stream (use "
                      "subscriptions/listen)",
                      req->protocol_version);
        return;
    }
    if (!http_req_accepts(req, "text/event-stream")) {
        http_req_fail(req, 406, JSONRPC_INVALID_REQUEST,
                      "Not acceptable: GET opens an event stream; the Accept header must list "
                      "text/event-stream");
        return;
    }
    struct mcp_session *s = session_of(req);
    if (!s)
        return;
    if (req->last_event_id) {
        int number;
        uint64_t seq;
        struct mcp_stream *st = NULL;
        if (stream_parse_event_id(req->last_event_id, &number, &seq))
            st = stream_find(s, number);
        if (!st) {
            http_req_fail(req, 404, JSONRPC_INVALID_REQUEST,
                          "Not found: no stream to resume for Last-Event-ID %.64s (it ended, or "
                          "the id is not one this server gave)",
                          req->last_event_id);
            return;
        }
        if (st->req) {
            http_req_fail(req, 409, JSONRPC_INVALID_REQUEST,
                          "Conflict: that stream is already connected");
            return;
        }
        stream_attach(st, req, seq);
        return;
    }
    struct mcp_stream *st = stream_find(s, 0);
    if (st && st->req) {
        http_req_fail(req, 409, JSONRPC_INVALID_REQUEST,
                      "Conflict: this session already has its GET stream open");
        return;
    }
    if (!st)
        st = stream_create(req->t, STREAM_STANDALONE, s, s->conn);
    stream_attach(st, req, st->delivered);
}

static void handle_delete(struct http_req *req)
{
    if (req->protocol_version && in_list(mcp_modern_versions, req->protocol_version)) {
        http_req_header(req, "allow", "POST");
        http_req_fail(req, 405, JSONRPC_INVALID_REQUEST,
                      "Method not allowed: protocol %s has no sessions to delete",
                      req->protocol_version);
        return;
    }
    struct mcp_session *s = session_of(req);
    if (!s)
        return;
    session_close(s);
    http_req_respond(req, 200, NULL, NULL, 0);
}

void http_mcp_handle(struct http_req *req)
{
    switch (req->method) {
    case HTTP_POST:
        handle_post(req);
        break;
    case HTTP_GET:
        handle_get(req);
        break;
    case HTTP_DELETE:
        handle_delete(req);
        break;
    default:
        http_req_header(req, "allow", "GET, POST, DELETE");
        http_req_fail(req, 405, JSONRPC_INVALID_REQUEST,
                      "Method not allowed: /mcp takes POST, GET and DELETE");
        break;
    }
}
