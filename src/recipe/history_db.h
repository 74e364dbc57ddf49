/* The run history database (DATA_DIR/recipes.db): one table, runs. Shared
 * by serve's worker jobs (history.c) and `glovebox recipes`. Every function
 * may block on the disk; none runs on the loop thread. */
#pragma once
#include <jansson.h>
#include <stdbool.h>

/* Insert one run given as JSON {run, recipe, status, started_ms, ended_ms,
 * params, steps}; the file (mode 0600) and table are created as needed.
 * false with *err. */
bool recipe_history_db_insert(const char *path, const char *row_json, char **err);
/* The newest runs, at most limit, of recipe (NULL: all), newest first: a
 * new array of those objects; NULL with *err. A missing file is an empty
 * history. */
json_t *recipe_history_db_list(const char *path, const char *recipe, int limit, char **err);
