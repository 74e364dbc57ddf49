/* The session table: rows reach the database from the worker pool and back
 * into a new run's list; a run whose server is gone has its open sessions
 * marked ended (server_exit), a run still alive keeps them; endpoints lose
 * their credentials. */
#include "core/xmalloc.h"
#include "store/session_table.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <cmocka.h>

static char *dir_make(void)
{
    char tmpl[] = "/tmp/gb-sessions-unit-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    return xstrdup(tmpl);
}

static void dir_remove(char *dir)
{
    const char *names[] = {"sessions.db", "sessions.db-journal"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = xasprintf("%s/%s", dir, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(dir);
    free(dir);
}

static struct session_row row(const char *id, const char *state)
{
    struct session_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.kind, sizeof r.kind, "terminal");
    snprintf(r.owner, sizeof r.owner, "rest");
    snprintf(r.state, sizeof r.state, "%s", state);
    r.created_ms = r.last_activity_ms = 1000;
    return r;
}

/* Runs the loop until the table's writes are done. */
static void drain(uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_DEFAULT);
}

static const json_t *find(const json_t *list, const char *id)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) if (strcmp(json_string_value(json_object_get(v, "id")), id) ==
                                       0) return v;
    return NULL;
}

/* A row written with another run's name (that of a pid that no longer runs,
 * or of this test's parent, which does). */
static void put_as_run(const char *path, const char *run, const char *id)
{
    char *sql = xasprintf("sqlite3 %s \"INSERT INTO sessions (run, id, kind, name, owner, shared, "
                          "created_ms, last_activity_ms, state, end_reason, endpoint) VALUES "
                          "('%s', '%s', 'desktop', '', 'rest', 0, 5, 5, 'live', '', ':99')\"",
                          path, run, id);
    assert_int_equal(system(sql), 0);
    free(sql);
}

/* A new table in a new directory, on loop (initialised here). */
static struct session_table *table_new(uv_loop_t *loop, char **dir, char **path)
{
    *dir = dir_make();
    *path = xasprintf("%s/sessions.db", *dir);
    uv_loop_init(loop);
    char *err = NULL;
    struct session_table *t = session_table_open(loop, *path, &err);
    assert_non_null(t);
    return t;
}

static void test_rows_survive_a_restart(void **state)
{
    (void)state;
    char *dir, *path;
    uv_loop_t loop;
    struct session_table *t = table_new(&loop, &dir, &path);
    struct session_row a = row("terminal-1", "live");
    session_table_put(t, &a);
    struct session_row b = row("terminal-2", "ended");
    snprintf(b.end_reason, sizeof b.end_reason, "stopped");
    b.ended_ms = 2000;
    session_table_put(t, &b);
    session_table_touch(t, "terminal-1", 5000);
    assert_int_equal(session_table_find(t, "terminal-1")->last_activity_ms, 5000);
    drain(&loop);
    json_t *ended = session_table_list_ended(t);
    assert_int_equal(json_array_size(ended), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ended, 0), "id")),
                        "terminal-2");
    json_decref(ended);
    session_table_close(t);

    /* A dead run (pid 2^22+1 never exists: above pid_max's ceiling) and a
     * living one (our parent). */
    char dead[64], alive[64];
    snprintf(dead, sizeof dead, "%d-1", (1 << 22) + 1);
    snprintf(alive, sizeof alive, "%d-1", (int)getppid());
    put_as_run(path, dead, "desktop-7");
    put_as_run(path, alive, "desktop-8");

    char *err = NULL;
    t = session_table_open(&loop, path, &err);
    assert_non_null(t);
    ended = session_table_list_ended(t);
    /* terminal-1 was left live by the first run: a run of this very pid
     * that is not this run is an earlier life of the process's pid (a
     * container's pid 1 restarted), so over. */
    const json_t *t1 = find(ended, "terminal-1");
    assert_non_null(t1);
    assert_string_equal(json_string_value(json_object_get(t1, "end_reason")), "server_exit");
    const json_t *d7 = find(ended, "desktop-7");
    assert_non_null(d7);
    assert_string_equal(json_string_value(json_object_get(d7, "end_reason")), "server_exit");
    assert_string_equal(json_string_value(json_object_get(d7, "endpoint")), ":99");
    assert_null(find(ended, "desktop-8")); /* its server still runs */
    const json_t *t2 = find(ended, "terminal-2");
    assert_non_null(t2);
    assert_string_equal(json_string_value(json_object_get(t2, "end_reason")), "stopped");
    json_decref(ended);
    session_table_close(t);
    uv_loop_close(&loop);
    free(path);
    dir_remove(dir);
}

