#include "mcp/registry.h"
#include "recipe/refs.h"
#include "recipe/tools.h"

void recipe_register(void)
{
    registry_add(&tool_recipe_list);
    registry_add(&tool_recipe_show);
    registry_add(&tool_recipe_save);
    registry_add(&tool_recipe_run);
    registry_add(&tool_recipe_delete);
    prompts_set_source(&recipe_prompt_source);
    tool_calls_set_tap(recipe_refs_observe);
}
