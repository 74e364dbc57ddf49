/* tools/list, tools/call and the resources methods. */
#define LOG_MODULE "mcp"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/call.h"
#include "mcp/gate.h"
#include "mcp/jsonrpc.h"
#include "mcp/resources.h"
#include "mcp/schema.h"
#include "mcp/tool.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

json_t *cursor_make(char prefix, size_t offset)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%c%zu", prefix, offset);
    return json_string(buf);
}

bool cursor_parse(const json_t *params, char prefix, size_t total, size_t *offset, char **err)
{
    *offset = 0;
    const json_t *cursor = json_object_get(params, "cursor");
    if (!cursor || json_is_null(cursor))
        return true;
    const char *s = json_string_value(cursor);
    if (s && s[0] == prefix && s[1] >= '0' && s[1] <= '9') {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s + 1, &end, 10);
        if (!errno && *end == '\0' && v > 0 && v < total) {
            *offset = (size_t)v;
            return true;
        }
    }
    *err = xstrdup("Invalid params: \"cursor\" is not a cursor this server issued; start again "
                   "without one");
    return false;
}

void cacheable(const struct request_ctx *rc, json_t *result, int ttl_ms)
{
    /* 2026-07-28 list and read results carry caching hints. Tool lists are
     * per-policy, so never shared between users. */
    if (!rc->modern)
        return;
    json_object_set_new(result, "ttlMs", json_integer(ttl_ms));
    json_object_set_new(result, "cacheScope", json_string("private"));
}

void method_tools_list(struct mcp_conn *c, json_t *id, json_t *params, const struct request_ctx *rc,
                       void *stream)
{
    size_t total = registry_count(), offset;
    char *err = NULL;
    if (!cursor_parse(params, 't', total, &offset, &err)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err, NULL);
        free(err);
        return;
    }
    bool modern_fields = rc->modern || strcmp(rc->version, "2025-06-18") >= 0;
    bool annotations = rc->modern || strcmp(rc->version, "2025-03-26") >= 0;
    size_t page = (size_t)c->app->page_size;
    json_t *tools = json_array();
    const struct mcp_gate *gate = c->app->gate;
    size_t i, shown = 0;
    for (i = offset; i < total && shown < page; i++) {
        const struct tool_entry *e = registry_at(i);
        /* Tools the policy denies are left out: the model never sees them. */
        if (gate && !gate->visible(gate->ud, e->tool))
            continue;
        /* Outside the default set (no --tools given): callable, not listed. */
        if (!registry_listed(e))
            continue;
        json_array_append_new(tools, registry_tool_json(e, modern_fields, annotations));
        shown++;
    }
    json_t *result = json_pack("{s:o}", "tools", tools);
    if (i < total)
        json_object_set_new(result, "nextCursor", cursor_make('t', i));
    cacheable(rc, result, 60000);
    reply_result(c, stream, id, rc, result);
}

void method_tools_call(struct mcp_conn *c, json_t *id, json_t *params, const struct request_ctx *rc,
                       void *stream)
{
    const json_t *name = json_object_get(params, "name");
    if (!json_is_string(name)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"name\" must be the name of a tool (a string)", NULL);
        return;
    }
    /* A NUL inside the name must not select the tool named by its prefix. */
    bool clean = strlen(json_string_value(name)) == json_string_length(name);
    const struct tool_entry *entry = clean ? registry_find(json_string_value(name)) : NULL;
    if (!entry) {
        const char *absent = clean ? registry_absent_why(json_string_value(name)) : NULL;
        char *msg = absent ? xasprintf("Unknown tool: %s is %s", json_string_value(name), absent)
                           : xasprintf("Unknown tool: %.200s (tools/list shows the tools)",
                                       json_string_value(name));
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, msg, NULL);
        free(msg);
        return;
    }
    json_t *args = json_object_get(params, "arguments");
    if (args && !json_is_object(args) && !json_is_null(args)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"arguments\" must be an object", NULL);
        return;
    }
    if (!pending_admit(c, stream, id))
        return;
    json_t *owned = args && json_is_object(args) ? json_incref(args) : json_object();
    struct tool_call *call = tool_call_create(c, entry, owned, id, stream, rc);
    json_decref(owned);
    json_t *cid = json_object_get(json_object_get(params, "_meta"), MCP_META_CORRELATION_ID);
    if (json_is_string(cid))
        tool_call_note(call, "correlation_id", json_incref(cid));
    tool_call_admit(call, params);
}

