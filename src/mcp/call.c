/* A tool call in flight: what a handler sees (mcp/tool.h). */
#include "mcp/call.h"
#include "core/app.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"

#include <stdarg.h>
#include <string.h>

const json_t *tool_call_args(const struct tool_call *call)
{
    return call->args;
}

struct app *tool_call_app(const struct tool_call *call)
{
    return call->app;
}

const char *tool_call_protocol_version(const struct tool_call *call)
{
    return call->p.version;
}

void tool_call_note(struct tool_call *call, const char *key, json_t *value)
{
    json_object_set_new(call->notes, key, value);
}

const json_t *tool_call_notes(const struct tool_call *call)
{
    return call->notes;
}

uint64_t tool_call_elapsed_ms(const struct tool_call *call)
{
    return (call->answered ? call->answered_ms : uv_now(call->app->loop)) - call->started_ms;
}

uint64_t tool_call_age_ms(const struct tool_call *call)
{
    return uv_now(call->app->loop) - call->started_ms;
}

void tool_call_set_data(struct tool_call *call, void *data)
{
    call->data = data;
}

void *tool_call_data(const struct tool_call *call)
{
    return call->data;
}

const char *tool_call_tool_name(const struct tool_call *call)
{
    return call->entry->tool->name;
}

bool tool_call_is_modern(const struct tool_call *call)
{
    return call->p.modern;
}

bool tool_call_client_can(const struct tool_call *call, const char *capability)
{
    const json_t *caps = call->p.modern ? call->p.client_caps
                         : call->p.conn ? call->p.conn->client_capabilities
                                        : NULL;
    return json_is_object(json_object_get(caps, capability));
}

json_t *pending_client(const struct pending *p)
{
    const struct mcp_conn *c = p->conn;
    const json_t *info = p->modern ? p->client_info : c ? c->client_info : NULL;
    json_t *o = json_object();
    json_object_set_new(o, "transport", json_string(c ? c->transport.name : "gone"));
    json_t *client = json_null();
    if (json_is_object(info)) {
        client = json_object();
        const json_t *name = json_object_get(info, "name");
        const json_t *version = json_object_get(info, "version");
        if (json_is_string(name))
            json_object_set(client, "name", (json_t *)name);
        if (json_is_string(version))
            json_object_set(client, "version", (json_t *)version);
    }
    json_object_set_new(o, "client", client);
    if (c && c->remote)
        json_object_set_new(o, "remote", json_string(c->remote));
    if (c && c->session_id)
        json_object_set_new(o, "mcp_session", json_string(c->session_id));
    return o;
}

