/* Recipe params as data: {{NAME}} is replaced in one pass, values are never
 * scanned again, keys and non-strings stay, near-placeholders stay literal. */
#include "recipe/recipe.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static json_t *subst_text(const char *text, const json_t *values)
{
    json_t *in = json_string(text);
    json_t *out = recipe_subst(in, values);
    json_decref(in);
    return out;
}

static void test_one_pass(void **state)
{
    (void)state;
    json_t *values = json_pack("{s:s, s:s}", "a", "{{b}} $(rm -rf /)", "b", "B");
    json_t *out = subst_text("x={{a}} y={{b}} z={{ a }} w={{c}} {{1x}} {{a}", values);
    assert_string_equal(json_string_value(out),
                        "x={{b}} $(rm -rf /) y=B z={{ a }} w={{c}} {{1x}} {{a}");
    json_decref(out);
    json_decref(values);
}

static void test_deep_and_keys(void **state)
{
    (void)state;
    json_t *values = json_pack("{s:s}", "p", "v");
    json_t *in = json_pack("{s:[s, i, b], s:{s:s}}", "{{p}}", "{{p}}{{p}}", 7, 1, "o", "k",
                           "pre-{{p}}-post");
    json_t *out = recipe_subst(in, values);
    json_t *want = json_pack("{s:[s, i, b], s:{s:s}}", "{{p}}", "vv", 7, 1, "o", "k", "pre-v-post");
    assert_true(json_equal(out, want));
    json_decref(in);
    json_decref(out);
    json_decref(want);
    json_decref(values);
}

static void test_names(void **state)
{
    (void)state;
    char *err = NULL;
    assert_true(recipe_name_valid("deploy-site_2", "name", &err));
    assert_false(recipe_name_valid("../x", "name", &err));
    assert_non_null(strstr(err, "name: expected a recipe name"));
    free(err);
    assert_false(recipe_name_valid("-x", "name", &err));
    free(err);
    assert_false(recipe_name_valid("", "name", &err));
    free(err);
    assert_true(recipe_param_name_valid("_x1"));
    assert_false(recipe_param_name_valid("1x"));
    assert_false(recipe_param_name_valid("a-b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pass),
        cmocka_unit_test(test_deep_and_keys),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