void mcp_conn_call_tool(struct mcp_conn *c, const struct mcp_direct_call *d, void *stream)
{
    /* The values every such request shares, made once: the request id (a
     * connection carries one call), the progress token, no capabilities. */
    static json_t *one;
    if (!one)
        one = json_integer(1);
    struct request_ctx rc = {
        .modern = true,
        .bare = true,
        .version = mcp_modern_versions[0],
        .progress_token = d->progress ? one : NULL,
        .log_level = LEVEL_NONE,
        .client_info = (json_t *)d->client_info,
    };
    c->last_version = rc.version;
    const struct tool_entry *entry = registry_find(d->tool);
    if (!entry) {
        const char *absent = registry_absent_why(d->tool);
        char *msg = absent
                        ? xasprintf("Unknown tool: %s is %s", d->tool, absent)
                        : xasprintf("Unknown tool: %.200s (tools/list shows the tools)", d->tool);
        reply_error(c, stream, one, JSONRPC_INVALID_PARAMS, msg, NULL);
        free(msg);
        json_decref(d->args);
        return;
    }
    if (!pending_admit(c, stream, one)) {
        json_decref(d->args);
        return;
    }
    struct tool_call *call = tool_call_create(c, entry, d->args, one, stream, &rc);
    json_decref(d->args);
    if (d->correlation_id)
        tool_call_note(call, "correlation_id", json_string(d->correlation_id));
    tool_call_admit(call, NULL);
}

void tool_call_admit(struct tool_call *call, const json_t *params)
{
    const struct tool_entry *entry = call->entry;
    const json_t *owned = call->args;
    if (entry->tool->secrets) {
        if (!call->secrets)
            call->secrets = json_array();
        entry->tool->secrets(owned, call->secrets);
    }
    char *err = NULL;
    if (!schema_validate(entry->input_schema, owned, &err)) {
        tool_call_note(call, "decision", json_string("invalid"));
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT, "Invalid arguments for %s: %s",
                            entry->tool->name, err);
        free(err);
        return;
    }
    const struct mcp_gate *gate = call->app->gate;
    struct mcp_verdict v = gate ? gate->admit(gate->ud, entry->tool, owned)
                                : (struct mcp_verdict){.admission = MCP_ADMIT};
    switch (v.admission) {
    case MCP_REFUSE:
        log_info("tools/call %s refused by policy", entry->tool->name);
        tool_call_note(call, "decision", json_string(v.decision ? v.decision : "denied"));
        tool_call_fail_code(call, ERROR_DENIED, "%s", v.message ? v.message : "Denied by policy");
        free(v.message);
        return;
    case MCP_CONFIRM:
        if (call->spawn_done && call->p.modern) {
            /* A 2026-07-28 request is asked by answering it; a step
             * inside it has no answer of its own to ask with. */
            tool_call_note(call, "decision", json_string("denied"));
            tool_call_fail_code(call, ERROR_DENIED,
                                "%s needs a person's confirmation (%s), which a step of a "
                                "2026-07-28 request cannot ask for; use a session "
                                "(2025-11-25) to be asked, or allow the tool in the policy",
                                entry->tool->name, v.message ? v.message : "policy");
            free(v.message);
            return;
        }
        log_debug("tools/call %s needs confirmation", entry->tool->name);
        confirm_start(call, params, v.message, v.confirm_timeout_ms);
        return;
    case MCP_ADMIT:
        break;
    }
    free(v.message);
    log_debug("tools/call %s", entry->tool->name);
    tool_call_run(call, "allowed");
}

/* Resources. */

struct resource_read {
    struct pending p;
    struct app *app;
    char *uri;
    json_t *args;        /* the permission arguments; owned, never NULL */
    json_t *notes;       /* owned; NULL: no provider, so nothing to audit */
    uint64_t started_ms; /* uv_now at arrival */
};

struct app *resource_read_app(const struct resource_read *r)
{
    return r->app;
}

const char *resource_read_owner(const struct resource_read *r)
{
    return mcp_conn_owner(r->p.conn);
}

const char *resource_read_uri(const struct resource_read *r)
{
    return r->uri;
}

json_t *resource_read_client(const struct resource_read *r)
{
    return pending_client(&r->p);
}

const json_t *resource_read_args(const struct resource_read *r)
{
    return r->args;
}

const json_t *resource_read_notes(const struct resource_read *r)
{
    return r->notes;
}

uint64_t resource_read_elapsed_ms(const struct resource_read *r)
{
    return uv_now(r->app->loop) - r->started_ms;
}

/* error: what the client is told, NULL when it gets the contents. */
static void read_finish(struct resource_read *r, json_t *msg, const char *error)
{
    const struct call_observer *o = r->app->call_observer;
    if (r->notes && o && o->read)
        o->read(o->ud, r, error);
    pending_finish(&r->p, msg);
    json_decref(r->args);
    json_decref(r->notes);
    free(r->uri);
    free(r);
}

void resource_read_done(struct resource_read *r, json_t *contents)
{
    json_t *result = json_pack("{s:o}", "contents", contents);
    struct request_ctx rc = {.modern = r->p.modern, .version = r->p.version};
    cacheable(&rc, result, 0);
    decorate_result(&rc, result);
    read_finish(r, jsonrpc_result(r->p.id, result), NULL);
}

