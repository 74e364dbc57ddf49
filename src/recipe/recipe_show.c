/* recipe_show: one recipe as saved. */
#include "core/args.h"
#include "recipe/recipe.h"
#include "recipe/tools.h"
#include "recipe_show.schema.h"

#include <stdlib.h>

static void handle(struct tool_call *call)
{
    const char *name = args_string(tool_call_args(call), "name", "");
    char *path = NULL, *err = NULL;
    enum error_code code;
    json_t *doc = recipe_load(name, &path, &code, &err);
    if (!doc) {
        tool_call_fail_code(call, code, "%s", err);
    } else {
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        tool_call_done(call, json_pack("{s:s, s:o}", "path", path, "recipe", doc), "%s\n%s", path,
                       text);
        free(text);
    }
    free(path);
    free(err);
}

const struct tool tool_recipe_show = {
    .name = "recipe_show",
    .title = "Show a recipe",
    .description = "Shows a saved recipe: its params and steps.",
    .input_schema = tool_recipe_show_input_schema,
    .output_schema = tool_recipe_show_output_schema,
    .annotations = {.read_only = true, .idempotent = true},
    .handler = handle,
    .group = "recipes",
};
