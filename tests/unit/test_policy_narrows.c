/* Which policy reloads apply at once (provably no wider) and which wait for
 * glovebox policy apply, and how a project's policy layers over the user's
 * or, without one, over the read-only default. */
#include "policy/policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static struct policy *parse(const char *text)
{
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    assert_non_null(doc);
    char *err = NULL;
    struct policy *p = policy_create_from_json(doc, &err);
    json_decref(doc);
    if (!p)
        fail_msg("%s: %s", text, err);
    return p;
}

/* NULL when to is no wider than from, else the reason. */
static char *widening(const char *to, const char *from)
{
    struct policy *t = parse(to), *f = parse(from);
    char *why = policy_widening(t, f);
    policy_destroy(t);
    policy_destroy(f);
    return why;
}

static void test_narrower_applies(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        /* to, from */
        {"{\"allow\": [\"a\"]}", "{\"allow\": [\"a\", \"b\"]}"},
        {"{\"allow\": [\"a\"], \"deny\": [\"x\"]}", "{\"allow\": [\"a\"]}"},
        {"{\"mode\": \"assist\"}", "{\"mode\": \"autopilot\"}"},
        {"{\"allow\": [\"a\"], \"confirm\": [\"a\"]}", "{\"allow\": [\"a\"]}"},
        {"{\"rules\": {\"terminal_start\": {\"commands\": [\"bash\"]}}}",
         "{\"rules\": {\"terminal_start\": {\"commands\": [\"bash\", \"sh\"]}}}"},
        {"{\"rules\": {\"terminal_start\": {\"commands\": [\"bash\"]}}}", "{}"},
        {"{\"rules\": {\"input\": {\"blocked_windows\": [\"*Vault*\", \"*Pass*\"]}}}",
         "{\"rules\": {\"input\": {\"blocked_windows\": [\"*Vault*\"]}}}"},
        {"{\"rate_limits\": {\"global\": {\"per_second\": 5, \"burst\": 5}}}", "{}"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char *why = widening(pairs[i][0], pairs[i][1]);
        if (why)
            fail_msg("%s -> %s counted as widening: %s", pairs[i][1], pairs[i][0], why);
    }
}

static void test_wider_waits(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        /* to, from, the reason names */
        {"{\"allow\": [\"a\", \"*\"]}", "{\"allow\": [\"a\"]}", "\"allow\" gains \"*\""},
        {"{\"allow\": [\"a\"]}", "{\"allow\": [\"a\"], \"deny\": [\"x\"]}", "\"deny\" loses \"x\""},
        {"{\"mode\": \"autopilot\"}", "{\"mode\": \"assist\"}", "rises from assist to autopilot"},
        {"{\"allow\": [\"a\"]}", "{\"allow\": [\"a\"], \"confirm\": [\"a\"]}",
         "\"confirm\" loses \"a\""},
        {"{}", "{\"rules\": {\"terminal_start\": {\"commands\": [\"bash\"]}}}",
         "rules.terminal_start.commands is gone"},
        {"{\"rules\": {\"terminal_start\": {\"commands\": [\"bash\", \"python3\"]}}}",
         "{\"rules\": {\"terminal_start\": {\"commands\": [\"bash\"]}}}",
         "rules.terminal_start.commands gains \"python3\""},
        {"{\"rules\": {\"terminal_start\": {\"env\": [\"FOO\"]}}}", "{}",
         "rules.terminal_start.env gains \"FOO\""},
        {"{\"rules\": {\"input\": {\"blocked_apps\": []}}}",
         "{\"rules\": {\"input\": {\"blocked_apps\": [\"KeePassXC\"]}}}",
         "rules.input.blocked_apps loses \"KeePassXC\""},
        {"{}", "{\"rate_limits\": {\"global\": {\"per_second\": 5, \"burst\": 5}}}",
         "\"rate_limits\" change"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *why = widening(cases[i][0], cases[i][1]);
        if (!why)
            fail_msg("%s -> %s not counted as widening", cases[i][1], cases[i][0]);
        if (!strstr(why, cases[i][2]))
            fail_msg("%s -> %s: \"%s\" does not say %s", cases[i][1], cases[i][0], why,
                     cases[i][2]);
        free(why);
    }
    struct policy *all = policy_create_allow_all(), *def = policy_create_default();
    char *why = policy_widening(all, def);
    assert_non_null(why);
    assert_string_equal(why, "every tool becomes allowed");
    free(why);
    assert_null(policy_widening(def, NULL));
    policy_destroy(all);
    policy_destroy(def);
}

static char *write_file(const char *text)
{
    char *path = strdup("/tmp/gb-narrows-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* A project file alone narrows the read-only default: {"allow": ["*"]}
 * from a cloned repository allows nothing that changes anything. */
static void test_project_alone_narrows_the_default(void **state)
{
    (void)state;
    char *project = write_file("{\"mode\": \"autopilot\", \"allow\": [\"*\"]}");
    char *err = NULL;
    struct policy *p = policy_load_layers(NULL, project, &err);
    assert_non_null(p);
    assert_null(policy_source(p));
    assert_non_null(policy_narrowed_by(p));
    assert_string_equal(policy_source(policy_narrowed_by(p)), project);
    assert_false(policy_allows(p, "terminal_start", false));
    assert_false(policy_allows(p, "type_text", false));
    assert_true(policy_allows(p, "screenshot", true));
    char *why = policy_refusal(p, "terminal_start", false);
    assert_non_null(why);
    assert_non_null(strstr(why, "no policy of your own"));
    assert_null(strstr(why, "write ./.glovebox"));
    free(why);
    policy_destroy(p);

    /* It still takes away: a project deny hides a read-only tool. */
    char *denying = write_file("{\"deny\": [\"screenshot\"]}");
    p = policy_load_layers(NULL, denying, &err);
    assert_non_null(p);
    assert_false(policy_allows(p, "screenshot", true));
    assert_true(policy_allows(p, "read_text", true));
    policy_destroy(p);

    /* Over a user file, the user's allow is the ceiling. */
    char *user = write_file("{\"allow\": [\"terminal_start\"]}");
    p = policy_load_layers(user, project, &err);
    assert_non_null(p);
    assert_true(policy_allows(p, "terminal_start", false));
    assert_false(policy_allows(p, "type_text", false));
    policy_destroy(p);

    assert_null(policy_load_layers(NULL, NULL, &err));
    assert_null(err);
    unlink(project);
    unlink(denying);
    unlink(user);
    free(project);
    free(denying);
    free(user);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrower_applies),
        cmocka_unit_test(test_wider_waits),
        cmocka_unit_test(test_project_alone_narrows_the_default),
    };
    return cmocka_run_group_tests(tests, register_tools, unregister_tools);
}
