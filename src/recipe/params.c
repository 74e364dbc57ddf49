#include "core/xmalloc.h"
#include "recipe/recipe.h"

json_t *recipe_params_values(const json_t *doc, const json_t *given, char **err)
{
    const json_t *params = json_object_get(doc, "params");
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)given, name, v)
    {
        if (!json_object_get(params, name)) {
            *err = xasprintf("params.%.80s: the recipe has no such param", name);
            return NULL;
        }
        if (!json_is_string(v)) {
            *err = xasprintf("params.%.80s: expected a string", name);
            return NULL;
        }
    }
    json_t *values = json_object();
    json_t *p;
    json_object_foreach((json_t *)params, name, p)
    {
        const json_t *val = json_object_get(given, name);
        if (!val)
            val = json_object_get(p, "default");
        if (!val) {
            const char *d = json_string_value(json_object_get(p, "description"));
            *err =
                xasprintf("params.%s: required (no default)%s%s", name, d ? ": " : "", d ? d : "");
            json_decref(values);
            return NULL;
        }
        json_object_set(values, name, (json_t *)val);
    }
    return values;
}

json_t *recipe_params_secrets(const json_t *doc, const json_t *values)
{
    json_t *out = json_array();
    const char *name;
    json_t *p;
    json_object_foreach(json_object_get(doc, "params"), name, p)
    {
        const json_t *v = json_object_get(values, name);
        if (json_is_true(json_object_get(p, "secret")) && json_string_length(v) > 0)
            json_array_append(out, (json_t *)v);
    }
    return out;
}
