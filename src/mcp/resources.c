#include "mcp/resources.h"

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
