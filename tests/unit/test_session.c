/* The session registry: who may reach a session, what a name means once its
 * session ended, the starting state, the budget, and stopping every session
 * when stopping one ends it at once and may free others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "backend/backend.h"
#include "core/app.h"
#include "session/session.h"

/* A backend whose stop ends the session at once, as an attached desktop
 * with no programs does. */
static void stop_now(struct session *s)
{
    session_ended(s, "stopped");
}

static const struct backend_impl fake = {.kind = "fake", .stop = stop_now};

struct fixture {
    uv_loop_t loop;
    struct app app;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    uv_loop_init(&f->loop);
    f->app.loop = &f->loop;
    f->app.sessions = session_registry_create(&f->app);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    session_registry_destroy(f->app.sessions);
    uv_loop_close(&f->loop);
    free(f);
    return 0;
}

static struct session *start(struct fixture *f, const char *name, const char *owner, bool shared)
{
    struct session *s = session_add(f->app.sessions, &fake, name,
                                    &(struct session_client){.owner = owner, .shared = shared});
    session_set_live(s);
    return s;
}

static struct session *resolve(struct fixture *f, const char *owner, const char *id, char **err)
{
    *err = NULL;
    return session_resolve(f->app.sessions, owner, id, err);
}

static void another_clients_session_is_unknown(void **state)
{
    struct fixture *f = *state;
    struct session *b = start(f, "b-cat", "B", false);
    char *err;
    assert_ptr_equal(resolve(f, "B", NULL, &err), b);
    assert_null(resolve(f, "A", NULL, &err));
    assert_string_equal(err, "no session; start one first with terminal_start or desktop_start");
    free(err);
    assert_null(resolve(f, "A", b->id, &err));
    assert_string_equal(err, "unknown session \"fake-1\"; live sessions: none");
    free(err);
    assert_null(resolve(f, "A", "b-cat", &err));
    free(err);
    json_t *list = session_registry_list(f->app.sessions, "A", true);
    assert_int_equal(json_array_size(list), 0);
    json_decref(list);
    /* Shared: reachable by id and name, listed, never A's default. */
    struct session *shared = start(f, "shared", "B", true);
    assert_ptr_equal(resolve(f, "A", "shared", &err), shared);
    assert_ptr_equal(resolve(f, "A", shared->id, &err), shared);
    assert_null(resolve(f, "A", NULL, &err));
    free(err);
    session_registry_stop_all(f->app.sessions, NULL, NULL);
}

static void stateless_sessions_are_capabilities(void **state)
{
    struct fixture *f = *state;
    struct session *anon = start(f, "anon", NULL, false);
    assert_int_equal(strlen(anon->id), strlen("fake-1-") + 16);
    char *err;
    assert_null(resolve(f, NULL, NULL, &err));
    assert_non_null(strstr(err, "stateless request has no default session"));
    free(err);
    assert_ptr_equal(resolve(f, NULL, anon->id, &err), anon);
    assert_null(resolve(f, NULL, "anon", &err));
    free(err);
    struct session *mine = start(f, NULL, "A", false);
    assert_null(resolve(f, NULL, mine->id, &err));
    free(err);
    session_registry_stop_all(f->app.sessions, NULL, NULL);
}

static void a_name_finds_the_live_session_else_the_newest_ended(void **state)
{
    struct fixture *f = *state;
    struct session *old = start(f, "cat", "A", false);
    session_stop(old, "exited");
    char *err;
    assert_ptr_equal(resolve(f, "A", "cat", &err), old);
    struct session *newer = start(f, "cat", "A", false);
    assert_ptr_equal(resolve(f, "A", "cat", &err), newer);
    session_stop(newer, "exited");
    assert_ptr_equal(resolve(f, "A", "cat", &err), newer);
}

static void live_waiters(struct session *s, void *ud)
{
    *(int *)ud = s->was_live ? 1 : -1;
}

static void starting_until_set_live(void **state)
{
    struct fixture *f = *state;
    struct session *s =
        session_add(f->app.sessions, &fake, NULL, &(struct session_client){.owner = "A"});
    json_t *j = session_to_json(s);
    assert_string_equal(json_string_value(json_object_get(j, "state")), "starting");
    json_decref(j);
    int heard = 0;
    session_when_live(s, live_waiters, &heard);
    assert_int_equal(heard, 0);
    session_set_live(s);
    assert_int_equal(heard, 1);
    /* A start that fails tells its waiters the session never went live. */
    struct session *failed =
        session_add(f->app.sessions, &fake, NULL, &(struct session_client){.owner = "A"});
    heard = 0;
    session_when_live(failed, live_waiters, &heard);
    session_stop(failed, "could not start");
    assert_int_equal(heard, -1);
    session_registry_stop_all(f->app.sessions, NULL, NULL);
}

static void budget_per_client_and_server(void **state)
{
    struct fixture *f = *state;
    session_registry_configure(f->app.sessions, false, 3, 2);
    char *err = NULL;
    start(f, NULL, "A", false);
    struct session *a2 = start(f, NULL, "A", false);
    assert_false(session_registry_admit(f->app.sessions, "A", &err));
    assert_non_null(strstr(err, "a client may run at most 2 at once"));
    free(err);
    assert_true(session_registry_admit(f->app.sessions, "B", &err));
    start(f, NULL, "B", false);
    assert_false(session_registry_admit(f->app.sessions, "B", &err));
    assert_non_null(strstr(err, "this server runs at most 3 at once (--max-sessions)"));
    free(err);
    session_stop(a2, "done");
    assert_true(session_registry_admit(f->app.sessions, "A", &err));
    session_registry_stop_all(f->app.sessions, NULL, NULL);
}

static void all_stopped(void *ud)
{
    (*(int *)ud)++;
}

/* 40 sessions that end inside session_stop: more than the ended sessions
 * kept, so pruning used to free the one the loop stood on. */
static void stop_all_with_sessions_that_end_at_once(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < 40; i++)
        start(f, NULL, i % 2 ? "A" : "B", false);
    int done = 0;
    session_registry_stop_all(f->app.sessions, all_stopped, &done);
    assert_int_equal(done, 1);
    assert_int_equal(session_registry_live_count(f->app.sessions), 0);
}

static void release_owner_stops_its_own_unshared(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < 40; i++)
        start(f, NULL, "A", i == 7);
    start(f, NULL, "B", false);
    assert_int_equal(session_registry_release_owner(f->app.sessions, "A"), 39);
    assert_int_equal(session_registry_live_count(f->app.sessions), 2);
    session_registry_stop_all(f->app.sessions, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(another_clients_session_is_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(stateless_sessions_are_capabilities, setup, teardown),
        cmocka_unit_test_setup_teardown(a_name_finds_the_live_session_else_the_newest_ended, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(starting_until_set_live, setup, teardown),
        cmocka_unit_test_setup_teardown(budget_per_client_and_server, setup, teardown),
        cmocka_unit_test_setup_teardown(stop_all_with_sessions_that_end_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(release_owner_stops_its_own_unshared, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