/* What the database holds now for id's last_activity_ms, read by another
 * process (as an orchestrator would after the server was killed). */
static long long disk_activity(const char *path, const char *id)
{
    char *cmd = xasprintf("sqlite3 -cmd '.timeout 5000' %s \"SELECT last_activity_ms FROM "
                          "sessions WHERE id = '%s'\"",
                          path, id);
    FILE *f = popen(cmd, "r");
    free(cmd);
    assert_non_null(f);
    long long v = -1;
    if (fscanf(f, "%lld", &v) != 1)
        v = -1;
    pclose(f);
    return v;
}

static void test_touches_reach_the_disk_on_flush(void **state)
{
    (void)state;
    char *dir, *path;
    uv_loop_t loop;
    struct session_table *t = table_new(&loop, &dir, &path);
    struct session_row a = row("terminal-1", "live");
    session_table_put(t, &a);
    drain(&loop);
    assert_int_equal(disk_activity(path, "terminal-1"), 1000);
    /* A touch alone stays in memory (no write per call)… */
    session_table_touch(t, "terminal-1", 7000);
    drain(&loop);
    assert_int_equal(session_table_find(t, "terminal-1")->last_activity_ms, 7000);
    assert_int_equal(disk_activity(path, "terminal-1"), 1000);
    /* …until the flush, which writes it without a close. */
    int64_t now = 1000000;
    session_table_flush(t, now);
    drain(&loop);
    assert_int_equal(disk_activity(path, "terminal-1"), 7000);
    /* Touched again soon after: the next write waits for its turn… */
    session_table_touch(t, "terminal-1", 8000);
    session_table_flush(t, now + SESSION_TABLE_TOUCH_WRITE_MS - 1);
    drain(&loop);
    assert_int_equal(disk_activity(path, "terminal-1"), 7000);
    session_table_flush(t, now + SESSION_TABLE_TOUCH_WRITE_MS);
    drain(&loop);
    assert_int_equal(disk_activity(path, "terminal-1"), 8000);
    session_table_close(t);
    uv_loop_close(&loop);
    free(path);
    dir_remove(dir);
}

static void test_endpoints_lose_credentials(void **state)
{
    (void)state;
    char out[160];
    session_table_clean_endpoint("https://user:secret@hub.example:4444/wd/hub", out, sizeof out);
    assert_string_equal(out, "https://hub.example:4444/wd/hub");
    session_table_clean_endpoint("http://127.0.0.1:9515/path@x", out, sizeof out);
    assert_string_equal(out, "http://127.0.0.1:9515/path@x");
    session_table_clean_endpoint(":99", out, sizeof out);
    assert_string_equal(out, ":99");
    session_table_clean_endpoint("key@device-farm", out, sizeof out);
    assert_string_equal(out, "device-farm");
}

static void test_unopenable_table_says_why(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char *err = NULL;
    struct session_table *t = session_table_open(&loop, "/proc/no/such/sessions.db", &err);
    assert_null(t);
    assert_non_null(err);
    assert_non_null(strstr(err, "/proc/no/such"));
    free(err);
    uv_loop_close(&loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_survive_a_restart),
        cmocka_unit_test(test_touches_reach_the_disk_on_flush),
        cmocka_unit_test(test_endpoints_lose_credentials),
        cmocka_unit_test(test_unopenable_table_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
