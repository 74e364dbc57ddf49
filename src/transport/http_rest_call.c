/* Tool calls of the REST API. Each call is handed to the protocol engine as
 * a stateless (2026-07-28) tools/call on a connection of its own, owned by
 * the REST client (SESSION_OWNER_REST): validation, the policy, confirmations
 * and the audit log are the very ones /mcp has, and the answer comes back
 * through this connection's send. Closing the connection cancels the call:
 * that is what a client that hangs up gets. */
#define LOG_MODULE "rest"
#include "core/json_out.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "session/session.h"
#include "transport/http_rest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Answers. */

void rest_json(struct http_req *req, int status, json_t *body)
{
    /* Written straight into the request's (reused) output buffer, by the
     * writer that copies long strings (a screenshot's base64) in one go
     * where json_dumps walks them a code point at a time. */
    if (!req->responding && !json_out_append(&req->out, body))
        strbuf_clear(&req->out);
    json_decref(body);
    http_req_respond(req, status, "application/json", NULL, 0);
}

/* message may quote what the client sent (a path, a header), which need
 * not be UTF-8: jansson would refuse it. */
static json_t *error_object(enum error_code code, const char *message)
{
    return json_pack("{s:{s:s, s:o}}", "error", "code", error_code_name(code), "message",
                     utf8_json_string(message, strlen(message)));
}

void rest_fail(struct http_req *req, int status, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    log_info("%s from %s: %d %s", req->path, req->remote, status, msg);
    rest_json(req, status, error_object(code, msg));
    free(msg);
}

int rest_status_of(enum error_code code)
{
    switch (code) {
    case ERROR_INVALID_ARGUMENT:
    case ERROR_NOT_SUPPORTED:
        return 400;
    case ERROR_NOT_FOUND:
        return 404;
    case ERROR_DENIED:
        return 403;
    case ERROR_SESSION_EXPIRED:
        return 410;
    case ERROR_DEVICE_UNAVAILABLE:
        return 503;
    case ERROR_TIMEOUT:
        return 504;
    case ERROR_TOOL_FAILED:
        break;
    }
    return 500;
}

enum error_code rest_code_named(const char *name)
{
    for (int c = 0; name && c <= ERROR_CODE_LAST; c++)
        if (strcmp(error_code_name((enum error_code)c), name) == 0)
            return (enum error_code)c;
    return ERROR_TOOL_FAILED;
}

/* HTTP refusals (the guard's, 404s of unknown paths) on /v1 speak the same
 * shape as the API's own. */
char *http_rest_error_body(int status, const char *message)
{
    enum error_code code = status == 404                                     ? ERROR_NOT_FOUND
                           : status == 410                                   ? ERROR_SESSION_EXPIRED
                           : status == 401 || status == 403 || status == 429 ? ERROR_DENIED
                           : status < 500 ? ERROR_INVALID_ARGUMENT
                                          : ERROR_TOOL_FAILED;
    json_t *o = error_object(code, message);
    char *body = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return body;
}

/* Correlation ids. */

