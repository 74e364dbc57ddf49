/* The audit log's queue and writer: rows reach the database; a locked or
 * unwritable database never blocks the caller, shows in the status and
 * is caught up on when the problem goes away; a full queue drops the
 * oldest rows and counts them; shutdown flushes; retention deletes. */
#include "core/xmalloc.h"
#include "policy/audit.h"
#include "store/audit_db.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <cmocka.h>

/* A temporary directory and the database path a test uses in it. */
struct place {
    char *dir, *path;
};

static struct place place_make(const char *name)
{
    char tmpl[] = "/tmp/gb-audit-unit-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    return (struct place){xstrdup(tmpl), xasprintf("%s/%s", tmpl, name)};
}

/* A file named "blocker" where the database's directory should be: nobody,
 * not even root, can create the database at blocker/audit.db. */
static struct place place_blocked(void)
{
    struct place pl = place_make("blocker/audit.db");
    char *blocker = xasprintf("%s/blocker", pl.dir);
    FILE *f = fopen(blocker, "w");
    assert_non_null(f);
    fclose(f);
    free(blocker);
    return pl;
}

/* Removes what the tests create; only ever our own mkdtemp directory, and
 * no shell involved. */
static void place_finish(struct place *pl)
{
    const char *names[] = {"audit.db",
                           "audit.db-wal",
                           "audit.db-shm",
                           "sub/audit.db",
                           "sub/audit.db-wal",
                           "sub/audit.db-shm",
                           "blocker/audit.db",
                           "blocker/audit.db-wal",
                           "blocker/audit.db-shm",
                           "blocker",
                           "sub"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = xasprintf("%s/%s", pl->dir, names[i]);
        if (unlink(p) != 0)
            rmdir(p);
        free(p);
    }
    rmdir(pl->dir);
    free(pl->dir);
    free(pl->path);
}

static struct audit_row *row(const char *tool, int64_t time_ms)
{
    struct audit_row *r = xcalloc(1, sizeof *r);
    r->time_ms = time_ms;
    r->duration_ms = 3;
    r->text[AUDIT_TOOL] = xstrdup(tool);
    r->text[AUDIT_ARGUMENTS] = xstrdup("{}");
    r->text[AUDIT_OUTCOME] = xstrdup("ok");
    r->text[AUDIT_DECISION] = xstrdup("allowed");
    return r;
}

static json_int_t stat_of(struct audit *a, const char *key)
{
    json_t *d = audit_describe(a);
    json_int_t v = json_integer_value(json_object_get(d, key));
    json_decref(d);
    return v;
}

static bool has_error(struct audit *a)
{
    json_t *d = audit_describe(a);
    bool e = json_is_string(json_object_get(d, "error"));
    json_decref(d);
    return e;
}

/* Polls until written reaches n (or 10 s pass). */
static void wait_written(struct audit *a, json_int_t n)
{
    for (int i = 0; i < 1000 && stat_of(a, "written") < n; i++)
        usleep(10000);
    assert_int_equal(stat_of(a, "written"), n);
}

static void wait_error(struct audit *a)
{
    for (int i = 0; i < 1000 && !has_error(a); i++)
        usleep(10000);
    assert_true(has_error(a));
}

static long long count_rows(const char *path, const char *where)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    /* The writer may hold its lock (opening, a batch, retention) just
     * when the test looks; wait for it as glovebox audit does. */
    sqlite3_busy_timeout(db, 10000);
    char *sql = xasprintf("SELECT count(*) FROM calls WHERE %s", where);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(sql);
    return n;
}

/* Retries quickly (50 ms) and waits for another process's lock 20 ms, so
 * the tests see problems and recoveries fast. */
static struct audit *start(const char *path, int retention_days, size_t capacity)
{
    return audit_create(&(struct audit_options){.path = path,
                                                .retention_days = retention_days,
                                                .capacity = capacity,
                                                .retry_ms = 50,
                                                .busy_ms = 20});
}