static void read_error(struct resource_read *r, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void read_error(struct resource_read *r, int code, const char *fmt, va_list ap)
{
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    json_t *data = json_pack("{s:s}", "uri", r->uri);
    if (code == MCP_DENIED)
        json_object_set_new(data, "code", json_string("denied"));
    const char *text = msg ? msg : "resource error";
    read_finish(r, jsonrpc_error(r->p.id, code, text, data), text);
    free(msg);
}

void resource_read_not_found(struct resource_read *r, const char *fmt, ...)
{
    /* 2026-07-28 moved "not found" to Invalid params. */
    int code = r->p.modern ? JSONRPC_INVALID_PARAMS : MCP_RESOURCE_NOT_FOUND_LEGACY;
    va_list ap;
    va_start(ap, fmt);
    read_error(r, code, fmt, ap);
    va_end(ap);
}

void resource_read_fail(struct resource_read *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    read_error(r, JSONRPC_INTERNAL_ERROR, fmt, ap);
    va_end(ap);
}

static void read_refuse(struct resource_read *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void read_refuse(struct resource_read *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    read_error(r, MCP_DENIED, fmt, ap);
    va_end(ap);
}

/* A read shows what its permission tool shows, so it passes the same gate
 * as that tool's call. false after refusing r. */
static bool read_admitted(struct resource_read *r, const struct resource_provider *p)
{
    const struct tool *tool = p->permission ? p->permission(r->uri, r->args) : NULL;
    const struct mcp_gate *gate = r->app->gate;
    if (!tool || !gate) {
        json_object_set_new(r->notes, "decision", json_string("allowed"));
        return true;
    }
    json_object_set_new(r->notes, "permission", json_string(tool->name));
    struct mcp_verdict v = gate->admit(gate->ud, tool, r->args);
    switch (v.admission) {
    case MCP_ADMIT:
        free(v.message);
        json_object_set_new(r->notes, "decision", json_string("allowed"));
        return true;
    case MCP_REFUSE:
        log_info("resources/read %s refused by policy (as %s)", r->uri, tool->name);
        json_object_set_new(r->notes, "decision", json_string(v.decision ? v.decision : "denied"));
        read_refuse(r, "Reading %s takes the permission of %s: %s", r->uri, tool->name,
                    v.message ? v.message : "Denied by policy");
        break;
    case MCP_CONFIRM:
        json_object_set_new(r->notes, "decision", json_string("needs_confirmation"));
        read_refuse(r,
                    "Reading %s takes the permission of %s, which needs a person's "
                    "confirmation (%s); a resource read cannot ask: call %s instead",
                    r->uri, tool->name, v.message ? v.message : "policy", tool->name);
        break;
    }
    free(v.message);
    return false;
}
void method_resources_list(struct mcp_conn *c, json_t *id, json_t *params,
                           const struct request_ctx *rc, void *stream)
{
    json_t *all = json_array();
    for (int i = 0; i < resources_count(); i++)
        if (resources_at(i)->list)
            resources_at(i)->list(c->app, mcp_conn_owner(c), all);
    size_t total = json_array_size(all), offset;
    char *err = NULL;
    if (!cursor_parse(params, 'r', total, &offset, &err)) {
        json_decref(all);
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err, NULL);
        free(err);
        return;
    }
    json_t *page = json_array();
    size_t i;
    for (i = offset; i < total && i < offset + (size_t)c->app->page_size; i++)
        json_array_append(page, json_array_get(all, i));
    json_decref(all);
    json_t *result = json_pack("{s:o}", "resources", page);
    if (i < total)
        json_object_set_new(result, "nextCursor", cursor_make('r', i));
    cacheable(rc, result, 0);
    reply_result(c, stream, id, rc, result);
}

void method_resources_templates(struct mcp_conn *c, json_t *id, json_t *params,
                                const struct request_ctx *rc, void *stream)
{
    size_t total = (size_t)resources_count(), offset;
    char *err = NULL;
    if (!cursor_parse(params, 'm', total, &offset, &err)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err, NULL);
        free(err);
        return;
    }
    json_t *list = json_array();
    size_t i;
    for (i = offset; i < total && i < offset + (size_t)c->app->page_size; i++) {
        const struct resource_provider *p = resources_at((int)i);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uriTemplate",
                                              p->uri_template, "name", p->name, "description",
                                              p->description, "mimeType", p->mime_type));
    }
    json_t *result = json_pack("{s:o}", "resourceTemplates", list);
    if (i < total)
        json_object_set_new(result, "nextCursor", cursor_make('m', i));
    cacheable(rc, result, 300000);
    reply_result(c, stream, id, rc, result);
}

void method_resources_read(struct mcp_conn *c, json_t *id, json_t *params,
                           const struct request_ctx *rc, void *stream)
{
    const json_t *uri = json_object_get(params, "uri");
    if (!json_is_string(uri)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"uri\" must be a string", NULL);
        return;
    }
    if (!pending_admit(c, stream, id))
        return;
    struct resource_read *r = xcalloc(1, sizeof *r);
    pending_start(&r->p, c, id, stream, rc);
    r->app = c->app;
    r->uri = xstrdup(json_string_value(uri));
    r->args = json_object();
    r->started_ms = uv_now(c->app->loop);
    const struct resource_provider *p = resources_find(r->uri);
    if (!p) {
        resource_read_not_found(r, "Resource not found: %.200s", r->uri);
        return;
    }
    r->notes = json_object();
    if (read_admitted(r, p))
        p->read(r, r->uri);
}
