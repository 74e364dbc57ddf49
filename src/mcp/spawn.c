/* Calls a tool makes on behalf of its own call (a recipe's steps). Each is
 * an ordinary tool call in every way the policy, the audit log and a
 * person's pause can see — created, admitted and run by the same functions
 * as a client's tools/call — except that its answer goes back to the
 * calling tool instead of onto the wire. */
#include "core/xmalloc.h"
#include "mcp/call.h"
#include "mcp/registry.h"

#include <string.h>

void tool_call_add_secret(struct tool_call *call, const char *value)
{
    if (!value || !*value)
        return;
    if (!call->secrets)
        call->secrets = json_array();
    json_array_append_new(call->secrets, json_string(value));
}

const json_t *tool_call_secrets(const struct tool_call *call)
{
    return call->secrets;
}

bool tool_call_spawn(struct tool_call *parent, const char *tool, json_t *args, json_t *notes,
                     const json_t *secrets, tool_call_spawn_fn done, void *ud,
                     struct tool_call **child, char **err)
{
    struct mcp_conn *c = parent->p.conn;
    const struct tool_entry *entry = registry_find(tool);
    if (!entry || !c || c->in_flight >= MCP_MAX_IN_FLIGHT) {
        const char *absent = entry ? NULL : registry_absent_why(tool);
        *err =
            !entry ? (absent ? xasprintf("unknown tool %s: it is %s", tool, absent)
                             : xasprintf("unknown tool %s (tools/list shows the tools)", tool))
            : !c   ? xstrdup("the client is gone")
                 : xasprintf("too many calls in flight on this connection (%d)", MCP_MAX_IN_FLIGHT);
        json_decref(args);
        json_decref(notes);
        return false;
    }
    static json_int_t serial;
    char idbuf[48];
    snprintf(idbuf, sizeof idbuf, "glovebox-spawned-%lld", (long long)++serial);
    json_t *id = json_string(idbuf);
    /* No progress token: the child's own progress would confuse the client,
     * which asked about the parent. */
    struct request_ctx rc = {.modern = parent->p.modern,
                             .version = parent->p.version,
                             .log_level = parent->p.log_level,
                             .client_caps = parent->p.client_caps,
                             .client_info = parent->p.client_info};
    struct tool_call *call = tool_call_create(c, entry, args, id, parent->p.stream, &rc);
    call->p.internal = true;
    json_decref(id);
    call->spawn_done = done;
    call->spawn_ud = ud;
    if (json_is_object(notes))
        json_object_update(call->notes, notes);
    json_decref(notes);
    size_t i;
    const json_t *s;
    json_array_foreach(secrets, i, s)
    {
        tool_call_add_secret(call, json_string_value(s));
    }
    json_t *params = json_pack("{s:s, s:O}", "name", tool, "arguments", args);
    json_decref(args);
    *child = call;
    tool_call_admit(call, params);
    json_decref(params);
    return true;
}

void tool_call_cancel(struct tool_call *child)
{
    pending_cancel(&child->p);
}
