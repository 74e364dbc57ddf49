/* The policy decision: wildcards, deny over allow, fail-closed defaults,
 * passive mode, and errors that name the field. */
#include "policy/policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mcp/registry.h"
#include "mcp/server.h"
#include "tools/tools.h"

/* A network tool, to test hosts rules on a build without webdriver
 * sessions (which has the real open_url). */
static const struct tool_rule_args open_url_args = {.host = "url"};
static const struct tool open_url = {
    .name = "open_url",
    .title = "Open a URL",
    .description = "Opens a URL.",
    .input_schema = "{\"type\":\"object\"}",
    .rule_args = &open_url_args,
};

/* The policy reads what each tool is (its facts in mcp/tool.h) from the
 * registry, as glovebox serve has it. */
static int register_tools(void **state)
{
    (void)state;
    tools_register_all();
    if (!registry_find("open_url"))
        registry_add(&open_url);
    return 0;
}

static int unregister_tools(void **state)
{
    (void)state;
    mcp_server_finish();
    return 0;
}

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

/* Argument rules: programs by name anywhere or pinned by path, displays
 * only when listed, hosts, blocked windows; refusals name the rule. */
static void test_argument_rules(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p =
        parse("{\"allow\":[\"*\"],\"rules\":{\"terminal_start\":{\"commands\":[\"bash\",\"/usr/bin/"
              "py*\"]},"
              "\"launch_app\":{\"apps\":[\"zenity\"]},\"desktop_start\":{\"displays\":[\":0\"]},"
              "\"open_url\":{\"hosts\":[\"localhost\",\"*.example.com\"]},"
              "\"input\":{\"blocked_windows\":[\"*Password*\"],\"blocked_apps\":[\"KeePassXC\"]}}}",
              &err);
    assert_non_null(p);
    json_t *a = json_pack("{s:[s]}", "command", "/bin/bash");
    assert_null(policy_check_arguments(p, "terminal_start", a));
    json_decref(a);
    a = json_pack("{s:[s, s]}", "command", "bash", "-l");
    assert_null(policy_check_arguments(p, "terminal_start", a));
    json_decref(a);
    /* python3 is found through PATH at /usr/bin/python3 (a PATH of our own:
     * the caller's may put another python3 first). */
    setenv("PATH", "/nonexistent:/usr/bin", 1);
    a = json_pack("{s:[s]}", "command", "python3");
    assert_null(policy_check_arguments(p, "terminal_start", a));
    json_decref(a);
    a = json_pack("{s:[s]}", "command", "bashx");
    char *why = policy_check_arguments(p, "terminal_start", a);
    assert_non_null(why);
    assert_non_null(strstr(why, "terminal_start may not run \"bashx\": allowed commands are "
                                "bash, /usr/bin/py* (policy rules.terminal_start.commands)"));
    free(why);
    json_decref(a);
    a = json_pack("{s:[s]}", "command", "/tmp/python3");
    why = policy_check_arguments(p, "terminal_start", a);
    assert_non_null(why);
    free(why);
    json_decref(a);
    /* A bare name is the system's program, not a look-alike elsewhere. */
    a = json_pack("{s:[s]}", "command", "/tmp/x/bash");
    why = policy_check_arguments(p, "terminal_start", a);
    assert_non_null(why);
    free(why);
    json_decref(a);
    a = json_pack("{s:[s]}", "command", "/bin/bash"); /* /bin is /usr/bin here */
    assert_null(policy_check_arguments(p, "terminal_start", a));
    json_decref(a);
    a = json_pack("{s:[s], s:{s:s}}", "command", "bash", "env", "PATH", "/tmp/x");
    why = policy_check_arguments(p, "terminal_start", a);
    assert_non_null(why);
    assert_non_null(strstr(why, "may not set the environment variable \"PATH\""));
    free(why);
    json_decref(a);

    a = json_pack("{s:[s]}", "command", "xterm");
    why = policy_check_arguments(p, "launch_app", a);
    assert_non_null(why);
    assert_non_null(strstr(why, "rules.launch_app.commands"));
    free(why);
    json_decref(a);

    a = json_pack("{s:s}", "display", ":1");
    why = policy_check_arguments(p, "desktop_start", a);
    assert_non_null(why);
    assert_non_null(strstr(why, "attach to display \":1\""));
    free(why);
    json_decref(a);
    a = json_pack("{s:s}", "display", ":0");
    assert_null(policy_check_arguments(p, "desktop_start", a));
    json_decref(a);
    a = json_object(); /* a private desktop needs no rule */
    assert_null(policy_check_arguments(p, "desktop_start", a));
    json_decref(a);

    a = json_pack("{s:s}", "url", "https://user@docs.example.com:8443/x?y");
    assert_null(policy_check_arguments(p, "open_url", a));
    json_decref(a);
    a = json_pack("{s:s}", "url", "https://example.com.evil.net/");
    why = policy_check_arguments(p, "open_url", a);
    assert_non_null(why);
    assert_non_null(strstr(why, "may not reach \"example.com.evil.net\""));
    free(why);
    json_decref(a);

    assert_true(policy_input_blocked(p, "Enter Password", "Zenity"));
    assert_true(policy_input_blocked(p, "Vault", "KeePassXC"));
    assert_false(policy_input_blocked(p, "Notes", "Gedit"));
    policy_destroy(p);

    /* Without a displays rule, attaching is refused and says how to allow it. */
    p = parse("{\"allow\":[\"desktop_start\"]}", &err);
    a = json_pack("{s:s}", "display", ":0");
    why = policy_check_arguments(p, "desktop_start", a);
    assert_non_null(strstr(why, "list it in rules.desktop_start.displays"));
    free(why);
    json_decref(a);
    policy_destroy(p);

    assert_null(parse("{\"rules\":{\"terminal_start\":{\"hosts\":[\"x\"]}}}", &err));
    assert_non_null(
        strstr(err, "unknown field \"rules.terminal_start.hosts\" (expected commands, env)"));
    free(err);
    err = NULL;
    assert_null(parse("{\"rules\":{\"ssh\":{}}}", &err));
    assert_non_null(strstr(err, "unknown field \"rules.ssh\""));
    free(err);
    err = NULL;
    assert_null(parse("{\"rules\":{\"launch_app\":{\"apps\":\"zenity\"}}}", &err));
    assert_non_null(strstr(err, "\"rules.launch_app.apps\" must be an array"));
    free(err);
}

