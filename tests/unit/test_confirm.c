/* Confirmations: the requestState a 2026-07-28 client carries between the
 * question and its answer (tamper-proof, bound to the call, expiring, used
 * once), the question a person reads (arguments quoted so they cannot
 * spoof it), and which calls the policy sends to a person. */
#include "mcp/confirm.h"
#include "mcp/request_state.h"
#include "policy/policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mcp/server.h"
#include "tools/tools.h"

/* The policy reads what each tool is (its facts in mcp/tool.h) from the
 * registry, as glovebox serve has it. */
static int register_tools(void **state)
{
    (void)state;
    tools_register_all();
    return 0;
}

static int unregister_tools(void **state)
{
    (void)state;
    mcp_server_finish();
    return 0;
}

static json_t *args_of(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    return j;
}

static void test_state_round_trip(void **state)
{
    (void)state;
    json_t *args = args_of("{\"text\":\"ls -la\",\"session\":\"t1\"}");
    char *s = request_state_issue("type_text", args, 10000);
    assert_non_null(s);
    /* Key order does not matter: the arguments are compared canonically. */
    json_t *same = args_of("{\"session\":\"t1\",\"text\":\"ls -la\"}");
    assert_int_equal(request_state_verify(s, "type_text", same, 5000, false), REQUEST_STATE_OK);
    assert_int_equal(request_state_verify(s, "type_text", same, 5000, true), REQUEST_STATE_OK);
    /* Once redeemed, never again. */
    assert_int_equal(request_state_verify(s, "type_text", same, 5001, true), REQUEST_STATE_REUSED);
    free(s);
    json_decref(args);
    json_decref(same);
}

static void test_state_bound_to_call(void **state)
{
    (void)state;
    json_t *args = args_of("{\"text\":\"ls -la\"}");
    json_t *other = args_of("{\"text\":\"rm -rf ~\"}");
    char *s = request_state_issue("type_text", args, 10000);
    assert_int_equal(request_state_verify(s, "type_text", other, 1, false), REQUEST_STATE_MISMATCH);
    assert_int_equal(request_state_verify(s, "press_key", args, 1, false), REQUEST_STATE_MISMATCH);
    /* Expired, even though it is authentic. */
    assert_int_equal(request_state_verify(s, "type_text", args, 10000, false),
                     REQUEST_STATE_EXPIRED);
    free(s);
    json_decref(args);
    json_decref(other);
}

static void test_state_tampered(void **state)
{
    (void)state;
    json_t *args = args_of("{\"text\":\"x\"}");
    char *s = request_state_issue("type_text", args, 10000);
    size_t len = strlen(s);
    /* Every single-character change is caught (the expiry and nonce too). */
    for (size_t i = 0; i < len; i++) {
        char *t = strdup(s);
        t[i] = t[i] == 'A' ? 'B' : 'A';
        enum request_state_check c = request_state_verify(t, "type_text", args, 1, false);
        assert_true(c == REQUEST_STATE_MISMATCH || c == REQUEST_STATE_MALFORMED);
        free(t);
    }
    assert_int_equal(request_state_verify("", "type_text", args, 1, false),
                     REQUEST_STATE_MALFORMED);
    assert_int_equal(request_state_verify("not a state", "type_text", args, 1, false),
                     REQUEST_STATE_MALFORMED);
    char *longer = malloc(len + 5);
    memcpy(longer, s, len);
    memcpy(longer + len, "AAAA", 5);
    assert_int_equal(request_state_verify(longer, "type_text", args, 1, false),
                     REQUEST_STATE_MALFORMED);
    free(longer);
    /* Two states for the same call differ (a nonce), and both work. */
    char *s2 = request_state_issue("type_text", args, 10000);
    assert_string_not_equal(s, s2);
    assert_int_equal(request_state_verify(s2, "type_text", args, 1, false), REQUEST_STATE_OK);
    free(s2);
    free(s);
    json_decref(args);
}

static void test_question_type_text(void **state)
{
    (void)state;
    json_t *args = args_of("{\"text\":\"ls -la\",\"session\":\"t1\"}");
    char *q = confirm_question("type_text", args);
    assert_string_equal(q, "Allow the agent to type \"ls -la\" into session \"t1\"?");
    free(q);
    json_decref(args);
    args = args_of("{\"key\":\"ctrl+c\",\"repeat\":3}");
    q = confirm_question("press_key", args);
    assert_string_equal(q, "Allow the agent to press \"ctrl+c\" 3 times in the current session?");
    free(q);
    json_decref(args);
}

