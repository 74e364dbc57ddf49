/* The run history database: runs written by the worker read back newest
 * first, and each recipe keeps only its newest RECIPE_HISTORY_KEEP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recipe/history_db.h"

static void insert(const char *path, const char *recipe, int n)
{
    char run[64];
    snprintf(run, sizeof run, "%s-%d", recipe, n);
    struct recipe_history_row row = {
        .run = run,
        .recipe = recipe,
        .status = "ok",
        .started_ms = 1000 + n,
        .ended_ms = 1001 + n,
        .params_json = "{\"n\":\"x\"}",
        .steps_json = "[{\"tool\":\"session_list\",\"status\":\"ok\"}]",
    };
    char *err = NULL;
    assert_true(recipe_history_db_insert(path, &row, &err));
    assert_null(err);
}

static void each_recipe_keeps_its_newest_runs(void **state)
{
    (void)state;
    char dir[] = "/tmp/gb-recipe-history-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/recipes.db", dir);
    for (int i = 0; i < RECIPE_HISTORY_KEEP + 5; i++)
        insert(path, "busy", i);
    for (int i = 0; i < 3; i++)
        insert(path, "quiet", i);

    char *err = NULL;
    json_t *busy = recipe_history_db_list(path, "busy", 10000, &err);
    assert_non_null(busy);
    assert_int_equal(json_array_size(busy), RECIPE_HISTORY_KEEP);
    /* Newest first; the five oldest are gone. */
    assert_string_equal(json_string_value(json_object_get(json_array_get(busy, 0), "run")),
                        "busy-204");
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(busy, RECIPE_HISTORY_KEEP - 1), "run")),
        "busy-5");
    json_t *steps = json_object_get(json_array_get(busy, 0), "steps");
    assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 0), "tool")),
                        "session_list");
    json_decref(busy);
    json_t *quiet = recipe_history_db_list(path, "quiet", 10000, &err);
    assert_int_equal(json_array_size(quiet), 3);
    json_decref(quiet);

    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static struct recipe_history_row row_of(char *run, size_t size, const char *recipe, int n)
{
    snprintf(run, size, "%s-%d", recipe, n);
    return (struct recipe_history_row){.run = run,
                                       .recipe = recipe,
                                       .status = "ok",
                                       .started_ms = 1000 + n,
                                       .ended_ms = 1001 + n,
                                       .params_json = "{}",
                                       .steps_json = "[]"};
}

static size_t runs_of(const char *path, const char *recipe)
{
    char *err = NULL;
    json_t *runs = recipe_history_db_list(path, recipe, 10000, &err);
    assert_non_null(runs);
    size_t n = json_array_size(runs);
    json_decref(runs);
    return n;
}

/* The writer's way: one open database, several runs in one transaction,
 * the same rows and the same pruning as one open per run. */
static void rows_written_together_keep_the_newest(void **state)
{
    (void)state;
    char dir[] = "/tmp/gb-recipe-history-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/recipes.db", dir);
    char *err = NULL;
    struct recipe_history_db *db = recipe_history_db_open(path, &err);
    assert_non_null(db);
    assert_false(recipe_history_db_moved(db));
    enum { BATCH = 7 };
    char names[BATCH][64];
    struct recipe_history_row rows[BATCH];
    for (int done = 0; done < 2 * RECIPE_HISTORY_KEEP; done += BATCH) {
        for (int i = 0; i < BATCH; i++)
            rows[i] = row_of(names[i], sizeof names[i], i % 2 ? "odd" : "busy", done + i);
        assert_true(recipe_history_db_insert_rows(db, rows, BATCH, &err));
        assert_null(err);
    }
    assert_int_equal(runs_of(path, "busy"), RECIPE_HISTORY_KEEP);
    assert_int_equal(runs_of(path, "odd"), (2 * RECIPE_HISTORY_KEEP + BATCH - 1) / BATCH * 3);

    /* The file removed under the open database: the writer notices and
     * opens a new one, where the next runs are found. */
    assert_int_equal(unlink(path), 0);
    assert_true(recipe_history_db_moved(db));
    recipe_history_db_close(db);
    db = recipe_history_db_open(path, &err);
    assert_non_null(db);
    rows[0] = row_of(names[0], sizeof names[0], "fresh", 1);
    assert_true(recipe_history_db_insert_rows(db, rows, 1, &err));
    recipe_history_db_close(db);
    assert_int_equal(runs_of(path, "fresh"), 1);
    assert_int_equal(runs_of(path, "busy"), 0);

    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_recipe_keeps_its_newest_runs),
        cmocka_unit_test(rows_written_together_keep_the_newest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
