/* notifications/prompts/list_changed: a source's prompts changed (a recipe
 * was saved or deleted), so clients that cached prompts/list hear it. */
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/prompt.h"

void prompts_list_changed(void)
{
    for (struct mcp_conn *c = conns_first(); c; c = c->next_conn) {
        /* Initialize-era sessions only (as tools/list_changed); over HTTP a
         * message tied to no request waits on the session's GET stream. */
        if (!c->legacy_version || !c->initialized_notified)
            continue;
        conn_send(c, NULL, jsonrpc_notification("notifications/prompts/list_changed", NULL), false);
    }
}