static void test_rows_are_written(void **state)
{
    (void)state;
    struct place pl = place_make("sub/audit.db"); /* the directory is created */
    struct audit *a = start(pl.path, 90, 0);
    for (int i = 0; i < 2100; i++) /* more than two batches */
        audit_add(a, row(i % 2 ? "status" : "type_text", audit_now_ms()));
    wait_written(a, 2100);
    assert_int_equal(stat_of(a, "queued"), 0);
    assert_false(has_error(a));
    audit_destroy(a);
    assert_int_equal(count_rows(pl.path, "tool = 'type_text' AND outcome = 'ok'"), 1050);
    struct stat sb;
    assert_int_equal(stat(pl.path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600); /* arguments can be private */
    place_finish(&pl);
}

/* Rows are written 16 to a statement, the rest one by one: each keeps
 * its place (ids in the order the calls came) and its own columns, and
 * the time text is the row's own (cached per second by the writer). */
static void test_rows_keep_their_order_and_columns(void **state)
{
    (void)state;
    struct place pl = place_make("audit.db");
    struct audit *a = audit_create(&(struct audit_options){.path = pl.path, .commit_ms = 60000});
    enum { N = 16 * 5 + 7 };
    const int64_t t0 = 1764000000000LL; /* 2025-11-24T16:00:00.000Z */
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "tool%d", i);
        /* 250 ms apart, so that rows cross seconds (and one goes back). */
        struct audit_row *r = row(name, i == 40 ? t0 - 1 : t0 + 250LL * i);
        r->duration_ms = i;
        if (i % 3 == 0)
            r->text[AUDIT_ERROR] = xasprintf("error %d", i);
        audit_add(a, r);
    }
    audit_destroy(a); /* writes the whole queue as one batch */

    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(pl.path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT tool, time_ms, time, duration_ms, error FROM calls "
                                        "ORDER BY id",
                                        -1, &st, NULL),
                     SQLITE_OK);
    int i = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; i++) {
        char name[16], when[32], error[32];
        snprintf(name, sizeof name, "tool%d", i);
        int64_t t = i == 40 ? t0 - 1 : t0 + 250LL * i;
        audit_format_time(t, when);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), name);
        assert_int_equal(sqlite3_column_int64(st, 1), t);
        assert_string_equal((const char *)sqlite3_column_text(st, 2), when);
        assert_int_equal(sqlite3_column_int64(st, 3), i);
        if (i % 3 == 0) {
            snprintf(error, sizeof error, "error %d", i);
            assert_string_equal((const char *)sqlite3_column_text(st, 4), error);
        } else {
            assert_int_equal(sqlite3_column_type(st, 4), SQLITE_NULL);
        }
    }
    assert_int_equal(i, N);
    sqlite3_finalize(st);
    sqlite3_close(db);
    place_finish(&pl);
}

/* The time text, as people read it in the sqlite3 shell. */
static void test_time_text(void **state)
{
    (void)state;
    char buf[32];
    audit_format_time(1764000000123LL, buf);
    assert_string_equal(buf, "2025-11-24T16:00:00.123Z");
    audit_format_time(1764000001005LL, buf);
    assert_string_equal(buf, "2025-11-24T16:00:01.005Z");
    audit_format_time(1764000000999LL, buf); /* the second before, again */
    assert_string_equal(buf, "2025-11-24T16:00:00.999Z");
    audit_format_time(-1, buf);
    assert_string_equal(buf, "1969-12-31T23:59:59.999Z");
}

/* Calls that keep coming share a transaction: with commit_ms a minute,
 * a burst of 100 rows waits in the queue (at most the first few, should
 * the test be paused 10 ms between two of them, are written on their own)
 * and shutdown writes them all. Without grouping, every row was written
 * within milliseconds of its arrival. */
static void test_busy_rows_share_a_transaction(void **state)
{
    (void)state;
    struct place pl = place_make("audit.db");
    struct audit *a = audit_create(&(struct audit_options){.path = pl.path, .commit_ms = 60000});
    /* A lone row is written at once (and the database is open). */
    audit_add(a, row("status", audit_now_ms()));
    wait_written(a, 1);
    for (int i = 0; i < 100; i++)
        audit_add(a, row("session_list", audit_now_ms()));
    usleep(300 * 1000);
    assert_true(stat_of(a, "written") < 1 + 100);
    assert_true(stat_of(a, "queued") > 0);
    audit_destroy(a);
    assert_int_equal(count_rows(pl.path, "tool = 'session_list'"), 100);
    place_finish(&pl);
}

