/* The guard the gate hands each screen call: what the policy decided about
 * windows input may reach and areas to paint over, taken as a snapshot that
 * outlives a reload, so a call in flight keeps exactly what it was given. */
#include "tools/screen_guard.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "mcp/server.h"
#include "policy/policy.h"
#include "policy/screen.h"
#include "tools/tools.h"

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
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    char *err = NULL;
    struct policy *p = policy_create_from_json(doc, &err);
    json_decref(doc);
    if (!p)
        fail_msg("policy refused: %s", err);
    return p;
}

/* Asks g about a window; returns the refusal (malloc'd) or NULL. */
static char *refusal(const struct screen_guard *g, const char *title, const char *app)
{
    if (!g->input_allowed)
        return NULL;
    char *why = NULL;
    bool ok = g->input_allowed(g, title, app, &why);
    assert_true(ok == (why == NULL));
    return why;
}

static void test_no_rules_no_guard(void **state)
{
    (void)state;
    assert_ptr_equal(screen_guard_for(NULL), &screen_guard_none);
    struct policy *p = policy_create_default();
    assert_ptr_equal(screen_guard_for(p), &screen_guard_none);
    policy_destroy(p);
    p = parse("{\"allow\": [\"click\"], \"rules\": {\"launch_app\": {\"commands\": [\"xterm\"]}}}");
    const struct screen_guard *g = screen_guard_for(p);
    assert_ptr_equal(g, &screen_guard_none);
    assert_null(g->input_allowed);
    assert_int_equal(g->n_redact, 0);
    screen_guard_release(g);
    policy_destroy(p);
}

static void test_blocked_windows_and_apps(void **state)
{
    (void)state;
    struct policy *p =
        parse("{\"allow\": [\"click\"], \"rules\": {\"input\": "
              "{\"blocked_windows\": [\"*Vault*\"], \"blocked_apps\": [\"KeePassXC\"]}}}");
    const struct screen_guard *g = screen_guard_for(p);
    assert_non_null(g->input_allowed);
    assert_int_equal(g->n_redact, 0);
    char *why = refusal(g, "Secret Vault", "Zenity");
    assert_string_equal(why,
                        "Denied by policy: input to the window \"Secret Vault\" is blocked (it "
                        "matches \"*Vault*\" in rules.input.blocked_windows)");
    free(why);
    why = refusal(g, "Passwords", "KeePassXC");
    assert_string_equal(why, "Denied by policy: input to KeePassXC is blocked (it matches "
                             "\"KeePassXC\" in rules.input.blocked_apps)");
    free(why);
    assert_null(refusal(g, "Terminal", "XTerm"));
    /* A window without a title or class is not matched by a pattern. */
    assert_null(refusal(g, "", NULL));
    screen_guard_release(g);
    policy_destroy(p);
}

static void test_redact_areas(void **state)
{
    (void)state;
    struct policy *p =
        parse("{\"allow\": [\"click\"], \"redact\": [{\"x\": 1, \"y\": 2, \"width\": "
              "3, \"height\": 4}, {\"x\": 10, \"y\": 20, \"width\": 30, "
              "\"height\": 40}]}");
    const struct screen_guard *g = screen_guard_for(p);
    assert_int_equal(g->n_redact, 2);
    assert_int_equal(g->redact[0].x, 1);
    assert_int_equal(g->redact[0].y, 2);
    assert_int_equal(g->redact[0].width, 3);
    assert_int_equal(g->redact[0].height, 4);
    assert_int_equal(g->redact[1].x, 10);
    assert_int_equal(g->redact[1].height, 40);
    /* Redaction alone does not restrict input (clicks by element stay
     * accessibility actions). */
    assert_null(g->input_allowed);
    screen_guard_release(g);
    policy_destroy(p);
}

/* The user's and the project's policy add up, as the policy says. */
static void test_layers_add_up(void **state)
{
    (void)state;
    struct policy *user = parse("{\"allow\": [\"click\"], \"rules\": {\"input\": "
                                "{\"blocked_windows\": [\"*Vault*\"]}}, \"redact\": [{\"x\": 0, "
                                "\"y\": 0, \"width\": 5, \"height\": 5}]}");
    const struct screen_guard *before = screen_guard_for(user);
    struct policy *project = parse("{\"allow\": [\"click\"], \"rules\": {\"input\": "
                                   "{\"blocked_apps\": [\"Seahorse\"]}}, \"redact\": [{\"x\": 7, "
                                   "\"y\": 7, \"width\": 5, \"height\": 5}]}");
    policy_narrow_with(user, project);
    const struct screen_guard *g = screen_guard_for(user);
    assert_int_equal(g->n_redact, 2);
    assert_int_equal(g->redact[1].x, 7);
    char *why = refusal(g, "Keys", "Seahorse");
    assert_non_null(why);
    assert_non_null(strstr(why, "rules.input.blocked_apps"));
    free(why);
    why = refusal(g, "My Vault", "App");
    assert_non_null(strstr(why, "\"*Vault*\""));
    free(why);
    /* A guard taken before keeps what it was given. */
    assert_int_equal(before->n_redact, 1);
    assert_null(refusal(before, "Keys", "Seahorse"));
    screen_guard_release(before);
    screen_guard_release(g);
    policy_destroy(user);
}

struct asked {
    const struct screen_guard *g;
    char *why;
};

/* As the desktop's input thread asks. */
static void ask(void *arg)
{
    struct asked *a = arg;
    a->why = refusal(a->g, "Vault", "x");
}

/* A reload replaces and frees the policy while calls are in flight: their
 * guards keep working, on any thread, until they are answered. */
static void test_guard_outlives_reload(void **state)
{
    (void)state;
    struct policy *old = parse("{\"allow\": [\"click\"], \"rules\": {\"input\": "
                               "{\"blocked_windows\": [\"*Vault*\"]}}, \"redact\": [{\"x\": 1, "
                               "\"y\": 1, \"width\": 9, \"height\": 9}]}");
    const struct screen_guard *in_flight = screen_guard_for(old);
    const struct screen_guard *second = screen_guard_for(old);
    struct policy *next = parse("{\"allow\": [\"click\"]}");
    policy_destroy(old);
    assert_ptr_equal(screen_guard_for(next), &screen_guard_none);
    assert_int_equal(in_flight->n_redact, 1);
    assert_int_equal(in_flight->redact[0].width, 9);
    struct asked a = {in_flight, NULL};
    uv_thread_t thread;
    assert_int_equal(uv_thread_create(&thread, ask, &a), 0);
    assert_int_equal(uv_thread_join(&thread), 0);
    assert_non_null(a.why);
    free(a.why);
    screen_guard_release(in_flight);
    char *why;
    why = refusal(second, "Vault", "x");
    assert_non_null(why);
    free(why);
    screen_guard_release(second);
    policy_destroy(next);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_rules_no_guard),
        cmocka_unit_test(test_blocked_windows_and_apps),
        cmocka_unit_test(test_redact_areas),
        cmocka_unit_test(test_layers_add_up),
        cmocka_unit_test(test_guard_outlives_reload),
    };
    return cmocka_run_group_tests(tests, register_tools, unregister_tools);
}
