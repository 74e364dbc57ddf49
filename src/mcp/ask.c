/* Server-to-client requests tied to a tool call (elicitation/create, …).
 * The request goes out on the call's own stream — on stdio the pipe, over
 * HTTP the SSE stream of the POST that carries the call — and the client's
 * response comes back as an ordinary message on the same connection.
 * 2026-07-28 requests cannot be asked anything this way: that revision
 * replaces server-initiated requests with multi round-trip results. */
#define LOG_MODULE "mcp"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/call.h"
#include "mcp/jsonrpc.h"

#include <string.h>

struct ask {
    struct mcp_conn *conn;
    struct pending *p; /* the tool call that asked */
    json_int_t id;
    tool_call_answer_fn fn;
    void *ud;
    uv_timer_t timer;
    struct ask *next;
};

static void ask_free(uv_handle_t *h)
{
    free(h->data);
}

static void unlink_ask(struct ask *a)
{
    for (struct ask **pp = &a->conn->asks; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    uv_timer_stop(&a->timer);
    uv_close((uv_handle_t *)&a->timer, ask_free);
}

/* The client stops asking (closes its dialog): the answer is no longer wanted. */
static void withdraw(struct ask *a, const char *reason)
{
    json_t *params = json_pack("{s:I, s:s}", "requestId", a->id, "reason", reason);
    conn_send(a->conn, a->p->stream, jsonrpc_notification("notifications/cancelled", params),
              false);
}

/* Unlink first: fn usually finishes the call, which forgets its asks. */
static void answer(struct ask *a, const json_t *result, const char *error, bool tell)
{
    unlink_ask(a);
    if (tell)
        withdraw(a, error);
    a->fn((struct tool_call *)a->p, result, error, a->ud);
}

static void on_timeout(uv_timer_t *t)
{
    struct ask *a = t->data;
    log_info("the client did not answer request %" JSON_INTEGER_FORMAT " in time", a->id);
    answer(a, NULL, ASK_TIMED_OUT, true);
}

bool tool_call_ask(struct tool_call *call, const char *method, json_t *params, uint64_t timeout_ms,
                   tool_call_answer_fn fn, void *ud)
{
    struct mcp_conn *c = call->p.conn;
    if (!c || call->p.modern || call->p.cancelled) {
        json_decref(params);
        return false;
    }
    struct ask *a = xcalloc(1, sizeof *a);
    a->conn = c;
    a->p = &call->p;
    a->id = ++c->next_ask_id;
    a->fn = fn;
    a->ud = ud;
    uv_timer_init(c->app->loop, &a->timer);
    a->timer.data = a;
    uv_timer_start(&a->timer, on_timeout, timeout_ms, 0);
    a->next = c->asks;
    c->asks = a;
    json_t *msg = json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", a->id, "method", method,
                            "params", params ? params : json_object());
    conn_send(c, call->p.stream, msg, false);
    return true;
}

bool ask_receive(struct mcp_conn *c, const json_t *id, const json_t *result, const json_t *error)
{
    if (!json_is_integer(id))
        return false;
    for (struct ask *a = c->asks; a; a = a->next) {
        if (a->id != json_integer_value(id))
            continue;
        if (result) {
            answer(a, result, NULL, false);
        } else {
            const char *msg = json_string_value(json_object_get(error, "message"));
            char *text =
                xasprintf("the client answered with an error: %s", msg ? msg : "(no message)");
            answer(a, NULL, text, false);
            free(text);
        }
        return true;
    }
    return false;
}

int ask_abort_for(struct mcp_conn *c, const struct pending *p, const char *error, bool tell)
{
    int n = 0;
    for (;;) {
        struct ask *a = c->asks;
        while (a && a->p != p)
            a = a->next;
        if (!a)
            return n;
        answer(a, NULL, error, tell);
        n++;
    }
}

void ask_forget_for(struct mcp_conn *c, const struct pending *p)
{
    struct ask *a = c->asks;
    while (a) {
        struct ask *next = a->next;
        if (a->p == p)
            unlink_ask(a);
        a = next;
    }
}

bool ask_pending_for(const struct mcp_conn *c, const struct pending *p)
{
    for (const struct ask *a = c->asks; a; a = a->next)
        if (a->p == p)
            return true;
    return false;
}
