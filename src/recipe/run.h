/* Running a recipe inside a recipe_run call: its steps one after another,
 * each a tool call of its own through tool_call_spawn (the policy, a
 * person's confirmation, rate limits and the audit log see every step as
 * they see a client's call). */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct tool_call;

struct recipe_run_options {
    size_t from_step, to_step; /* 1-based, inclusive; already checked against the recipe */
    bool dry_run;              /* say what would be called; call nothing */
    bool strict;               /* locators must be found where they were saved */
};

/* Runs doc (stolen) with values (stolen; the param values) and answers
 * call: {run, recipe, status, steps: [{step, tool, status, attempts, ms,
 * text, structured, error}]}. Secret values never appear in the answer. */
void recipe_run_start(struct tool_call *call, json_t *doc, json_t *values,
                      const struct recipe_run_options *o);
