/* completion/complete: suggestions for a prompt argument or a resource
 * template variable, from the prompt's or provider's completer. */
#include "core/xmalloc.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/prompt.h"
#include "mcp/resources.h"

#include <stdlib.h>
#include <string.h>

/* The spec caps one answer at 100 values; hasMore says there were more. */
#define MAX_VALUES 100

static const struct resource_provider *provider_for_template(const char *uri)
{
    for (int i = 0; i < resources_count(); i++)
        if (strcmp(resources_at(i)->uri_template, uri) == 0)
            return resources_at(i);
    return resources_find(uri);
}

/* Fills values from the ref's completer. NULL, or an error message. */
static char *complete_ref(const json_t *ref, const char *arg, const char *value,
                          const json_t *context, json_t *values)
{
    const char *type = json_string_value(json_object_get(ref, "type"));
    if (type && strcmp(type, "ref/prompt") == 0) {
        const char *name = json_string_value(json_object_get(ref, "name"));
        if (!name)
            return xstrdup("Invalid params: \"ref.name\" must be the name of a prompt (a "
                           "string)");
        const struct prompt *p = prompts_find(name);
        if (!p)
            return xasprintf("Invalid params: unknown prompt %.200s in \"ref.name\" "
                             "(prompts/list shows the prompts)",
                             name);
        const struct prompt_argument *a = prompt_argument_find(p, arg);
        if (!a)
            return xasprintf("Invalid params: prompt %s has no argument \"%.100s\" in "
                             "\"argument.name\"",
                             p->name, arg);
        if (a->complete)
            a->complete(value, context, values);
        return NULL;
    }
    if (type && strcmp(type, "ref/resource") == 0) {
        const char *uri = json_string_value(json_object_get(ref, "uri"));
        if (!uri)
            return xstrdup("Invalid params: \"ref.uri\" must be a URI or URI template (a "
                           "string)");
        const struct resource_provider *p = provider_for_template(uri);
        if (!p)
            return xasprintf("Invalid params: no resource template matches \"%.200s\" "
                             "(resources/templates/list shows them)",
                             uri);
        if (p->complete)
            p->complete(arg, value, values);
        return NULL;
    }
    return xstrdup("Invalid params: \"ref.type\" must be \"ref/prompt\" or \"ref/resource\"");
}

/* context.arguments is optional; when present, an object of strings. */
static bool context_ok(const json_t *context)
{
    if (!context)
        return true;
    if (!json_is_object(context))
        return false;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)context, key, v)
    {
        if (!json_is_string(v))
            return false;
    }
    return true;
}

void method_completion_complete(struct mcp_conn *c, json_t *id, json_t *params,
                                const struct request_ctx *rc, void *stream)
{
    const json_t *ref = json_object_get(params, "ref");
    const json_t *argument = json_object_get(params, "argument");
    const json_t *name = json_object_get(argument, "name");
    const json_t *value = json_object_get(argument, "value");
    const json_t *context = json_object_get(json_object_get(params, "context"), "arguments");
    const char *bad = !json_is_object(ref) ? "\"ref\" must be an object {type, name | uri}"
                      : !json_is_string(name)
                          ? "\"argument.name\" must be the name of the argument (a string)"
                      : !json_is_string(value)
                          ? "\"argument.value\" must be what the user typed so far (a string)"
                      : !context_ok(context) ? "\"context.arguments\" must be an object of strings"
                                             : NULL;
    if (bad) {
        char *msg = xasprintf("Invalid params: %s", bad);
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, msg, NULL);
        free(msg);
        return;
    }
    json_t *values = json_array();
    json_t *ctx = context ? json_incref((json_t *)context) : json_object();
    char *err = complete_ref(ref, json_string_value(name), json_string_value(value), ctx, values);
    json_decref(ctx);
    if (err) {
        json_decref(values);
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err, NULL);
        free(err);
        return;
    }
    size_t total = json_array_size(values);
    while (json_array_size(values) > MAX_VALUES)
        json_array_remove(values, json_array_size(values) - 1);
    json_t *result = json_pack("{s:{s:o, s:I, s:b}}", "completion", "values", values, "total",
                               (json_int_t)total, "hasMore", total > MAX_VALUES);
    reply_result(c, stream, id, rc, result);
}
