/* subscriptions/listen (2026-07-28): a request that stays open and carries
 * the notifications the client opted in to, each tagged with the request's
 * id as io.modelcontextprotocol/subscriptionId. It replaces the legacy
 * resources/subscribe. It ends when the client cancels it (stdio:
 * notifications/cancelled; HTTP: closing the response stream) or its
 * connection goes; it is then never answered. */
#define LOG_MODULE "mcp"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/resources.h"

#include <stdlib.h>
#include <string.h>

#define META_SUBSCRIPTION_ID "io.modelcontextprotocol/subscriptionId"

struct listen {
    struct pending p;
    json_t *uris; /* {uri: true}: the resources whose updates it carries */
    bool tools;   /* carries notifications/tools/list_changed */
    struct listen *next;
};

static struct listen *listens;

static void listen_cancel(struct pending *p)
{
    struct listen *l = (struct listen *)p;
    for (struct listen **pp = &listens; *pp; pp = &(*pp)->next) {
        if (*pp == l) {
            *pp = l->next;
            break;
        }
    }
    pending_finish(&l->p, NULL);
    json_decref(l->uris);
    free(l);
}

/* What is wrong with the client's filter, or NULL (the message is static). */
static const char *filter_error(const json_t *filter)
{
    static const char *const flags[][2] = {
        {"toolsListChanged", "\"notifications.toolsListChanged\" must be a boolean"},
        {"promptsListChanged", "\"notifications.promptsListChanged\" must be a boolean"},
        {"resourcesListChanged", "\"notifications.resourcesListChanged\" must be a boolean"},
    };
    if (!json_is_object(filter))
        return "\"notifications\" must be an object (the subscription filter)";
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        const json_t *v = json_object_get(filter, flags[i][0]);
        if (v && !json_is_boolean(v))
            return flags[i][1];
    }
    const json_t *uris = json_object_get(filter, "resourceSubscriptions");
    size_t i;
    const json_t *u;
    if (uris && !json_is_array(uris))
        return "\"notifications.resourceSubscriptions\" must be an array of URIs (strings)";
    json_array_foreach(uris, i, u)
    {
        if (!json_is_string(u))
            return "\"notifications.resourceSubscriptions\" must be an array of URIs (strings)";
    }
    return NULL;
}

/* The filter as the server will honour it: the tool list (it changes when
 * the policy does) and only the resource URIs a subscribable provider
 * serves and the policy lets this client read (as resources/subscribe
 * refuses the others: who may not read a resource is not told when it
 * changes). The prompt and resource lists do not change while glovebox
 * runs, so those list_changed types are left out. */
static json_t *honoured_filter(struct app *app, const char *owner, const json_t *filter)
{
    json_t *out = json_object();
    if (json_is_true(json_object_get(filter, "toolsListChanged")))
        json_object_set_new(out, "toolsListChanged", json_true());
    const json_t *uris = json_object_get(filter, "resourceSubscriptions");
    if (!uris)
        return out;
    json_t *honoured = json_array();
    size_t i;
    const json_t *u;
    json_array_foreach(uris, i, u)
    {
        const struct resource_provider *p = resources_find(json_string_value(u));
        if (p && p->subscribable && resources_may_watch(app, owner, json_string_value(u)))
            json_array_append(honoured, (json_t *)u);
    }
    json_object_set_new(out, "resourceSubscriptions", honoured);
    return out;
}

void method_subscriptions_listen(struct mcp_conn *c, json_t *id, json_t *params,
                                 const struct request_ctx *rc, void *stream)
{
    if (!rc->modern) {
        reply_error(c, stream, id, JSONRPC_METHOD_NOT_FOUND,
                    "Method not found: subscriptions/listen belongs to protocol 2026-07-28; "
                    "initialize-era clients use resources/subscribe",
                    NULL);
        return;
    }
    const json_t *asked = json_object_get(params, "notifications");
    const char *bad = filter_error(asked);
    if (bad) {
        char *msg = xasprintf("Invalid params: %s", bad);
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, msg, NULL);
        free(msg);
        return;
    }
    if (!pending_admit(c, stream, id))
        return;
    json_t *filter = honoured_filter(c->app, mcp_conn_owner(c), asked);
    struct listen *l = xcalloc(1, sizeof *l);
    l->uris = json_object();
    l->tools = json_is_true(json_object_get(filter, "toolsListChanged"));
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(filter, "resourceSubscriptions"), i, u)
    {
        json_object_set_new(l->uris, json_string_value(u), json_true());
    }
    pending_start(&l->p, c, id, stream, rc);
    l->p.on_cancel = listen_cancel;
    l->next = listens;
    listens = l;
    /* The acknowledgement comes first; nothing is sent on the stream before. */
    conn_send(c, stream,
              jsonrpc_notification("notifications/subscriptions/acknowledged",
                                   json_pack("{s:{s:O}, s:o}", "_meta", META_SUBSCRIPTION_ID, id,
                                             "notifications", filter)),
              false);
}

void listen_resource_updated(const char *uri)
{
    for (struct listen *l = listens; l; l = l->next) {
        if (!l->p.conn || l->p.cancelled || !json_object_get(l->uris, uri))
            continue;
        /* The policy may have narrowed since the listen began. */
        if (!resources_may_watch(l->p.conn->app, mcp_conn_owner(l->p.conn), uri))
            continue;
        conn_send(l->p.conn, l->p.stream,
                  jsonrpc_notification("notifications/resources/updated",
                                       json_pack("{s:{s:O}, s:s}", "_meta", META_SUBSCRIPTION_ID,
                                                 l->p.id, "uri", uri)),
                  false);
    }
}

void listen_tools_list_changed(void)
{
    for (struct listen *l = listens; l; l = l->next) {
        if (!l->p.conn || l->p.cancelled || !l->tools)
            continue;
        conn_send(
            l->p.conn, l->p.stream,
            jsonrpc_notification("notifications/tools/list_changed",
                                 json_pack("{s:{s:O}}", "_meta", META_SUBSCRIPTION_ID, l->p.id)),
            false);
    }
}

bool listen_watched(const char *uri)
{
    for (struct listen *l = listens; l; l = l->next)
        if (l->p.conn && !l->p.cancelled && json_object_get(l->uris, uri))
            return true;
    return false;
}