/* Token buckets: a burst, then one call per refill interval; the refusal
 * says when to retry; the global bucket counts every tool. */
static void test_rate_limits(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse("{\"allow\":[\"*\"],\"rate_limits\":{\"global\":{\"per_second\":100,"
                             "\"burst\":5},\"tools\":{\"type_text\":{\"per_second\":2,\"burst\":"
                             "2}}}}",
                             &err);
    assert_non_null(p);
    uint64_t retry = 0;
    assert_null(policy_rate_check(p, "type_text", 1000, &retry));
    assert_null(policy_rate_check(p, "type_text", 1000, &retry));
    char *why = policy_rate_check(p, "type_text", 1000, &retry);
    assert_non_null(why);
    assert_int_equal(retry, 500);
    assert_non_null(strstr(why, "Rate limit for type_text: 2 per second (burst 2); retry after "
                                "0.5 s (policy rate_limits.tools.type_text)"));
    free(why);
    /* Other tools only meet the global bucket (3 of its 5 left). */
    for (int i = 0; i < 3; i++)
        assert_null(policy_rate_check(p, "screenshot", 1000, &retry));
    why = policy_rate_check(p, "screenshot", 1000, &retry);
    assert_non_null(strstr(why, "Rate limit for all tools"));
    free(why);
    /* Half a second later type_text has a token again (and the global one). */
    assert_null(policy_rate_check(p, "type_text", 1500, &retry));
    policy_destroy(p);

    assert_null(parse("{\"rate_limits\":{\"tools\":{\"x\":{\"burst\":3}}}}", &err));
    assert_non_null(strstr(err, "\"rate_limits.tools.x\" needs one of per_second or per_minute"));
    free(err);
    err = NULL;
    assert_null(parse("{\"rate_limits\":{\"global\":{\"per_second\":-1}}}", &err));
    assert_non_null(strstr(err, "\"rate_limits.global.per_second\" must be a number above 0"));
    free(err);
}