/* src into dst[cap], cut to fit: snprintf("%s") without the format. */
static void copy_cut(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static bool cid_valid(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < REST_CID_MAX &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._:-") == n;
}

bool rest_correlation_id(struct http_req *req, const json_t *body, char out[REST_CID_MAX])
{
    const json_t *v = json_object_get(body, "correlation_id");
    if (v && !json_is_string(v)) {
        rest_fail(req, 400, ERROR_INVALID_ARGUMENT,
                  "correlation_id: expected a string of 1 to %d letters, digits or ._:-",
                  REST_CID_MAX - 1);
        return false;
    }
    const char *given = v ? json_string_value(v) : req->correlation_id;
    if (given) {
        if (!cid_valid(given)) {
            rest_fail(req, 400, ERROR_INVALID_ARGUMENT,
                      "%s: expected 1 to %d letters, digits or ._:-",
                      v ? "correlation_id" : "X-Correlation-Id", REST_CID_MAX - 1);
            return false;
        }
        copy_cut(out, REST_CID_MAX, given);
        return true;
    }
    /* A random prefix per process and a counter: unique across restarts
     * without a system call per call. */
    static char prefix[17];
    static unsigned long long counter;
    if (!prefix[0]) {
        unsigned char b[8] = {0};
        if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
            snprintf((char *)b, sizeof b, "%d", (int)getpid());
        for (size_t i = 0; i < sizeof b; i++)
            snprintf(prefix + 2 * i, 3, "%02x", b[i]);
    }
    /* "gb-PREFIX-N", built without printf: one per call. */
    char digits[24], *d = digits + sizeof digits;
    *--d = '\0';
    unsigned long long n = ++counter;
    do {
        *--d = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    char *o = out;
    memcpy(o, "gb-", 3);
    o += 3;
    memcpy(o, prefix, 16);
    o += 16;
    *o++ = '-';
    copy_cut(o, REST_CID_MAX - (size_t)(o - out), d);
    return true;
}

/* Events. */

static void emit(struct rest_call *call, const char *stage, json_t *payload)
{
    json_t *o = json_pack("{s:s, s:s, s:o}", "stage", stage, "correlation_id", call->cid, "payload",
                          payload ? payload : json_object());
    char *data = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    char *ev = xasprintf("event: %s\ndata: %s\n\n", stage, data);
    http_req_write(call->req, ev, strlen(ev));
    free(ev);
    free(data);
}

/* The answer. */

static const char *text_of(const json_t *result)
{
    const json_t *content = json_object_get(result, "content");
    size_t i;
    const json_t *item;
    json_array_foreach(content, i, item)
    {
        const char *type = json_string_value(json_object_get(item, "type"));
        if (type && strcmp(type, "text") == 0)
            return json_string_value(json_object_get(item, "text"));
    }
    return NULL;
}

/* Images and links: what structuredContent does not carry. */
static json_t *media_of(const json_t *result)
{
    json_t *media = NULL;
    const json_t *content = json_object_get(result, "content");
    size_t i;
    const json_t *item;
    json_array_foreach(content, i, item)
    {
        const char *type = json_string_value(json_object_get(item, "type"));
        if (!type || strcmp(type, "text") == 0)
            continue;
        if (!media)
            media = json_array();
        json_array_append(media, (json_t *)item);
    }
    return media;
}

static json_t *refusal(const struct rest_call *call, enum error_code code, const char *message)
{
    json_t *o = error_object(code, message);
    json_object_set_new(o, "correlation_id", json_string(call->cid));
    return o;
}

json_t *rest_call_body(const struct rest_call *call, const json_t *result, const json_t *rpc_error,
                       int *status)
{
    if (!result) {
        const char *msg = json_string_value(json_object_get(rpc_error, "message"));
        json_int_t code = json_integer_value(json_object_get(rpc_error, "code"));
        if (code == MCP_TOO_MANY_IN_FLIGHT) {
            *status = 429;
            return refusal(call, ERROR_DENIED, msg ? msg : "Too many calls in flight");
        }
        *status = code == JSONRPC_INVALID_PARAMS ? 400 : 500;
        return refusal(call, *status == 400 ? ERROR_INVALID_ARGUMENT : ERROR_TOOL_FAILED,
                       msg ? msg : "the call failed");
    }
    const char *rtype = json_string_value(json_object_get(result, "resultType"));
    if (json_is_true(json_object_get(result, "isError")) ||
        (rtype && strcmp(rtype, "input_required") == 0)) {
        const json_t *err = json_object_get(json_object_get(result, "structuredContent"), "error");
        enum error_code code =
            rtype && strcmp(rtype, "input_required") == 0
                ? ERROR_DENIED
                : rest_code_named(json_string_value(json_object_get(err, "code")));
        const char *msg = json_string_value(json_object_get(err, "message"));
        if (!msg)
            msg = text_of(result);
        if (!msg)
            msg = "the call failed";
        char *own = NULL;
        if (code == ERROR_DENIED &&
            (!strncmp(msg, "Confirmation required", 21) || (rtype && *rtype == 'i')))
            msg = own = xasprintf(
                "Confirmation required: the policy wants a person to confirm %s before it "
                "runs, and no page of the live viewer that can approve is open to ask them "
                "(/v1 has no other way to ask). Open one (glovebox view --role approve, "
                "docs/viewer.md) and call again, call it over /mcp with a client that "
                "supports elicitation, or allow %s without confirmation in the policy "
                "(docs/policy.md)",
                call->tool, call->tool);
        json_t *body;
        *status = code == ERROR_DENIED             ? 403
                  : code == ERROR_INVALID_ARGUMENT ? 400
                  : code == ERROR_SESSION_EXPIRED  ? 410
                                                   : 200;
        if (*status != 200) {
            body = refusal(call, code, msg);
        } else {
            body = json_pack("{s:s, s:{s:s, s:s}, s:s}", "status", "failed", "error", "code",
                             error_code_name(code), "message", msg, "correlation_id", call->cid);
        }
        free(own);
        return body;
    }
    *status = 200;
    const json_t *sc = json_object_get(result, "structuredContent");
    const json_t *r = sc ? sc : json_object_get(result, "content");
    json_t *body = json_object();
    json_object_set_new_nocheck(body, "status", json_string_nocheck("succeeded"));
    json_object_set_new_nocheck(body, "result", r ? json_incref((json_t *)r) : json_null());
    json_object_set_new_nocheck(body, "correlation_id", json_string(call->cid));
    json_t *media = media_of(result);
    if (media)
        json_object_set_new(body, "content", media);
    return body;
}

#define PUT_LITERAL(sb, s) strbuf_append(sb, s, sizeof s - 1)

/* The usual answer, {status: "succeeded", result, correlation_id}, written
 * straight from the tool's result: no body object to build, fill and free
 * on each call. false: not that case, or not writable (rest_call_body then
 * says what it is). */
static bool answer_succeeded(struct rest_call *call, const json_t *result)
{
    if (!result || call->sse || call->req->responding ||
        json_is_true(json_object_get(result, "isError")) || json_object_get(result, "resultType"))
        return false;
    const json_t *sc = json_object_get(result, "structuredContent");
    const json_t *r = sc ? sc : json_object_get(result, "content");
    json_t *media = media_of(result);
    struct strbuf *out = &call->req->out;
    strbuf_clear(out);
    PUT_LITERAL(out, "{\"status\":\"succeeded\",\"result\":");
    bool ok = r ? json_out_append(out, r) : (PUT_LITERAL(out, "null"), true);
    /* The id is letters, digits and ._:- (rest_correlation_id): no escapes. */
    PUT_LITERAL(out, ",\"correlation_id\":\"");
    strbuf_puts(out, call->cid);
    strbuf_putc(out, '"');
    if (ok && media) {
        PUT_LITERAL(out, ",\"content\":");
        ok = json_out_append(out, media);
    }
    strbuf_putc(out, '}');
    json_decref(media);
    if (!ok) {
        strbuf_clear(out);
        return false;
    }
    http_req_respond(call->req, 200, "application/json", NULL, 0);
    return true;
}

static void answer(struct rest_call *call, const json_t *result, const json_t *rpc_error)
{
    if (answer_succeeded(call, result)) {
        log_info("%s %s: 200", call->tool, call->session);
        return;
    }
    int status;
    json_t *body = rest_call_body(call, result, rpc_error, &status);
    log_info("%s %s: %d", call->tool, call->session, status);
    if (call->sse) {
        bool ok = status == 200 &&
                  strcmp(json_string_value(json_object_get(body, "status")), "succeeded") == 0;
        emit(call, ok ? "completed" : "failed", body);
        http_req_end(call->req);
        return;
    }
    rest_json(call->req, status, body);
}

/* The engine's side. */

static void call_free(struct rest_call *call)
{
    free(call);
}

static void on_send(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud)
{
    (void)c;
    (void)ud;
    struct rest_call *call = stream;
    struct http_req *req = call->req;
    if (!final) {
        const char *method = json_string_value(json_object_get(msg, "method"));
        if (req && call->sse && method && strcmp(method, "notifications/progress") == 0) {
            json_t *payload = json_deep_copy(json_object_get(msg, "params"));
            json_object_del(payload, "progressToken");
            emit(call, "progress", payload);
        }
        return;
    }
    if (call->session[0])
        rest_touch(call->t, call->session); /* idle time counts from the call's end */
    if (req) {
        req->owner = NULL;
        req->on_detach = NULL;
        log_set_context(call->cid);
        if (!msg)
            rest_fail(req, 503, ERROR_TOOL_FAILED, "the call was stopped before it answered");
        else if (call->done)
            call->done(call, json_object_get(msg, "result"), json_object_get(msg, "error"));
        else
            answer(call, json_object_get(msg, "result"), json_object_get(msg, "error"));
        log_set_context(NULL);
    }
    conn_destroy_later(call->t, call->conn);
    call_free(call);
}

/* The client went away: the call is cancelled (its connection goes now; its
 * requests end silently). */
static void detached(struct http_req *req)
{
    struct rest_call *call = req->owner;
    req->owner = NULL;
    call->req = NULL;
    log_set_context(call->cid);
    log_info("client %s left: %s cancelled", req->remote, call->tool);
    mcp_conn_destroy(call->conn);
    log_set_context(NULL);
    call_free(call);
}

void rest_call_start(struct http_transport *t, struct http_req *req, const char *tool, json_t *args,
                     const char *cid, const char *session, bool sse, rest_done_fn done, int idle_s)
{
    struct rest_call *call = xcalloc(1, sizeof *call);
    call->t = t;
    call->req = req;
    copy_cut(call->cid, sizeof call->cid, cid);
    copy_cut(call->tool, sizeof call->tool, tool);
    copy_cut(call->session, sizeof call->session, session ? session : "");
    call->sse = sse;
    call->done = done;
    call->idle_s = idle_s;
    struct mcp_transport tr = {.name = "rest", .send = on_send, .ud = NULL};
    call->conn = mcp_conn_create(t->app, &tr);
    mcp_conn_set_peer(call->conn, req->remote, SESSION_OWNER_REST);
    req->owner = call;
    req->on_detach = detached;
    http_req_header(req, "x-correlation-id", cid);
    log_set_context(cid);
    log_info("%s %s from %s", tool, session && *session ? session : "(start)", req->remote);
    if (sse) {
        http_req_stream(req);
        emit(call, "started", json_pack("{s:s, s:s}", "tool", tool, "session", call->session));
    }
    /* Who calls, for the audit log: the same object for every call. */
    static json_t *client_info;
    if (!client_info)
        client_info = json_pack("{s:s, s:s}", "name", "glovebox-rest", "version", "1");
    struct mcp_direct_call d = {
        .tool = tool,
        .args = args,
        .correlation_id = cid,
        .client_info = client_info,
        .progress = sse,
    };
    struct mcp_conn *conn = call->conn; /* call may be freed by the time this returns */
    mcp_conn_call_tool(conn, &d, call);
    log_set_context(NULL);
}
