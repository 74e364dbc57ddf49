/* recipe_list: the saved recipes, the broken ones with their error. */
#include "recipe/recipe.h"
#include "recipe/tools.h"
#include "recipe_list.schema.h"

static void handle(struct tool_call *call)
{
    json_t *list = recipe_list_all();
    size_t n = json_array_size(list), bad = 0, i;
    const json_t *r;
    json_array_foreach(list, i, r)
    {
        bad += json_object_get(r, "error") != NULL;
    }
    tool_call_done(call, json_pack("{s:o}", "recipes", list), "%zu recipe%s%s", n,
                   n == 1 ? "" : "s", bad ? " (some invalid: see error)" : "");
}

const struct tool tool_recipe_list = {
    .name = "recipe_list",
    .title = "List recipes",
    .description = "Lists saved recipes (project's .glovebox/recipes, then the user's) with "
                   "their params; invalid files are listed with their error.",
    .input_schema = tool_recipe_list_input_schema,
    .output_schema = tool_recipe_list_output_schema,
    .annotations = {.read_only = true, .idempotent = true},
    .handler = handle,
    .group = "recipes",
};
