/* recipe_delete: removes a saved recipe's file. */
#include "core/args.h"
#include "mcp/prompt.h"
#include "recipe/recipe.h"
#include "recipe/tools.h"
#include "recipe_delete.schema.h"

#include <stdlib.h>

static void handle(struct tool_call *call)
{
    const char *name = args_string(tool_call_args(call), "name", "");
    char *path = NULL, *err = NULL;
    enum error_code code;
    if (recipe_remove(name, &path, &code, &err)) {
        prompts_list_changed(); /* recipe/NAME is gone */
        tool_call_done(call, json_pack("{s:s}", "path", path), "deleted %s", path);
    } else {
        tool_call_fail_code(call, code, "%s", err);
    }
    free(path);
    free(err);
}

const struct tool tool_recipe_delete = {
    .name = "recipe_delete",
    .title = "Delete a recipe",
    .description = "Deletes a saved recipe.",
    .input_schema = tool_recipe_delete_input_schema,
    .output_schema = tool_recipe_delete_output_schema,
    .annotations = {.destructive = true, .idempotent = true},
    .handler = handle,
    .group = "recipes",
};