/* What `glovebox policy check` prints for each tool. */
static void test_explain(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse(
        "{\"allow\":[\"terminal_*\"],\"deny\":[\"terminal_stop\"],\"confirm\":[\"type_text\"]}",
        &err);
    const char *cases[][2] = {
        {"terminal_start", "allowed (allow \"terminal_*\")"},
        {"terminal_stop", "denied (deny \"terminal_stop\")"},
        {"type_text", "needs confirmation (confirm \"type_text\")"},
        {"click", "denied (not in allow)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *why = policy_explain(p, cases[i][0], false);
        assert_string_equal(why, cases[i][1]);
        free(why);
    }
    char *why = policy_explain(p, "screenshot", true);
    assert_string_equal(why, "allowed (read-only)");
    free(why);
    policy_destroy(p);
}

/* policy_warnings(p) as lines. */
static char *warning_lines(const struct policy *p, size_t *count)
{
    json_t *w = policy_warnings(p);
    *count = json_array_size(w);
    size_t len = 1;
    for (size_t i = 0; i < *count; i++)
        len += strlen(json_string_value(json_array_get(w, i))) + 1;
    char *out = calloc(1, len);
    for (size_t i = 0; i < *count; i++) {
        strcat(out, json_string_value(json_array_get(w, i)));
        strcat(out, "\n");
    }
    json_decref(w);
    return out;
}

/* A policy naming a tool that does not exist is kept, with a warning
 * naming each such name and where it stands; real names and patterns that
 * match a tool give none. */
static void test_unknown_tools_warned(void **state)
{
    (void)state;
    char *err = NULL;
    struct policy *p = parse("{\"allow\":[\"terminal_*\",\"termnal_start\"],"
                             "\"deny\":[\"rdp_*\"],\"confirm\":[\"type_text\",\"typo_text\"],"
                             "\"rate_limits\":{\"tools\":{\"press_key\":{\"per_minute\":5},"
                             "\"press_keys\":{\"per_minute\":5}}}}",
                             &err);
    assert_non_null(p);
    size_t n;
    char *text = warning_lines(p, &n);
    assert_int_equal(n, 4);
    assert_non_null(strstr(text, "\"allow\" names \"termnal_start\", but no tool has that name; "
                                 "it has no effect"));
    assert_non_null(strstr(text, "\"deny\" names \"rdp_*\", but no tool matches that pattern"));
    assert_non_null(strstr(text, "\"confirm\" names \"typo_text\""));
    assert_non_null(strstr(text, "\"rate_limits.tools\" names \"press_keys\""));
    assert_null(strstr(text, "\"terminal_*\""));
    free(text);
    /* The policy still does what it says for the names that exist. */
    assert_true(policy_allows(p, "terminal_start", false));
    policy_destroy(p);

    p = parse("{\"allow\":[\"*\"],\"deny\":[\"set_mode\"]}", &err);
    text = warning_lines(p, &n);
    assert_int_equal(n, 0);
    free(text);
    policy_destroy(p);
}

/* A tool of a kind this build was configured without: naming it, rules
 * for it included, is a warning naming the tool and the kind, not an
 * error; the same file serves a fuller build. Runs last: the absent tool
 * stays registered until the group's teardown. */
static void test_absent_kind_tools_warned(void **state)
{
    (void)state;
    registry_add_absent("rdp_start", "a tool of rdp sessions, which this build was "
                                     "configured without (meson -Drdp=disabled)");
    char *err = NULL;
    struct policy *p = parse("{\"allow\":[\"rdp_*\",\"terminal_start\"],"
                             "\"rules\":{\"rdp_start\":{\"commands\":[\"x\"]},"
                             "\"terminal_start\":{\"commands\":[\"bash\"]}},"
                             "\"rate_limits\":{\"tools\":{\"rdp_start\":{\"per_minute\":5}}}}",
                             &err);
    assert_non_null(p);
    size_t n;
    char *text = warning_lines(p, &n);
    assert_int_equal(n, 3);
    assert_non_null(strstr(text, "\"allow\" names \"rdp_*\", which matches only "
                                 "rdp_start, a tool of rdp sessions, which this build "
                                 "was configured without (meson -Drdp=disabled); it has no "
                                 "effect"));
    assert_non_null(strstr(text, "\"rules.rdp_start\" is for rdp_start, a tool of "
                                 "rdp sessions"));
    assert_non_null(strstr(text, "\"rate_limits.tools\" names \"rdp_start\", a tool of "
                                 "rdp sessions"));
    free(text);
    /* The rules of the tools the build has still hold. */
    json_t *args = json_loads("{\"command\":[\"sh\"]}", 0, NULL);
    char *why = policy_check_arguments(p, "terminal_start", args);
    assert_non_null(why);
    assert_non_null(strstr(why, "rules.terminal_start.commands"));
    free(why);
    json_decref(args);
    policy_destroy(p);
    /* A typo is still refused. */
    assert_null(parse("{\"rules\":{\"rdp_strat\":{}}}", &err));
    assert_non_null(strstr(err, "unknown field \"rules.rdp_strat\" (no tool has this name"));
    free(err);
}

/* Which rules a section takes comes from the tool's facts. */
static void test_rule_kinds_from_tool_facts(void **state)
{
    (void)state;
    char *err = NULL;
    assert_null(parse("{\"rules\":{\"screenshot\":{\"commands\":[\"x\"]}}}", &err));
    assert_non_null(strstr(err,
                           "unknown field \"rules.screenshot\" (this tool takes no argument "
                           "rules; rules exist for terminal_start, desktop_start, launch_app"));
    free(err);
    err = NULL;
    assert_null(parse("{\"rules\":{\"terminl_start\":{\"commands\":[\"x\"]}}}", &err));
    assert_non_null(strstr(err, "unknown field \"rules.terminl_start\" (no tool has this name"));
    free(err);
    err = NULL;
    assert_null(parse("{\"rules\":{\"launch_app\":{\"env\":[\"X\"]}}}", &err));
    assert_non_null(strstr(err, "unknown field \"rules.launch_app.env\" (expected commands)"));
    free(err);
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
        cmocka_unit_test(test_argument_rules),
        cmocka_unit_test(test_rate_limits),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_unknown_tools_warned),
        cmocka_unit_test(test_rule_kinds_from_tool_facts),
        cmocka_unit_test(test_absent_kind_tools_warned),
    };
    return cmocka_run_group_tests(tests, register_tools, unregister_tools);
}
