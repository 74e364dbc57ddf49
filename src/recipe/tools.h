/* The recipe tools and prompts (docs/recipes.md). */
#pragma once
#include "mcp/prompt.h"
#include "mcp/tool.h"

extern const struct tool tool_recipe_list;
extern const struct tool tool_recipe_show;
extern const struct tool tool_recipe_save;
extern const struct tool tool_recipe_run;
extern const struct tool tool_recipe_delete;

/* recipe/NAME (prompt.c). */
extern const struct prompt_source recipe_prompt_source;

/* Registers the tools above and the recipe/NAME prompts. */
void recipe_register(void);
