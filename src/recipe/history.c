/* The run history in SQLite. Each run is one row, written by a worker-pool
 * job (opening, inserting and closing the database may wait on the disk or
 * on another process's lock); a run whose row cannot be written is logged
 * and otherwise forgotten: the history never stops a recipe. */
#define LOG_MODULE "recipe"
#include "recipe/history.h"

#include "core/app.h"
#include "core/json_out.h"
#include "core/log.h"
#include "core/scrub.h"
#include "core/xmalloc.h"
#include "recipe/history_db.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

struct job {
    uv_work_t work;
    struct recipe_history_row row; /* its strings are owned here */
    char *path, *err;
};

static void work(uv_work_t *w)
{
    struct job *j = w->data;
    recipe_history_db_insert(j->path, &j->row, &j->err);
}

static void after(uv_work_t *w, int status)
{
    (void)status;
    struct job *j = w->data;
    if (j->err)
        log_warn("run history %s: %s", j->path, j->err);
    free(j->path);
    free((char *)j->row.run);
    free((char *)j->row.recipe);
    free((char *)j->row.status);
    free((char *)j->row.params_json);
    free((char *)j->row.steps_json);
    free(j->err);
    free(j);
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
    struct job *j = xcalloc(1, sizeof *j);
    j->work.data = j;
    j->path = xasprintf("%s/recipes.db", app->data_dir);
    j->row = (struct recipe_history_row){
        .run = xstrdup(run),
        .recipe = xstrdup(recipe),
        .status = xstrdup(status),
        .started_ms = started_ms,
        .ended_ms = ended_ms,
        .params_json = json_out_dump(masked, NULL),
        .steps_json = json_out_dump(steps, NULL),
    };
    json_decref(masked);
    uv_queue_work(app->loop, &j->work, work, after);
}
