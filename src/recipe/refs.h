/* What the refs a client saw stood for: element refs die with their
 * snapshot, so when a step that used one is saved, it is saved as a locator
 * {role, name, app, window, point} found again when the recipe runs
 * (locate.c). Remembered from the answers of snapshot, find and window_list
 * (tool_calls_set_tap), per client, at most REFS_MAX elements. */
#pragma once
#include <jansson.h>

#define REFS_MAX 4096

struct tool_call;

/* The tap: remembers the elements and windows in result. */
void recipe_refs_observe(const struct tool_call *call, const json_t *result);
/* Each step of steps (modified) whose arguments use a ref owner saw becomes
 * a step with a locator and no ref; returns how many did. */
int recipe_refs_to_locators(json_t *steps, const char *owner);
/* Forget everything (tests, shutdown). */
void recipe_refs_clear(void);
