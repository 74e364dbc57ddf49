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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_recipe_keeps_its_newest_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