static const char *string_in(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

void tool_call_who(const struct tool_call *call, struct tool_call_who *out)
{
    if (call->client) {
        /* Held past its answer: what pending_client saw then. */
        const json_t *client = json_object_get(call->client, "client");
        out->transport = string_in(call->client, "transport");
        out->client_name = string_in(client, "name");
        out->client_version = string_in(client, "version");
        out->remote = string_in(call->client, "remote");
        out->mcp_session = string_in(call->client, "mcp_session");
        return;
    }
    /* As pending_client, field by field. */
    const struct pending *p = &call->p;
    const struct mcp_conn *c = p->conn;
    const json_t *info = p->modern ? p->client_info : c ? c->client_info : NULL;
    out->transport = c ? c->transport.name : "gone";
    out->client_name = string_in(info, "name");
    out->client_version = string_in(info, "version");
    out->remote = c ? c->remote : NULL;
    out->mcp_session = c ? c->session_id : NULL;
}

json_t *tool_call_client(const struct tool_call *call)
{
    if (call->client)
        return json_incref(call->client);
    return pending_client(&call->p);
}

const char *tool_call_owner(const struct tool_call *call)
{
    return mcp_conn_owner(call->p.conn);
}

void tool_call_disconnect(struct tool_call *call)
{
    struct mcp_conn *c = call->p.conn;
    if (c && c->transport.disconnect && !call->p.modern)
        c->transport.disconnect(c, call->p.stream, c->transport.ud);
}

bool tool_call_cancelled(const struct tool_call *call)
{
    return call->p.cancelled;
}

static struct tool_call *live_calls;

static void run_cancel_hook(struct pending *p)
{
    struct tool_call *call = (struct tool_call *)p;
    /* A call waiting for the client's answer stops waiting; the answer
     * callback finishes it. */
    if (p->conn && ask_abort_for(p->conn, p, "the request was cancelled", true))
        return;
    /* Aborted already (paused) and cancelled now: the hook has done its work. */
    if (call->cancel_hook && !call->hook_ran) {
        call->hook_ran = true;
        call->cancel_hook(call);
    }
}

struct by_tool {
    bool (*which)(const struct tool *tool, void *ud);
    void *ud;
};

static bool pick_by_tool(const struct tool_call *call, void *ud)
{
    struct by_tool *bt = ud;
    return bt->which(call->entry->tool, bt->ud);
}

int mcp_abort_calls(bool (*which)(const struct tool *tool, void *ud), void *ud, const char *reason)
{
    struct by_tool bt = {which, ud};
    return mcp_abort_calls_if(pick_by_tool, &bt, reason);
}

int mcp_abort_calls_if(bool (*which)(const struct tool_call *call, void *ud), void *ud,
                       const char *reason)
{
    /* Hooks may finish (free) calls, their own or others: choose first, then
     * stop each chosen call that is still in flight. */
    int n = 0;
    size_t count = 0;
    for (struct tool_call *c = live_calls; c; c = c->live_next)
        count++;
    struct tool_call **list = xcalloc(count + 1, sizeof *list);
    size_t k = 0;
    for (struct tool_call *c = live_calls; c; c = c->live_next)
        if (!c->abort_reason && !c->p.cancelled && which(c, ud))
            list[k++] = c;
    for (size_t i = 0; i < k; i++) {
        /* Still in flight? An earlier hook may have finished it. */
        struct tool_call *c = live_calls;
        while (c && c != list[i])
            c = c->live_next;
        if (!c)
            continue;
        bool has_ask = c->p.conn && ask_pending_for(c->p.conn, &c->p);
        bool has_hook = c->cancel_hook && !c->hook_ran;
        if (!has_ask && !has_hook)
            continue; /* nothing can stop it; it answers as usual */
        c->abort_reason = xstrdup(reason);
        n++;
        if (has_ask) {
            ask_abort_for(c->p.conn, &c->p, reason, true);
        } else {
            c->hook_ran = true;
            c->cancel_hook(c);
        }
    }
    free(list);
    return n;
}

void tool_call_on_cancel(struct tool_call *call, void (*hook)(struct tool_call *call))
{
    call->cancel_hook = hook;
}

void tool_call_progress(struct tool_call *call, double progress, double total, const char *message)
{
    struct mcp_conn *c = call->p.conn;
    if (!c || !call->p.progress_token || call->p.cancelled)
        return;
    json_t *params =
        json_pack("{s:O, s:f}", "progressToken", call->p.progress_token, "progress", progress);
    if (total > 0)
        json_object_set_new(params, "total", json_real(total));
    if (message)
        json_object_set_new(params, "message", utf8_json_string(message, strlen(message)));
    conn_send(c, call->p.stream, jsonrpc_notification("notifications/progress", params), false);
}

/* printf into a JSON string; text from programs may not be valid UTF-8. */
static json_t *vformat_json(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static json_t *vformat_json(const char *fmt, va_list ap)
{
    /* Most tools hand over text they built: no printf for that. */
    if (fmt[0] == '%' && fmt[1] == 's' && fmt[2] == '\0') {
        const char *text = va_arg(ap, const char *);
        return utf8_json_string(text, strlen(text));
    }
    char *s = xvasprintf(fmt, ap);
    json_t *j = utf8_json_string(s, strlen(s));
    free(s);
    return j;
}

static enum mcp_level to_mcp_level(enum log_level level)
{
    switch (level) {
    case LOG_DEBUG:
        return LEVEL_DEBUG;
    case LOG_INFO:
        return LEVEL_INFO;
    case LOG_WARNING:
        return LEVEL_WARNING;
    case LOG_ERROR:
        return LEVEL_ERROR;
    }
    return LEVEL_ERROR;
}

void tool_call_log(struct tool_call *call, enum log_level level, const char *fmt, ...)
{
    struct mcp_conn *c = call->p.conn;
    enum mcp_level ml = to_mcp_level(level);
    /* Legacy clients set one level for the connection; 2026-07-28 requests
     * carry their own, and get nothing unless they asked. */
    enum mcp_level wanted = call->p.modern ? call->p.log_level : (c ? c->log_level : LEVEL_NONE);
    if (!c || call->p.cancelled || wanted == LEVEL_NONE || ml < wanted)
        return;
    va_list ap;
    va_start(ap, fmt);
    json_t *text = vformat_json(fmt, ap);
    va_end(ap);
    json_t *params = json_pack("{s:s, s:s, s:o}", "level", mcp_level_name(ml), "logger",
                               call->entry->tool->name, "data", text);
    conn_send(c, call->p.stream, jsonrpc_notification("notifications/message", params), false);
}

static bool knows_structured_content(const char *version)
{
    /* structuredContent, outputSchema and resource_link arrived in 2025-06-18;
     * version strings compare in date order. */
    return version && strcmp(version, "2025-06-18") >= 0;
}

/* An isError result: the text for people and models, and, for clients that
 * know structuredContent, {"error": {"code", "message"}} for programs to
 * branch on (docs/errors.md). The code is noted for the audit log whatever
 * the era. text stolen. */
static json_t *error_result(struct tool_call *call, enum error_code code, json_t *text)
{
    const char *name = error_code_name(code);
    tool_call_note(call, "error_code", json_string(name));
    json_t *result =
        json_pack("{s:[{s:s, s:O}], s:b}", "content", "type", "text", "text", text, "isError", 1);
    if (knows_structured_content(call->p.version))
        json_object_set_new(result, "structuredContent",
                            json_pack("{s:{s:s, s:O}}", "error", "code", name, "message", text));
    json_decref(text);
    return result;
}

struct tool_call_hold {
    struct tool_call *call; /* NULL once recorded without it (shutdown) */
    json_t *fallback;       /* the notes if never released properly; owned */
    struct tool_call_hold *next;
};

static void (*tap)(const struct tool_call *call, const json_t *result);

void tool_calls_set_tap(void (*fn)(const struct tool_call *call, const json_t *result))
{
    tap = fn;
}

/* Answered calls whose record waits for a hold. */
static struct tool_call *held_calls;

static void free_call(struct tool_call *call)
{
    json_decref(call->args);
    json_decref(call->notes);
    json_decref(call->client);
    json_decref(call->result);
    json_decref(call->secrets);
    free(call->abort_reason);
    free(call);
}

/* An answered call whose holds are all released: record it and let it go. */
static void record_held(struct tool_call *call)
{
    if (call->held_prev)
        call->held_prev->held_next = call->held_next;
    else
        held_calls = call->held_next;
    if (call->held_next)
        call->held_next->held_prev = call->held_prev;
    if (call->app->call_observer)
        call->app->call_observer->finished(call->app->call_observer->ud, call, call->result);
    free_call(call);
}

struct tool_call_hold *tool_call_hold(struct tool_call *call, json_t *fallback)
{
    if (!call->app->call_observer || call->answered) {
        json_decref(fallback);
        return NULL;
    }
    struct tool_call_hold *h = xcalloc(1, sizeof *h);
    h->call = call;
    h->fallback = fallback;
    h->next = call->holds;
    call->holds = h;
    return h;
}

void tool_call_release(struct tool_call_hold *h, json_t *notes)
{
    if (!h) {
        json_decref(notes);
        return;
    }
    struct tool_call *call = h->call;
    if (call) {
        if (json_is_object(notes))
            json_object_update(call->notes, notes);
        struct tool_call_hold **pp = &call->holds;
        while (*pp != h)
            pp = &(*pp)->next;
        *pp = h->next;
    }
    json_decref(notes);
    json_decref(h->fallback);
    free(h);
    if (call && call->answered && !call->holds)
        record_held(call);
}

void tool_calls_release_held(void)
{
    while (held_calls) {
        struct tool_call *call = held_calls;
        for (struct tool_call_hold *h = call->holds; h; h = h->next) {
            json_object_update(call->notes, h->fallback);
            h->call = NULL;
        }
        call->holds = NULL;
        record_held(call);
    }
}

static void finish(struct tool_call *call, json_t *result)
{
    if (call->abort_reason && json_is_true(json_object_get(result, "isError"))) {
        /* Stopped by mcp_abort_calls: say why first, then what the tool
         * says it got done ("stopped after typing 4096 of 9000 bytes"). */
        const json_t *first = json_array_get(json_object_get(result, "content"), 0);
        const char *said = json_string_value(json_object_get(first, "text"));
        char *text = xasprintf("%s This call was stopped: %s", call->abort_reason,
                               said ? said : "(no details)");
        json_decref(result);
        /* A person's pause said no to the rest of it. */
        result = error_result(call, ERROR_DENIED, utf8_json_string(text, strlen(text)));
        free(text);
        tool_call_note(call, "interrupted", json_string(call->abort_reason));
    } else if (call->abort_reason) {
        /* It could not be stopped in time and did its work: say so. */
        json_t *content = json_object_get(result, "content");
        char *text = xasprintf("%s This call had already finished.", call->abort_reason);
        if (json_is_array(content)) {
            /* A copy: the blocks may be a backend's kept answer
             * (backend_call_done_content), which never changes. */
            content = json_copy(content);
            json_array_append_new(content, json_pack("{s:s, s:o}", "type", "text", "text",
                                                     utf8_json_string(text, strlen(text))));
            json_object_set_new(result, "content", content);
        }
        free(text);
    }
    if (call->live_prev)
        call->live_prev->live_next = call->live_next;
    else
        live_calls = call->live_next;
    if (call->live_next)
        call->live_next->live_prev = call->live_prev;
    struct request_ctx rc = {
        .modern = call->p.modern, .version = call->p.version, .bare = call->p.bare};
    decorate_result(&rc, result);
    bool held = call->holds != NULL;
    if (held) {
        /* Answer now, record later: keep what the record needs that the
         * connection (which may close meanwhile) would have told. */
        call->answered = true;
        call->answered_ms = uv_now(call->app->loop);
        call->client = pending_client(&call->p);
        call->result = json_deep_copy(result);
    } else if (call->app->call_observer) {
        call->app->call_observer->finished(call->app->call_observer->ud, call, result);
    }
    if (tap)
        tap(call, result);
    /* The caller of a spawned call reads the answer after it is recorded. */
    json_t *spawned = call->spawn_done ? json_incref(result) : NULL;
    json_t *msg = jsonrpc_result(call->p.id, result);
    if (call->p.conn)
        ask_forget_for(call->p.conn, &call->p);
    pending_finish(&call->p, msg);
    if (spawned) {
        call->spawn_done(call->spawn_ud, spawned, call->notes);
        json_decref(spawned);
    }
    if (held) {
        call->p.conn = NULL;
        call->held_next = held_calls;
        if (held_calls)
            held_calls->held_prev = call;
        held_calls = call;
        return;
    }
    free_call(call);
}

void tool_call_finish_raw(struct tool_call *call, json_t *result)
{
    finish(call, result);
}

void tool_call_run(struct tool_call *call, const char *decision)
{
    tool_call_note(call, "decision", json_string(decision));
    call->entry->tool->handler(call);
}

/* Before 2025-06-18 there was no resource_link content: say the URI in text. */
static void downgrade_links(json_t *content)
{
    size_t i;
    json_t *item;
    json_array_foreach(content, i, item)
    {
        const char *type = json_string_value(json_object_get(item, "type"));
        if (!type || strcmp(type, "resource_link") != 0)
            continue;
        const char *uri = json_string_value(json_object_get(item, "uri"));
        char *text = xasprintf("resource: %s", uri ? uri : "?");
        json_array_set_new(content, i, json_pack("{s:s, s:s}", "type", "text", "text", text));
        free(text);
    }
}

void tool_call_done_content(struct tool_call *call, json_t *content, json_t *structured)
{
    if (!knows_structured_content(call->p.version))
        downgrade_links(content);
    json_t *result = json_object();
    json_object_set_new_nocheck(result, "content", content);
    if (structured && knows_structured_content(call->p.version))
        json_object_set_new_nocheck(result, "structuredContent", structured);
    else
        json_decref(structured);
    finish(call, result);
}

void tool_call_done(struct tool_call *call, json_t *structured, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *text = vformat_json(fmt, ap);
    va_end(ap);
    json_t *block = json_object();
    json_object_set_new_nocheck(block, "type", json_string_nocheck("text"));
    json_object_set_new_nocheck(block, "text", text);
    json_t *content = json_array();
    json_array_append_new(content, block);
    tool_call_done_content(call, content, structured);
}

static void fail_with(struct tool_call *call, enum error_code code, json_t *text)
{
    finish(call, error_result(call, code, text));
}

void tool_call_fail(struct tool_call *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *text = vformat_json(fmt, ap);
    va_end(ap);
    fail_with(call, ERROR_TOOL_FAILED, text);
}

void tool_call_fail_code(struct tool_call *call, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *text = vformat_json(fmt, ap);
    va_end(ap);
    fail_with(call, code, text);
}

struct tool_call *tool_call_create(struct mcp_conn *c, const struct tool_entry *entry, json_t *args,
                                   json_t *id, void *stream, const struct request_ctx *rc)
{
    struct tool_call *call = xcalloc(1, sizeof *call);
    pending_start(&call->p, c, id, stream, rc);
    call->p.on_cancel = run_cancel_hook;
    call->app = c->app;
    call->entry = entry;
    call->args = json_incref(args);
    call->notes = json_object();
    call->started_ms = uv_now(c->app->loop);
    call->live_next = live_calls;
    if (live_calls)
        live_calls->live_prev = call;
    live_calls = call;
    return call;
}
