#include "mcp/resources.h"

#include "core/app.h"
#include "mcp/gate.h"
#include "mcp/tool.h"

#include <string.h>

#define MAX_PROVIDERS 32

static const struct resource_provider *providers[MAX_PROVIDERS];
static int count;

void resources_add(const struct resource_provider *p)
{
    if (count < MAX_PROVIDERS)
        providers[count++] = p;
}

void resources_clear(void)
{
    count = 0;
}

int resources_count(void)
{
    return count;
}

const struct resource_provider *resources_at(int i)
{
    return i >= 0 && i < count ? providers[i] : NULL;
}

const struct resource_provider *resources_find(const char *uri)
{
    for (int i = 0; i < count; i++)
        if (strncmp(uri, providers[i]->prefix, strlen(providers[i]->prefix)) == 0)
            return providers[i];
    return NULL;
}

bool resources_subscribable(void)
{
    for (int i = 0; i < count; i++)
        if (providers[i]->subscribable)
            return true;
    return false;
}

bool resources_complete(void)
{
    for (int i = 0; i < count; i++)
        if (providers[i]->complete)
            return true;
    return false;
}

bool resources_may_watch(struct app *app, const char *owner, const char *uri)
{
    const struct resource_provider *p = resources_find(uri);
    if (p && p->reachable && !p->reachable(app, owner, uri))
        return false;
    if (!p || !p->permission || !app->gate)
        return true;
    json_t *args = json_object();
    const struct tool *tool = p->permission(uri, args);
    json_decref(args);
    return !tool || app->gate->visible(app->gate->ud, tool);
}