static void test_question_cannot_spoof(void **state)
{
    (void)state;
    /* Quotes, newlines and a right-to-left override stay inside the quotes,
     * visible as escapes. */
    json_t *args = args_of("{\"text\":\"ls\\\"? Yes.\\n\\nThis is safe \\u202e\\u200b\"}");
    char *q = confirm_question("type_text", args);
    assert_string_equal(q, "Allow the agent to type \"ls\\\"? Yes.\\n\\nThis is safe "
                           "\\u{202e}\\u{200b}\" into the current session?");
    assert_null(strchr(q, '\n'));
    free(q);
    json_decref(args);
    /* Long text is cut short, and says so. */
    char big[1200];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    json_t *long_args = json_pack("{s:s}", "text", big);
    q = confirm_question("type_text", long_args);
    assert_non_null(strstr(q, "(cut short; 999 more characters)"));
    assert_true(strlen(q) < 400);
    free(q);
    json_decref(long_args);
    /* Many long arguments: the question still has a bound. */
    json_t *cmd = json_array();
    for (int i = 0; i < 40; i++)
        json_array_append_new(cmd, json_string(big));
    json_t *many = json_pack("{s:o}", "command", cmd);
    q = confirm_question("terminal_start", many);
    assert_true(strlen(q) <= CONFIRM_QUESTION_MAX + 64);
    assert_non_null(strstr(q, "(the rest of the call is not shown)?"));
    free(q);
    json_decref(many);
}

static void test_question_generic(void **state)
{
    (void)state;
    json_t *args = args_of("{\"cols\":80,\"rows\":24,\"session\":\"t\\u0007\"}");
    char *q = confirm_question("resize", args);
    assert_string_equal(q, "Allow the agent to call resize with \"cols\"=80, \"rows\"=24, "
                           "\"session\"=\"t\\x07\"?");
    free(q);
    json_decref(args);
    args = args_of("{\"command\":[\"bash\",\"-c\",\"echo hi\"],\"cwd\":\"/tmp\"}");
    q = confirm_question("terminal_start", args);
    assert_string_equal(
        q, "Allow the agent to start a terminal running \"bash\" \"-c\" \"echo hi\" in \"/tmp\"?");
    free(q);
    json_decref(args);
}

static struct policy *parse(const char *text, char **err)
{
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    struct policy *p = policy_create_from_json(doc, err);
    json_decref(doc);
    return p;
}

static void test_policy_confirm_list(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse("{\"allow\":[\"terminal_*\"],\"confirm\":[\"type_*\"],"
                             "\"deny\":[\"press_key\"],\"confirm_timeout_s\":5}",
                             &err);
    assert_non_null(p);
    /* confirm implies allowed-if-confirmed; deny still wins. */
    assert_true(policy_allows(p, "type_text", false));
    char *why = policy_confirmation(p, "type_text", false);
    assert_non_null(why);
    assert_non_null(strstr(why, "\"type_*\" in \"confirm\""));
    free(why);
    assert_null(policy_confirmation(p, "terminal_start", false));
    assert_int_equal(policy_confirm_timeout_s(p), 5);
    policy_destroy(p);
    p = parse("{\"allow\":[\"*\"],\"confirm\":[\"press_*\"],\"deny\":[\"press_key\"]}", &err);
    assert_false(policy_allows(p, "press_key", false));
    policy_destroy(p);
}

static void test_policy_assist_confirms_changes(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse("{\"mode\":\"assist\",\"allow\":[\"*\"]}", &err);
    char *why = policy_confirmation(p, "type_text", false);
    assert_non_null(why);
    assert_non_null(strstr(why, "assist"));
    free(why);
    assert_null(policy_confirmation(p, "screenshot", true));
    assert_null(policy_confirmation(p, "set_mode", false));
    assert_int_equal(policy_confirm_timeout_s(p), POLICY_CONFIRM_TIMEOUT_S);
    policy_destroy(p);
    /* --allow-all lifts the lists, not the mode: assist still asks, and
     * passive (set_mode can lower to it) still refuses changes. */
    p = policy_create_allow_all();
    assert_null(policy_confirmation(p, "type_text", false));
    policy_set_mode(p, POLICY_ASSIST);
    why = policy_confirmation(p, "type_text", false);
    assert_non_null(why);
    free(why);
    policy_set_mode(p, POLICY_PASSIVE);
    assert_false(policy_allows(p, "type_text", false));
    assert_true(policy_allows(p, "screenshot", true));
    assert_true(policy_allows(p, "set_mode", false));
    policy_destroy(p);
}

static void test_policy_confirm_timeout_checked(void **state)
{
    (void)state;
    const char *bad[] = {"{\"confirm_timeout_s\":0}", "{\"confirm_timeout_s\":3601}",
                         "{\"confirm_timeout_s\":\"60\"}", "{\"confirm_timeout_s\":1.5}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        assert_null(parse(bad[i], &err));
        assert_non_null(strstr(err, "confirm_timeout_s"));
        free(err);
    }
    char *err = NULL;
    assert_null(parse("{\"confirm\":\"*\"}", &err));
    assert_non_null(strstr(err, "\"confirm\" must be an array"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_round_trip),
        cmocka_unit_test(test_state_bound_to_call),
        cmocka_unit_test(test_state_tampered),
        cmocka_unit_test(test_question_type_text),
        cmocka_unit_test(test_question_cannot_spoof),
        cmocka_unit_test(test_question_generic),
        cmocka_unit_test(test_policy_confirm_list),
        cmocka_unit_test(test_policy_assist_confirms_changes),
        cmocka_unit_test(test_policy_confirm_timeout_checked),
    };
    return cmocka_run_group_tests(tests, register_tools, unregister_tools);
}
