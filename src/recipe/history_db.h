/* The run history database (DATA_DIR/recipes.db): one table, runs. Shared
 * by serve's worker jobs (history.c) and `glovebox recipes`. Every function
 * may block on the disk; none runs on the loop thread. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recipe_history_db;

/* One run as stored: params and steps are JSON text already, so the worker
 * that writes it does no JSON work (a run's steps carry every result). */
struct recipe_history_row {
    const char *run, *recipe, *status;
    int64_t started_ms, ended_ms;
    const char *params_json, *steps_json;
};

/* Runs kept per recipe: inserting one more removes the oldest. */
#define RECIPE_HISTORY_KEEP 200

/* The database open for writing, kept open between writes (opening it and
 * preparing its statements cost more than a row): used by one thread at a
 * time. The file (mode 0600) and table are created as needed. NULL with
 * *err. */
struct recipe_history_db *recipe_history_db_open(const char *path, char **err);
/* Whether path names another file than the one db has open (removed or
 * replaced since): then the next rows belong in a new open. */
bool recipe_history_db_moved(const struct recipe_history_db *db);
/* The path db was opened with. */
const char *recipe_history_db_path(const struct recipe_history_db *db);
/* Insert rows[0..n) in one transaction; each recipe keeps its newest
 * RECIPE_HISTORY_KEEP runs. false with *err (nothing inserted). */
bool recipe_history_db_insert_rows(struct recipe_history_db *db,
                                   const struct recipe_history_row *rows, size_t n, char **err);
/* Accepts NULL. */
void recipe_history_db_close(struct recipe_history_db *db);
/* Insert one run with an open of its own. false with *err. */
bool recipe_history_db_insert(const char *path, const struct recipe_history_row *row, char **err);
/* The newest runs, at most limit, of recipe (NULL: all), newest first: a
 * new array of those objects; NULL with *err. A missing file is an empty
 * history. */
json_t *recipe_history_db_list(const char *path, const char *recipe, int limit, char **err);
