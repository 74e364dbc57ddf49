/* The run history database (DATA_DIR/recipes.db): one table, runs. Shared
 * by serve's worker jobs (history.c) and `glovebox recipes`. Every function
 * may block on the disk; none runs on the loop thread. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* One run as stored: params and steps are JSON text already, so the worker
 * that writes it does no JSON work (a run's steps carry every result). */
struct recipe_history_row {
    const char *run, *recipe, *status;
    int64_t started_ms, ended_ms;
    const char *params_json, *steps_json;
};

/* Runs kept per recipe: inserting one more removes the oldest. */
#define RECIPE_HISTORY_KEEP 200

/* Insert one run; the file (mode 0600) and table are created as needed.
 * false with *err. */
bool recipe_history_db_insert(const char *path, const struct recipe_history_row *row, char **err);
/* The newest runs, at most limit, of recipe (NULL: all), newest first: a
 * new array of those objects; NULL with *err. A missing file is an empty
 * history. */
json_t *recipe_history_db_list(const char *path, const char *recipe, int limit, char **err);
