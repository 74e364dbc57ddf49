/* Run history: every recipe run with its params (secret ones masked), its
 * steps' results and timings, in DATA_DIR/recipes.db (SQLite), written off
 * the loop thread. `glovebox recipes` reads it. */
#pragma once
#include <jansson.h>
#include <stdint.h>

struct app;

/* Queue one run (all borrowed; values are masked with secrets here). */
void recipe_history_add(struct app *app, const char *run, const char *recipe, const char *status,
                        int64_t started_ms, int64_t ended_ms, const json_t *values,
                        const json_t *secrets, const json_t *steps);
