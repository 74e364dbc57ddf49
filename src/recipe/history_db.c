#include "recipe/history_db.h"

#include "core/xmalloc.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, recipe TEXT NOT NULL, status TEXT "
    "NOT NULL, started_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL, params TEXT NOT NULL, "
    "steps TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS runs_recipe ON runs (recipe, started_ms);";

/* The journal stays between runs (no file created and removed per run) and
 * only commits wait for the disk: the history is a record, not the work. */
static const char OPEN_PRAGMAS[] = "PRAGMA journal_mode=PERSIST; PRAGMA synchronous=NORMAL;";

static bool db_error(sqlite3 *db, const char *what, char **err)
{
    *err = xasprintf("%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
    return false;
}

struct recipe_history_db {
    char *path;
    sqlite3 *db;
    sqlite3_stmt *begin, *insert, *prune, *commit, *rollback;
    dev_t dev; /* the file open, to notice it removed or replaced */
    ino_t ino;
};

void recipe_history_db_close(struct recipe_history_db *h)
{
    if (!h)
        return;
    sqlite3_finalize(h->begin);
    sqlite3_finalize(h->insert);
    sqlite3_finalize(h->prune);
    sqlite3_finalize(h->commit);
    sqlite3_finalize(h->rollback);
    sqlite3_close(h->db);
    free(h->path);
    free(h);
}

static bool prepare(struct recipe_history_db *h, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(h->db, sql, -1, st, NULL) == SQLITE_OK;
}

struct recipe_history_db *recipe_history_db_open(const char *path, char **err)
{
    /* Created private: params may name hosts and files. */
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    struct recipe_history_db *h = xcalloc(1, sizeof *h);
    h->path = xstrdup(path);
    struct stat sb;
    bool ok = stat(path, &sb) == 0 &&
              sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
    if (ok) {
        h->dev = sb.st_dev;
        h->ino = sb.st_ino;
        sqlite3_busy_timeout(h->db, 2000);
        ok = sqlite3_exec(h->db, OPEN_PRAGMAS, NULL, NULL, NULL) == SQLITE_OK &&
             sqlite3_exec(h->db, SCHEMA, NULL, NULL, NULL) == SQLITE_OK;
    }
    /* Each recipe keeps its newest runs (a recipe run in a loop would
     * otherwise grow the file without end, each run holding every step's
     * result): the rows past the newest KEEP in the index's order. */
    ok = ok && prepare(h, "BEGIN IMMEDIATE", &h->begin) &&
         prepare(h,
                 "INSERT OR REPLACE INTO runs (id, recipe, status, started_ms, ended_ms, params, "
                 "steps) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 &h->insert) &&
         prepare(h,
                 "DELETE FROM runs WHERE rowid IN (SELECT rowid FROM runs WHERE recipe = ?1 "
                 "ORDER BY started_ms DESC LIMIT -1 OFFSET ?2)",
                 &h->prune) &&
         prepare(h, "COMMIT", &h->commit) && prepare(h, "ROLLBACK", &h->rollback);
    if (!ok) {
        db_error(h->db, path, err);
        recipe_history_db_close(h);
        return NULL;
    }
    return h;
}

const char *recipe_history_db_path(const struct recipe_history_db *h)
{
    return h->path;
}

bool recipe_history_db_moved(const struct recipe_history_db *h)
{
    struct stat sb;
    return stat(h->path, &sb) != 0 || sb.st_dev != h->dev || sb.st_ino != h->ino;
}

static bool run_once(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE;
}

bool recipe_history_db_insert_rows(struct recipe_history_db *h,
                                   const struct recipe_history_row *rows, size_t n, char **err)
{
    bool ok = run_once(h->begin);
    for (size_t i = 0; ok && i < n; i++) {
        const struct recipe_history_row *row = &rows[i];
        sqlite3_stmt *st = h->insert;
        sqlite3_bind_text(st, 1, row->run, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, row->recipe, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, row->status, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, row->started_ms);
        sqlite3_bind_int64(st, 5, row->ended_ms);
        sqlite3_bind_text(st, 6, row->params_json ? row->params_json : "{}", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, row->steps_json ? row->steps_json : "[]", -1, SQLITE_STATIC);
        ok = run_once(st);
        sqlite3_clear_bindings(st);
        if (ok) {
            sqlite3_bind_text(h->prune, 1, row->recipe, -1, SQLITE_STATIC);
            sqlite3_bind_int(h->prune, 2, RECIPE_HISTORY_KEEP);
            ok = run_once(h->prune);
            sqlite3_clear_bindings(h->prune);
        }
    }
    if (ok)
        ok = run_once(h->commit);
    if (!ok) {
        db_error(h->db, h->path, err);
        run_once(h->rollback);
    }
    return ok;
}

bool recipe_history_db_insert(const char *path, const struct recipe_history_row *row, char **err)
{
    struct recipe_history_db *h = recipe_history_db_open(path, err);
    bool ok = h && recipe_history_db_insert_rows(h, row, 1, err);
    recipe_history_db_close(h);
    return ok;
}

json_t *recipe_history_db_list(const char *path, const char *recipe, int limit, char **err)
{
    json_t *out = json_array();
    struct stat sb;
    if (stat(path, &sb) != 0)
        return out;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_busy_timeout(db, 2000);
        ok = sqlite3_prepare_v2(db,
                                "SELECT id, recipe, status, started_ms, ended_ms, params, steps "
                                "FROM runs WHERE ?1 IS NULL OR recipe = ?1 ORDER BY started_ms "
                                "DESC LIMIT ?2",
                                -1, &st, NULL) == SQLITE_OK;
    }
    if (ok) {
        if (recipe)
            sqlite3_bind_text(st, 1, recipe, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 2, limit);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            json_t *params = json_loads((const char *)sqlite3_column_text(st, 5), 0, NULL);
            json_t *steps = json_loads((const char *)sqlite3_column_text(st, 6), 0, NULL);
            json_array_append_new(out,
                                  json_pack("{s:s, s:s, s:s, s:I, s:I, s:o, s:o}", "run",
                                            (const char *)sqlite3_column_text(st, 0), "recipe",
                                            (const char *)sqlite3_column_text(st, 1), "status",
                                            (const char *)sqlite3_column_text(st, 2), "started_ms",
                                            (json_int_t)sqlite3_column_int64(st, 3), "ended_ms",
                                            (json_int_t)sqlite3_column_int64(st, 4), "params",
                                            params ? params : json_object(), "steps",
                                            steps ? steps : json_array()));
        }
        ok = rc == SQLITE_DONE;
    }
    if (!ok) {
        db_error(db, path, err);
        json_decref(out);
        out = NULL;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}
