/* recipe_save: saves steps given by the caller, or built from this
 * server's audit log (from_audit.c), as NAME.recipe.json. */
#include "core/args.h"
#include "core/xmalloc.h"
#include "mcp/prompt.h"
#include "recipe/from_audit.h"
#include "recipe/recipe.h"
#include "recipe/refs.h"
#include "recipe/tools.h"
#include "recipe_save.schema.h"

#include <stdlib.h>

void recipe_save_finish(struct tool_call *call, json_t *steps, json_t *params, const char *from)
{
    const json_t *args = tool_call_args(call);
    const char *name = args_string(args, "name", "");
    json_t *doc = json_pack("{s:i, s:s}", "version", 1, "name", name);
    const json_t *desc = json_object_get(args, "description");
    if (desc)
        json_object_set(doc, "description", (json_t *)desc);
    if (params && json_object_size(params))
        json_object_set(doc, "params", params);
    /* Refs die with their snapshot: keep what they stood for. */
    int located = recipe_refs_to_locators(steps, tool_call_owner(call));
    json_object_set(doc, "steps", steps);
    json_decref(params);
    json_decref(steps);
    char *err = NULL, *path = NULL;
    enum error_code code = ERROR_INVALID_ARGUMENT;
    if (recipe_check(doc, name, &err) &&
        recipe_store(name, doc, args_bool(args, "replace", false), &path, &code, &err)) {
        size_t n = json_array_size(json_object_get(doc, "steps"));
        prompts_list_changed(); /* recipe/NAME is new or different */
        tool_call_done(call, json_pack("{s:s, s:O}", "path", path, "recipe", doc),
                       "saved recipe %s (%zu step%s%s%s; %d ref%s saved as locators) to %s", name,
                       n, n == 1 ? "" : "s", from ? " from " : "", from ? from : "", located,
                       located == 1 ? "" : "s", path);
    } else {
        tool_call_fail_code(call, code, "%s", err);
    }
    free(err);
    free(path);
    json_decref(doc);
}

static void handle(struct tool_call *call)
{
    const json_t *args = tool_call_args(call);
    const json_t *steps = json_object_get(args, "steps");
    const json_t *from = json_object_get(args, "from");
    if (!!steps == !!from) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "steps or from: give exactly one (the steps themselves, or from to "
                            "build them from the audit log)");
        return;
    }
    if (from) {
        recipe_from_audit_start(call, from);
        return;
    }
    const json_t *params = json_object_get(args, "params");
    recipe_save_finish(call, json_deep_copy(steps), params ? json_incref((json_t *)params) : NULL,
                       NULL);
}

const struct tool tool_recipe_save = {
    .name = "recipe_save",
    .title = "Save a recipe",
    .description = "Saves calls as a recipe: steps [{tool, arguments ({{param}}), on_failure "
                   "stop|skip|retry}], or from your audit log's successful calls (from: a "
                   "session, since/until, last N).",
    .input_schema = tool_recipe_save_input_schema,
    .output_schema = tool_recipe_save_output_schema,
    .annotations = {.idempotent = true},
    .handler = handle,
    .group = "recipes",
};
