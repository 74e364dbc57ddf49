/* Finding a saved locator again when a recipe runs: accessibility first
 * (find: the role and the exact name), then the name as text (find without
 * the role, which falls back to OCR), then the saved point relative to its
 * window (window_list). Each probe is a tool call of its own (read-only
 * tools, through the policy and the audit log like any step). */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct tool_call;

/* args: the step's arguments with a target filled in (new), by: "ref",
 * "text", "ocr" or "point", healed: a fallback was needed or the element
 * moved from where it was saved; or args NULL and err saying why nothing
 * was found. Runs once, maybe before recipe_locate returns. */
typedef void (*recipe_locate_fn)(void *ud, json_t *args, const char *by, bool healed,
                                 const char *err);

/* locator and notes borrowed, args stolen; strict: the first probe only,
 * and an element that moved is not accepted. *child is the probe in flight
 * (for cancelling), NULL between probes. */
void recipe_locate(struct tool_call *parent, const json_t *locator, json_t *args, bool strict,
                   const json_t *notes, recipe_locate_fn done, void *ud, struct tool_call **child);
