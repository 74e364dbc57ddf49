/* notifications/tools/list_changed: the tools a client may see change while
 * glovebox runs (the policy file is reloaded, the agent lowers the mode), and
 * clients that cached tools/list must hear it — else the model keeps
 * offering tools that are now refused, or never learns of new ones. */
#define LOG_MODULE "mcp"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/gate.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/registry.h"
#include "mcp/server.h"

#include <stdlib.h>
#include <string.h>

char *mcp_visible_tools(const struct app *app)
{
    size_t n = registry_count();
    char *bits = xmalloc(n + 1);
    const struct mcp_gate *gate = app->gate;
    for (size_t i = 0; i < n; i++)
        bits[i] = !gate || gate->visible(gate->ud, registry_at(i)->tool) ? '1' : '0';
    bits[n] = '\0';
    return bits;
}

void mcp_tools_list_changed(void)
{
    int told = 0;
    for (struct mcp_conn *c = conns_first(); c; c = c->next_conn) {
        /* Initialize-era sessions only; 2026-07-28 clients hear it on a
         * subscriptions/listen stream that asked for it. Over HTTP a
         * message tied to no request waits on the session's GET stream. */
        if (!c->legacy_version || !c->initialized_notified)
            continue;
        conn_send(c, NULL, jsonrpc_notification("notifications/tools/list_changed", NULL), false);
        told++;
    }
    listen_tools_list_changed();
    log_info("the tool list changed; told %d connection(s) and any listening subscriptions", told);
}

bool mcp_tools_notify_if_changed(const struct app *app, char *before)
{
    char *after = mcp_visible_tools(app);
    bool changed = strcmp(before, after) != 0;
    if (changed)
        mcp_tools_list_changed();
    free(before);
    free(after);
    return changed;
}
