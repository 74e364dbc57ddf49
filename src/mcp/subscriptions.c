/* resources/subscribe and resources/unsubscribe, and the provider-facing
 * resources_updated that tells subscribers a resource changed.
 *
 * These subscriptions belong to a legacy-era connection (one initialize, one
 * MCP session): the notification needs somewhere to go that outlives the
 * request. 2026-07-28 clients subscribe with subscriptions/listen instead
 * (listen.c), so their resources/subscribe is refused with a pointer to it. */
#define LOG_MODULE "mcp"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/resources.h"

#include <stdlib.h>
#include <string.h>

/* Connections with at least one subscription; few, so a plain array. */
static struct mcp_conn **subscribers;
static size_t n_subscribers, cap_subscribers;

static void subscriber_add(struct mcp_conn *c)
{
    for (size_t i = 0; i < n_subscribers; i++)
        if (subscribers[i] == c)
            return;
    if (n_subscribers == cap_subscribers) {
        cap_subscribers = cap_subscribers ? cap_subscribers * 2 : 8;
        subscribers = xrealloc(subscribers, cap_subscribers * sizeof *subscribers);
    }
    subscribers[n_subscribers++] = c;
}

static void subscriber_remove(struct mcp_conn *c)
{
    for (size_t i = 0; i < n_subscribers; i++) {
        if (subscribers[i] == c) {
            subscribers[i] = subscribers[--n_subscribers];
            break;
        }
    }
    if (n_subscribers == 0) {
        free(subscribers);
        subscribers = NULL;
        cap_subscribers = 0;
    }
}

void subscriptions_drop(struct mcp_conn *c)
{
    if (!c->subscriptions)
        return;
    subscriber_remove(c);
    json_decref(c->subscriptions);
    c->subscriptions = NULL;
}

/* The uri param, checked: a string one of the subscribable providers
 * answers. NULL after replying with an error. */
static const char *subscription_uri(struct mcp_conn *c, json_t *id, json_t *params,
                                    const struct request_ctx *rc, void *stream)
{
    if (rc->modern) {
        reply_error(c, stream, id, JSONRPC_METHOD_NOT_FOUND,
                    "Method not found: resources/subscribe is not part of protocol "
                    "2026-07-28; send subscriptions/listen with "
                    "notifications.resourceSubscriptions",
                    NULL);
        return NULL;
    }
    const json_t *uri = json_object_get(params, "uri");
    if (!json_is_string(uri) || strlen(json_string_value(uri)) != json_string_length(uri)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"uri\" must be the URI of a resource (a string)", NULL);
        return NULL;
    }
    const struct resource_provider *p = resources_find(json_string_value(uri));
    if (!p || !p->subscribable) {
        char *msg = xasprintf("Invalid params: \"uri\" %.200s is not a resource this server "
                              "can report changes of",
                              json_string_value(uri));
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, msg,
                    json_pack("{s:O}", "uri", (json_t *)uri));
        free(msg);
        return NULL;
    }
    return json_string_value(uri);
}

void method_resources_subscribe(struct mcp_conn *c, json_t *id, json_t *params,
                                const struct request_ctx *rc, void *stream)
{
    const char *uri = subscription_uri(c, id, params, rc, stream);
    if (!uri)
        return;
    const struct resource_provider *p = resources_find(uri);
    if (p->reachable && !p->reachable(c->app, mcp_conn_owner(c), uri)) {
        char *msg = xasprintf("Invalid params: \"uri\" %.200s names nothing this client can "
                              "reach (no such session, or another client's)",
                              uri);
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, msg, json_pack("{s:s}", "uri", uri));
        free(msg);
        return;
    }
    if (!resources_may_watch(c->app, mcp_conn_owner(c), uri)) {
        char *msg = xasprintf("Denied by policy: reading %.200s is not allowed, so neither is "
                              "hearing about its changes",
                              uri);
        reply_error(c, stream, id, MCP_DENIED, msg,
                    json_pack("{s:s, s:s}", "uri", uri, "code", "denied"));
        free(msg);
        return;
    }
    if (!c->subscriptions)
        c->subscriptions = json_object();
    json_object_set_new(c->subscriptions, uri, json_true());
    subscriber_add(c);
    log_debug("subscribed to %s", uri);
    reply_result(c, stream, id, rc, json_object());
}

void method_resources_unsubscribe(struct mcp_conn *c, json_t *id, json_t *params,
                                  const struct request_ctx *rc, void *stream)
{
    const char *uri = subscription_uri(c, id, params, rc, stream);
    if (!uri)
        return;
    /* Unsubscribing from something not subscribed to is harmless. */
    if (c->subscriptions) {
        json_object_del(c->subscriptions, uri);
        if (json_object_size(c->subscriptions) == 0)
            subscriptions_drop(c);
    }
    reply_result(c, stream, id, rc, json_object());
}

void resources_updated(const char *uri)
{
    for (size_t i = 0; i < n_subscribers; i++) {
        struct mcp_conn *c = subscribers[i];
        /* The policy may have narrowed since the subscription. */
        if (!json_object_get(c->subscriptions, uri) ||
            !resources_may_watch(c->app, mcp_conn_owner(c), uri))
            continue;
        /* Tied to no request: over HTTP it goes to the session's GET stream. */
        conn_send(
            c, NULL,
            jsonrpc_notification("notifications/resources/updated", json_pack("{s:s}", "uri", uri)),
            false);
    }
    listen_resource_updated(uri);
}

bool resources_watched(const char *uri)
{
    for (size_t i = 0; i < n_subscribers; i++)
        if (json_object_get(subscribers[i]->subscriptions, uri))
            return true;
    return listen_watched(uri);
}
