/* initialize (legacy era), server/discover (2026-07-28) and what the server
 * says about itself in both. */
#include "core/version.h"
#include "core/xmalloc.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/prompt.h"
#include "mcp/resources.h"

#include <string.h>

json_t *server_info(void)
{
    /* Not json_pack: every answer to a stateless (2026-07-28) request, so
     * every REST call, carries it, and parsing the format and checking
     * the constants' UTF-8 each time was 5% of such a call. */
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "name", json_string_nocheck("glovebox"));
    json_object_set_new_nocheck(o, "title", json_string_nocheck("glovebox"));
    json_object_set_new_nocheck(o, "version", json_string_nocheck(GLOVEBOX_VERSION));
    return o;
}

json_t *server_capabilities(void)
{
    json_t *caps = json_pack("{s:{s:b}, s:{}}", "tools", "listChanged", 1, "logging");
    /* Advertise only what something registered actually provides. */
    if (resources_count() > 0)
        json_object_set_new(
            caps, "resources",
            json_pack("{s:b, s:b}", "subscribe", resources_subscribable(), "listChanged", 0));
    if (prompts_any())
        json_object_set_new(caps, "prompts",
                            json_pack("{s:b}", "listChanged", prompts_source() != NULL));
    if (completions_available())
        json_object_set_new(caps, "completions", json_object());
    return caps;
}

bool completions_available(void)
{
    return prompts_complete() || resources_complete();
}

const char *server_instructions(void)
{
    return "glovebox gives you eyes and hands on screens: terminal sessions, Linux desktops, "
           "remote desktops and phones. Start a session (terminal_start, desktop_start, …), "
           "look at it (snapshot for text and element refs, screenshot for pixels), act on it "
           "(click, type_text, press_key) and use wait_for instead of sleeping. Every screen "
           "tool takes an optional \"session\"; without it the most recently started live "
           "session is used. Call status to see what this machine can run.";
}

static const char *negotiate(const char *requested)
{
    for (const char *const *l = mcp_legacy_versions; *l; l++)
        if (strcmp(*l, requested) == 0)
            return *l;
    /* Unknown or newer: offer our latest handshake version; the client
     * decides whether it can speak it. */
    return mcp_legacy_versions[0];
}

void method_initialize(struct mcp_conn *c, json_t *id, json_t *params, void *stream)
{
    if (c->legacy_version) {
        reply_error(c, stream, id, JSONRPC_INVALID_REQUEST,
                    "Invalid Request: already initialized; initialize is sent once per "
                    "connection",
                    NULL);
        return;
    }
    const json_t *pv = json_object_get(params, "protocolVersion");
    if (!json_is_string(pv)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"protocolVersion\" must be a string such as \"2025-11-25\"",
                    NULL);
        return;
    }
    const json_t *caps = json_object_get(params, "capabilities");
    if (caps && !json_is_object(caps)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"capabilities\" must be an object", NULL);
        return;
    }
    const json_t *info = json_object_get(params, "clientInfo");
    if (info && !json_is_object(info)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"clientInfo\" must be an object with name and version", NULL);
        return;
    }
    c->legacy_version = negotiate(json_string_value(pv));
    c->last_version = c->legacy_version;
    c->client_info = info ? json_deep_copy(info) : json_object();
    c->client_capabilities = caps ? json_deep_copy(caps) : json_object();
    json_t *result = json_pack("{s:s, s:o, s:o, s:s}", "protocolVersion", c->legacy_version,
                               "capabilities", server_capabilities(), "serverInfo", server_info(),
                               "instructions", server_instructions());
    reply_result(c, stream, id, NULL, result);
}

void method_discover(struct mcp_conn *c, json_t *id, const struct request_ctx *rc, void *stream)
{
    json_t *versions = json_array();
    for (const char *const *l = mcp_modern_versions; *l; l++)
        json_array_append_new(versions, json_string(*l));
    json_t *result = json_pack("{s:o, s:o, s:s, s:i, s:s}", "supportedVersions", versions,
                               "capabilities", server_capabilities(), "instructions",
                               server_instructions(), "ttlMs", 60000, "cacheScope", "public");
    reply_result(c, stream, id, rc, result);
}
