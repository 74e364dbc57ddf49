/* The run history in SQLite. Each run is one row, written by a worker-pool
 * job (inserting may wait on the disk or on another process's lock); a run
 * whose row cannot be written is logged and otherwise forgotten: the
 * history never stops a recipe. */
#define LOG_MODULE "recipe"
#include "recipe/history.h"

#include "core/app.h"
#include "core/json_out.h"
#include "core/log.h"
#include "core/scrub.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "recipe/history_db.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* One run waiting to be written; its strings are owned. */
struct pending_row {
    char *path; /* DATA_DIR/recipes.db */
    struct recipe_history_row row;
    struct pending_row *next;
};

/* The writer: one job at a time on the worker pool, so the database it
 * keeps open is used by one thread at a time; runs that end while a job
 * writes wait and go together in the next one (one transaction, one wait
 * for the disk). */
static struct {
    uv_work_t work;
    bool busy;
    struct pending_row *queue, **tail; /* waiting, oldest first */
    struct pending_row *batch;         /* being written by the job */
    struct recipe_history_db *db;      /* used only by the job; NULL: not open */
    char *err;
} writer;

static void free_rows(struct pending_row *p)
{
    while (p) {
        struct pending_row *next = p->next;
        free(p->path);
        free((char *)p->row.run);
        free((char *)p->row.recipe);
        free((char *)p->row.status);
        free((char *)p->row.params_json);
        free((char *)p->row.steps_json);
        free(p);
        p = next;
    }
}

/* rows[0..n) into the database at path, opened (again) as needed. */
static void write_rows(const char *path, const struct recipe_history_row *rows, size_t n,
                       struct strbuf *errors)
{
    struct recipe_history_db *db = writer.db;
    if (db && (strcmp(recipe_history_db_path(db), path) != 0 || recipe_history_db_moved(db))) {
        recipe_history_db_close(db);
        db = writer.db = NULL;
    }
    char *err = NULL;
    if (!db)
        db = writer.db = recipe_history_db_open(path, &err);
    if (db && !recipe_history_db_insert_rows(db, rows, n, &err)) {
        /* Opened afresh next time: a connection that failed may stay stuck. */
        recipe_history_db_close(db);
        writer.db = NULL;
    }
    if (err)
        strbuf_printf(errors, "%s%s", errors->len ? "; " : "", err);
    free(err);
}

static void work(uv_work_t *w)
{
    (void)w;
    size_t n = 0;
    for (struct pending_row *p = writer.batch; p; p = p->next)
        n++;
    struct recipe_history_row *rows = xcalloc(n, sizeof *rows);
    struct strbuf errors;
    strbuf_init(&errors);
    /* The rows in runs of the same database (a server has one). */
    struct pending_row *first = writer.batch;
    while (first) {
        size_t k = 0;
        struct pending_row *p = first;
        for (; p && strcmp(p->path, first->path) == 0; p = p->next)
            rows[k++] = p->row;
        write_rows(first->path, rows, k, &errors);
        first = p;
    }
    free(rows);
    writer.err = errors.len ? strbuf_steal(&errors) : NULL;
    strbuf_finish(&errors);
}

static void start(uv_loop_t *loop);

static void after(uv_work_t *w, int status)
{
    (void)status;
    if (writer.err)
        log_warn("run history: %s", writer.err);
    free(writer.err);
    writer.err = NULL;
    free_rows(writer.batch);
    writer.batch = NULL;
    writer.busy = false;
    if (writer.queue)
        start(w->loop);
}

static void start(uv_loop_t *loop)
{
    writer.batch = writer.queue;
    writer.queue = NULL;
    writer.tail = &writer.queue;
    writer.busy = true;
    uv_queue_work(loop, &writer.work, work, after);
}

void recipe_history_add(struct app *app, const char *run, const char *recipe, const char *status,
                        int64_t started_ms, int64_t ended_ms, const json_t *values,
                        const json_t *secrets, const json_t *steps)
{
    char *err = NULL;
    if (!app->data_dir || !app_ensure_data_dir(app, &err)) {
        log_warn("run history: %s", err ? err : "no data directory");
        free(err);
        return;
    }
    /* Secret values become "[redacted]" whole; the steps were scrubbed. */
    json_t *masked = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)values, key, v)
    {
        char *clean = scrub_text(json_string_value(v), secrets);
        json_object_set_new(masked, key,
                            json_string(strcmp(clean, json_string_value(v))
                                            ? SCRUB_REDACTED
                                            : json_string_value(v)));
        free(clean);
    }
    struct pending_row *p = xcalloc(1, sizeof *p);
    p->path = xasprintf("%s/recipes.db", app->data_dir);
    p->row = (struct recipe_history_row){
        .run = xstrdup(run),
        .recipe = xstrdup(recipe),
        .status = xstrdup(status),
        .started_ms = started_ms,
        .ended_ms = ended_ms,
        .params_json = json_out_dump(masked, NULL),
        .steps_json = json_out_dump(steps, NULL),
    };
    json_decref(masked);
    if (!writer.tail)
        writer.tail = &writer.queue;
    *writer.tail = p;
    writer.tail = &p->next;
    if (!writer.busy)
        start(app->loop);
}
