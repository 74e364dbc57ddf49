/* recipe_run: replays a saved recipe, each step a tool call of its own. */
#include "core/args.h"
#include "core/xmalloc.h"
#include "recipe/recipe.h"
#include "recipe/run.h"
#include "recipe/tools.h"
#include "recipe_run.schema.h"

#include <stdlib.h>

static void handle(struct tool_call *call)
{
    const json_t *args = tool_call_args(call);
    const char *name = args_string(args, "name", "");
    char *path = NULL, *err = NULL;
    enum error_code code;
    json_t *doc = recipe_load(name, &path, &code, &err);
    free(path);
    if (!doc) {
        tool_call_fail_code(call, code, "%s", err);
        free(err);
        return;
    }
    json_t *values = recipe_params_values(doc, json_object_get(args, "params"), &err);
    long long n = (long long)json_array_size(json_object_get(doc, "steps"));
    long long from = args_int(args, "from_step", 1), to = args_int(args, "to_step", n);
    if (!values || from > n || to > n || from > to) {
        if (!err)
            err = xasprintf("%s: expected 1 <= from_step <= to_step <= %lld (the recipe has %lld "
                            "steps)",
                            from > n || from > to ? "from_step" : "to_step", n, n);
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        json_decref(values);
        json_decref(doc);
        return;
    }
    struct recipe_run_options o = {
        .from_step = (size_t)from,
        .to_step = (size_t)to,
        .dry_run = args_bool(args, "dry_run", false),
        .strict = args_bool(args, "strict", false),
    };
    recipe_run_start(call, doc, values, &o);
}

/* The values given for the recipe's secret params: hidden from the audit
 * log even when the call is refused or declined before it runs. */
static void secrets(const json_t *args, json_t *out)
{
    const json_t *given = json_object_get(args, "params");
    const char *name = json_string_value(json_object_get(args, "name"));
    if (!json_is_object(given) || !name)
        return;
    char *path = NULL, *err = NULL;
    enum error_code code;
    json_t *doc = recipe_load(name, &path, &code, &err);
    free(path);
    free(err);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)given, key, v)
    {
        const json_t *p = json_object_get(json_object_get(doc, "params"), key);
        /* An unreadable recipe cannot say which are secret: hide them all. */
        if (json_is_string(v) && json_string_length(v) > 0 &&
            (!doc || json_is_true(json_object_get(p, "secret"))))
            json_array_append(out, v);
    }
    json_decref(doc);
}

const struct tool tool_recipe_run = {
    .name = "recipe_run",
    .title = "Run a recipe",
    .description = "Replays a saved recipe with params (values used literally, never run by a "
                   "shell). Each step is a tool call the policy judges as yours. Returns every "
                   "step's status; progress per step; cancellable.",
    .input_schema = tool_recipe_run_input_schema,
    .output_schema = tool_recipe_run_output_schema,
    .annotations = {.destructive = true, .open_world = true},
    .handler = handle,
    .secrets = secrets,
    .group = "recipes",
};
