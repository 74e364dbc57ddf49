/* The policy decision: wildcards, deny over allow, fail-closed defaults,
 * passive mode, and errors that name the field. */
#include "policy/policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void test_glob(void **state)
{
    (void)state;
    assert_true(policy_glob_match("*", "type_text"));
    assert_true(policy_glob_match("terminal_*", "terminal_start"));
    assert_true(policy_glob_match("*_text", "type_text"));
    assert_true(policy_glob_match("t*e*t", "type_text"));
    assert_true(policy_glob_match("type_text", "type_text"));
    assert_false(policy_glob_match("type_tex", "type_text"));
    assert_false(policy_glob_match("terminal_*", "type_text"));
    assert_false(policy_glob_match("", "x"));
    assert_true(policy_glob_match("**", ""));
}

static struct policy *parse(const char *text, char **err)
{
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    struct policy *p = policy_create_from_json(doc, err);
    json_decref(doc);
    return p;
}

static void test_default_is_read_only(void **state)
{
    (void)state;
    struct policy *p = policy_create_default();
    assert_true(policy_allows(p, "screenshot", true));
    assert_false(policy_allows(p, "type_text", false));
    char *why = policy_refusal(p, "type_text", false);
    assert_non_null(strstr(why, ".glovebox/policy.json"));
    free(why);
    policy_destroy(p);
}

static void test_deny_wins(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse("{\"allow\":[\"*\"],\"deny\":[\"press_*\",\"snapshot\"]}", &err);
    assert_non_null(p);
    assert_true(policy_allows(p, "type_text", false));
    assert_false(policy_allows(p, "press_key", false));
    assert_false(policy_allows(p, "snapshot", true)); /* read-only tools can be denied too */
    char *why = policy_refusal(p, "press_key", false);
    assert_non_null(strstr(why, "deny"));
    free(why);
    policy_destroy(p);
}

static void test_passive(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse("{\"mode\":\"passive\",\"allow\":[\"*\"]}", &err);
    assert_non_null(p);
    assert_false(policy_allows(p, "type_text", false));
    assert_true(policy_allows(p, "screenshot", true));
    policy_set_mode(p, POLICY_AUTOPILOT);
    assert_true(policy_allows(p, "type_text", false));
    policy_destroy(p);
}

static void test_errors_name_the_field(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {"{\"allow\":\"*\"}", "\"allow\""},
        {"{\"deny\":[1]}", "\"deny\"[0]"},
        {"{\"mode\":\"yolo\"}", "\"mode\""},
        {"{\"alow\":[]}", "\"alow\""},
        {"[]", "object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        assert_null(parse(bad[i][0], &err));
        assert_non_null(err);
        assert_non_null(strstr(err, bad[i][1]));
        free(err);
    }
}

static void test_allow_all(void **state)
{
    (void)state;
    struct policy *p = policy_create_allow_all();
    assert_true(policy_allows(p, "anything", false));
    assert_true(policy_is_allow_all(p));
    policy_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glob),
        cmocka_unit_test(test_default_is_read_only),
        cmocka_unit_test(test_deny_wins),
        cmocka_unit_test(test_passive),
        cmocka_unit_test(test_errors_name_the_field),
        cmocka_unit_test(test_allow_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