static void test_locked_database_keeps_rows_queued(void **state)
{
    (void)state;
    struct place pl = place_make("audit.db");
    struct audit *a = start(pl.path, 0, 0);
    audit_add(a, row("status", audit_now_ms()));
    wait_written(a, 1);

    sqlite3 *other = NULL;
    assert_int_equal(sqlite3_open(pl.path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
    uint64_t t0 = uv_hrtime();
    for (int i = 0; i < 3; i++)
        audit_add(a, row("click", audit_now_ms()));
    /* Adding never waits for the database. */
    assert_true(uv_hrtime() - t0 < 50 * 1000000ULL);
    wait_error(a);
    assert_int_equal(stat_of(a, "queued"), 3);
    assert_int_equal(stat_of(a, "written"), 1);
    json_t *d = audit_describe(a);
    assert_false(json_is_true(json_object_get(d, "ok")));
    assert_non_null(strstr(json_string_value(json_object_get(d, "error")), "locked"));
    json_decref(d);

    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(other);
    wait_written(a, 4);
    assert_false(has_error(a));
    d = audit_describe(a);
    /* The problem is still told after it went away. */
    assert_true(json_is_string(json_object_get(d, "last_error")));
    json_decref(d);
    audit_destroy(a);
    assert_int_equal(count_rows(pl.path, "tool = 'click'"), 3);
    place_finish(&pl);
}

static void test_unwritable_location_then_fixed(void **state)
{
    (void)state;
    struct place pl = place_blocked();
    struct audit *a = start(pl.path, 90, 0);
    audit_add(a, row("status", audit_now_ms()));
    audit_add(a, row("status", audit_now_ms()));
    wait_error(a);
    assert_int_equal(stat_of(a, "queued"), 2);
    json_t *d = audit_describe(a);
    assert_string_equal(json_string_value(json_object_get(d, "path")), pl.path);
    assert_non_null(strstr(json_string_value(json_object_get(d, "error")), "cannot create"));
    json_decref(d);

    char *blocker = xasprintf("%s/blocker", pl.dir);
    assert_int_equal(unlink(blocker), 0);
    assert_int_equal(mkdir(blocker, 0700), 0);
    free(blocker);
    wait_written(a, 2);
    audit_destroy(a);
    assert_int_equal(count_rows(pl.path, "1"), 2);
    place_finish(&pl);
}

static void test_read_only_directory(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip(); /* root writes anywhere; the test above covers an unwritable place */
    struct place pl = place_make("audit.db");
    assert_int_equal(chmod(pl.dir, 0500), 0);
    struct audit *a = start(pl.path, 0, 0);
    audit_add(a, row("status", audit_now_ms()));
    wait_error(a);
    assert_int_equal(stat_of(a, "queued"), 1);
    assert_int_equal(chmod(pl.dir, 0700), 0);
    wait_written(a, 1);
    audit_destroy(a);
    place_finish(&pl);
}

/* A log that cannot write and holds no row. The writer's first pass opens
 * the database even with nothing queued (retention runs at start), fails,
 * and then waits retry_ms before it touches the queue again; nothing is
 * added before that failure is seen, so every row added afterwards stays
 * in the queue. (Adding a row first and waiting for the error raced: the
 * writer's first pass could run before or after the row arrived, so the
 * writer held one row or none, and the counts below moved by one.)
 * retry_ms is far longer than any test runs; destroy does not wait for it. */
static struct audit *start_stuck(const char *path, size_t capacity, size_t max_bytes)
{
    struct audit *a = audit_create(&(struct audit_options){.path = path,
                                                           .capacity = capacity,
                                                           .max_bytes = max_bytes,
                                                           .retry_ms = 600000,
                                                           .flush_ms = 200});
    wait_error(a);
    assert_int_equal(stat_of(a, "queued"), 0);
    return a;
}

static void test_full_queue_drops_oldest(void **state)
{
    (void)state;
    struct place pl = place_blocked();
    struct audit *a = start_stuck(pl.path, 5, 0);
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "tool%d", i);
        audit_add(a, row(name, audit_now_ms()));
    }
    assert_int_equal(stat_of(a, "dropped"), 3);
    assert_int_equal(stat_of(a, "queued"), 5); /* the capacity */
    audit_destroy(a); /* gives up after its flush time; frees what is left */

    /* Large calls: the bytes held are bounded too. Two rows of 1 MiB fit
     * in 3 MiB; a third (with its other columns) would not. */
    a = start_stuck(pl.path, 0, 3 * 1024 * 1024);
    for (int i = 0; i < 8; i++) {
        struct audit_row *big = row("big", audit_now_ms());
        free(big->text[AUDIT_ARGUMENTS]);
        big->text[AUDIT_ARGUMENTS] = xcalloc(1, 1024 * 1024 + 1);
        memset(big->text[AUDIT_ARGUMENTS], 'x', 1024 * 1024);
        audit_add(a, big);
    }
    assert_int_equal(stat_of(a, "dropped"), 6);
    assert_int_equal(stat_of(a, "queued"), 2);
    audit_destroy(a);
    place_finish(&pl);
}

static void test_shutdown_flushes_and_retention_deletes(void **state)
{
    (void)state;
    struct place pl = place_make("audit.db");
    int64_t now = audit_now_ms();
    struct audit *a = start(pl.path, 0, 0);
    audit_add(a, row("old", now - 100LL * 86400000));
    audit_add(a, row("recent", now - 10LL * 86400000));
    audit_destroy(a); /* no wait: destroy itself writes what is queued */
    assert_int_equal(count_rows(pl.path, "1"), 2);

    a = start(pl.path, 90, 0); /* retention runs at start */
    for (int i = 0; i < 500 && count_rows(pl.path, "tool = 'old'") > 0; i++)
        usleep(10000);
    audit_destroy(a);
    assert_int_equal(count_rows(pl.path, "tool = 'old'"), 0);
    assert_int_equal(count_rows(pl.path, "tool = 'recent'"), 1);
    place_finish(&pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_written),
        cmocka_unit_test(test_rows_keep_their_order_and_columns),
        cmocka_unit_test(test_time_text),
        cmocka_unit_test(test_busy_rows_share_a_transaction),
        cmocka_unit_test(test_locked_database_keeps_rows_queued),
        cmocka_unit_test(test_unwritable_location_then_fixed),
        cmocka_unit_test(test_read_only_directory),
        cmocka_unit_test(test_full_queue_drops_oldest),
        cmocka_unit_test(test_shutdown_flushes_and_retention_deletes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
