/* Recipes as MCP prompts: recipe/NAME, its params as arguments. The prompt
 * tells the model to run the recipe with recipe_run and the values given;
 * secret params are not arguments (a prompt's text goes into the
 * conversation): the model is told to ask the user for them. */
#include "mcp/prompt.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "recipe/recipe.h"
#include "recipe/tools.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX "recipe/"

static json_t *arguments_of(const json_t *params)
{
    json_t *args = json_array();
    const char *name;
    json_t *p;
    json_object_foreach((json_t *)params, name, p)
    {
        if (json_is_true(json_object_get(p, "secret")))
            continue;
        const char *d = json_string_value(json_object_get(p, "description"));
        json_array_append_new(args,
                              json_pack("{s:s, s:s, s:b}", "name", name, "description",
                                        d ? d : name, "required", !json_object_get(p, "default")));
    }
    return args;
}

static json_t *list(void)
{
    json_t *all = recipe_list_all(), *out = json_array();
    size_t i;
    const json_t *r;
    json_array_foreach(all, i, r)
    {
        if (json_object_get(r, "error"))
            continue;
        const char *desc = json_string_value(json_object_get(r, "description"));
        char *name = xasprintf(PREFIX "%s", json_string_value(json_object_get(r, "name")));
        json_array_append_new(out,
                              json_pack("{s:s, s:s, s:o}", "name", name, "description",
                                        desc && *desc ? desc : "A saved glovebox recipe",
                                        "arguments", arguments_of(json_object_get(r, "params"))));
        free(name);
    }
    json_decref(all);
    return out;
}

static json_t *get(const char *name, const json_t *args, bool *known, char **err)
{
    *known = strncmp(name, PREFIX, strlen(PREFIX)) == 0;
    if (!*known)
        return NULL;
    char *path = NULL;
    enum error_code code;
    json_t *doc = recipe_load(name + strlen(PREFIX), &path, &code, err);
    free(path);
    if (!doc) {
        *known = code != ERROR_NOT_FOUND;
        if (!*known) {
            free(*err);
            *err = NULL;
        }
        return NULL;
    }
    const json_t *params = json_object_get(doc, "params");
    json_t *values = json_object(), *asks = json_array();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)args, key, v)
    {
        const json_t *p = json_object_get(params, key);
        if (!p || json_is_true(json_object_get(p, "secret")) || !json_is_string(v)) {
            *err =
                xasprintf("Invalid params: argument \"%.80s\" is not a param of recipe %s%s", key,
                          name + strlen(PREFIX),
                          p ? " that a prompt takes (secret params are given to recipe_run)" : "");
            json_decref(values);
            json_decref(asks);
            json_decref(doc);
            return NULL;
        }
        json_object_set(values, key, v);
    }
    json_t *p;
    json_object_foreach((json_t *)params, key, p)
    {
        bool secret = json_is_true(json_object_get(p, "secret"));
        if (!secret && !json_object_get(values, key) && !json_object_get(p, "default")) {
            *err = xasprintf("Invalid params: prompt %s needs argument \"%s\"", name, key);
            json_decref(values);
            json_decref(asks);
            json_decref(doc);
            return NULL;
        }
        if (secret)
            json_array_append_new(asks, json_string(key));
    }
    json_t *call = json_pack("{s:s, s:O}", "name", name + strlen(PREFIX), "params", values);
    char *call_text = json_dumps(call, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(call);
    const char *desc = json_string_value(json_object_get(doc, "description"));
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb,
                  "Run the saved glovebox recipe \"%s\"%s%s%s with the tool recipe_run and "
                  "these arguments: %s",
                  name + strlen(PREFIX), desc ? " (" : "", desc ? desc : "", desc ? ")" : "",
                  call_text);
    if (json_array_size(asks)) {
        strbuf_puts(&sb, "\nFirst ask the user for the secret params");
        size_t i;
        const json_t *a;
        json_array_foreach(asks, i, a)
        {
            strbuf_printf(&sb, "%s %s", i ? "," : "", json_string_value(a));
        }
        strbuf_puts(&sb, " and add them to params; never repeat them in the conversation.");
    }
    strbuf_puts(&sb, "\nThen report each step's status from the result.");
    json_t *out = json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description",
                            desc ? desc : "A saved glovebox recipe", "messages", "role", "user",
                            "content", "type", "text", "text", sb.data);
    strbuf_finish(&sb);
    free(call_text);
    json_decref(values);
    json_decref(asks);
    json_decref(doc);
    return out;
}

const struct prompt_source recipe_prompt_source = {.list = list, .get = get};
