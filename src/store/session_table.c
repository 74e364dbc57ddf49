/* The session table (session_table.h): memory for the loop, SQLite on the
 * worker pool. */
#define LOG_MODULE "sessions"
#include "store/session_table.h"

#include "core/log.h"
#include "core/paths.h"
#include "core/xmalloc.h"
#include "store/audit_db.h"

#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char SCHEMA[] = "PRAGMA journal_mode=PERSIST;"
                             "CREATE TABLE IF NOT EXISTS sessions ("
                             "run TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL,"
                             "name TEXT, owner TEXT, shared INTEGER NOT NULL,"
                             "created_ms INTEGER NOT NULL, last_activity_ms INTEGER NOT NULL,"
                             "ended_ms INTEGER, state TEXT NOT NULL, end_reason TEXT,"
                             "endpoint TEXT, width INTEGER, height INTEGER, remote TEXT,"
                             "credentials_env TEXT,"
                             "PRIMARY KEY (run, id));"
                             "CREATE INDEX IF NOT EXISTS sessions_created ON sessions(created_ms);";

static const char UPSERT[] =
    "INSERT OR REPLACE INTO sessions (run, id, kind, name, owner, shared, created_ms, "
    "last_activity_ms, ended_ms, state, end_reason, endpoint, width, height, remote, "
    "credentials_env) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

struct entry {
    struct session_row row;
    bool dirty; /* changed since it was last handed to the writer */
};

struct batch {
    uv_work_t work;
    struct session_table *t;
    struct session_row *rows;
    size_t n;
    bool ok;
};

struct session_table {
    uv_loop_t *loop;
    sqlite3 *db;
    char *path;
    char run[40];
    struct entry *cur; /* this run's sessions, oldest first */
    size_t n_cur, cap_cur;
    struct session_row *old; /* earlier runs' ended sessions, newest first */
    size_t n_old;
    json_t *orphans;          /* remote sessions of dead runs (session_table_orphans) */
    bool busy;                /* a batch is on the worker pool */
    bool touched;             /* a touch since the last session_table_flush */
    int64_t touch_written_ms; /* Unix ms of the last write session_table_flush made */
    bool failed_once;
};

static void copy_text(char *dst, size_t cap, const unsigned char *src)
{
    snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

/* Whether the server of run ("<pid>-<ms>") still runs: its pid exists. A
 * reused pid keeps a dead run's sessions open until that process ends,
 * which is only late, never wrong. */
static bool run_alive(const char *run)
{
    long pid = strtol(run, NULL, 10);
    if (pid <= 0)
        return false;
    if (pid == (long)getpid())
        return false; /* an earlier run with this pid (a container's pid 1) */
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Sessions of run that hold something remote (a farm's device) and were
 * never ended: what a kind should clean up now. */
static void collect_orphans(sqlite3 *db, const char *run, json_t *orphans)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT id, kind, endpoint, remote, credentials_env FROM sessions "
                           "WHERE run = ? AND state != 'ended' AND remote IS NOT NULL AND "
                           "remote != ''",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *cred = (const char *)sqlite3_column_text(st, 4);
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "run", run, "id",
                              (const char *)sqlite3_column_text(st, 0), "kind",
                              (const char *)sqlite3_column_text(st, 1), "endpoint",
                              (const char *)sqlite3_column_text(st, 2), "remote",
                              (const char *)sqlite3_column_text(st, 3));
        if (o && cred && *cred)
            json_object_set_new(o, "credentials_env", json_string(cred));
        if (o)
            json_array_append_new(orphans, o);
    }
    sqlite3_finalize(st);
}

static bool sweep_dead_runs(sqlite3 *db, json_t *orphans, char **err)
{
    sqlite3_stmt *sel = NULL, *upd = NULL;
    bool ok = sqlite3_prepare_v2(db, "SELECT DISTINCT run FROM sessions WHERE state != 'ended'", -1,
                                 &sel, NULL) == SQLITE_OK &&
              sqlite3_prepare_v2(db,
                                 "UPDATE sessions SET state='ended', end_reason='server_exit', "
                                 "ended_ms=? WHERE run=? AND state != 'ended'",
                                 -1, &upd, NULL) == SQLITE_OK;
    int64_t now = audit_now_ms();
    int n = 0;
    while (ok && sqlite3_step(sel) == SQLITE_ROW) {
        const char *run = (const char *)sqlite3_column_text(sel, 0);
        if (!run || run_alive(run))
            continue;
        collect_orphans(db, run, orphans);
        sqlite3_reset(upd);
        sqlite3_bind_int64(upd, 1, now);
        sqlite3_bind_text(upd, 2, run, -1, SQLITE_TRANSIENT);
        ok = sqlite3_step(upd) == SQLITE_DONE;
        n += sqlite3_changes(db);
    }
    if (!ok)
        *err = xasprintf("marking the sessions of earlier runs ended: %s", sqlite3_errmsg(db));
    else if (n)
        log_info("%d session(s) of an earlier run marked ended (server_exit)", n);
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    return ok;
}

static void read_row(sqlite3_stmt *st, struct session_row *r)
{
    memset(r, 0, sizeof *r);
    copy_text(r->run, sizeof r->run, sqlite3_column_text(st, 0));
    copy_text(r->id, sizeof r->id, sqlite3_column_text(st, 1));
    copy_text(r->kind, sizeof r->kind, sqlite3_column_text(st, 2));
    copy_text(r->name, sizeof r->name, sqlite3_column_text(st, 3));
    copy_text(r->owner, sizeof r->owner, sqlite3_column_text(st, 4));
    r->shared = sqlite3_column_int(st, 5) != 0;
    r->created_ms = sqlite3_column_int64(st, 6);
    r->last_activity_ms = sqlite3_column_int64(st, 7);
    r->ended_ms = sqlite3_column_int64(st, 8);
    copy_text(r->state, sizeof r->state, sqlite3_column_text(st, 9));
    copy_text(r->end_reason, sizeof r->end_reason, sqlite3_column_text(st, 10));
    copy_text(r->endpoint, sizeof r->endpoint, sqlite3_column_text(st, 11));
    r->width = sqlite3_column_int(st, 12);
    r->height = sqlite3_column_int(st, 13);
}

static bool load_old(struct session_table *t, char **err)
{
    sqlite3_stmt *st = NULL;
    char sql[384];
    snprintf(sql, sizeof sql,
             "SELECT run, id, kind, name, owner, shared, created_ms, last_activity_ms, ended_ms, "
             "state, end_reason, endpoint, width, height FROM sessions WHERE state = 'ended' "
             "ORDER BY created_ms DESC LIMIT %d",
             SESSION_TABLE_KEEP);
    if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
        *err = xasprintf("reading the session table: %s", sqlite3_errmsg(t->db));
        return false;
    }
    t->old = xcalloc(SESSION_TABLE_KEEP, sizeof *t->old);
    while (t->n_old < SESSION_TABLE_KEEP && sqlite3_step(st) == SQLITE_ROW)
        read_row(st, &t->old[t->n_old++]);
    sqlite3_finalize(st);
    return true;
}

struct session_table *session_table_open(uv_loop_t *loop, const char *path, char **err)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    bool ok = true;
    char *why = NULL;
    if (slash && slash != dir) {
        *slash = '\0';
        ok = paths_mkdir_p(dir, &why);
    }
    free(dir);
    if (!ok) {
        *err = xasprintf("%s: cannot create its directory: %s", path, why);
        free(why);
        return NULL;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        *err = xasprintf("%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    chmod(path, 0600);
    sqlite3_busy_timeout(db, 2000);
    struct session_table *t = xcalloc(1, sizeof *t);
    t->loop = loop;
    t->db = db;
    t->path = xstrdup(path);
    snprintf(t->run, sizeof t->run, "%ld-%lld", (long)getpid(), (long long)audit_now_ms());
    char *msg = NULL;
    if (sqlite3_exec(db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
        *err = xasprintf("%s: %s", path, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        session_table_close(t);
        return NULL;
    }
    /* A table made before the screen's size was kept gets its columns
     * (an error only says they are there already). */
    sqlite3_exec(db, "ALTER TABLE sessions ADD COLUMN width INTEGER", NULL, NULL, NULL);
    sqlite3_exec(db, "ALTER TABLE sessions ADD COLUMN height INTEGER", NULL, NULL, NULL);
    sqlite3_exec(db, "ALTER TABLE sessions ADD COLUMN remote TEXT", NULL, NULL, NULL);
    sqlite3_exec(db, "ALTER TABLE sessions ADD COLUMN credentials_env TEXT", NULL, NULL, NULL);
    char *e = NULL;
    t->orphans = json_array();
    if (!sweep_dead_runs(db, t->orphans, &e) || !load_old(t, &e)) {
        *err = xasprintf("%s: %s", path, e);
        free(e);
        session_table_close(t);
        return NULL;
    }
    return t;
}

const char *session_table_run(const struct session_table *t)
{
    return t->run;
}

static bool write_rows(sqlite3 *db, const struct session_row *rows, size_t n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return false;
    bool ok = sqlite3_prepare_v2(db, UPSERT, -1, &st, NULL) == SQLITE_OK;
    for (size_t i = 0; ok && i < n; i++) {
        const struct session_row *r = &rows[i];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, r->run, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, r->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, r->owner, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, r->shared);
        sqlite3_bind_int64(st, 7, r->created_ms);
        sqlite3_bind_int64(st, 8, r->last_activity_ms);
        if (r->ended_ms)
            sqlite3_bind_int64(st, 9, r->ended_ms);
        else
            sqlite3_bind_null(st, 9);
        sqlite3_bind_text(st, 10, r->state, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 11, r->end_reason, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 12, r->endpoint, -1, SQLITE_STATIC);
        if (r->width > 0 && r->height > 0) {
            sqlite3_bind_int(st, 13, r->width);
            sqlite3_bind_int(st, 14, r->height);
        } else {
            sqlite3_bind_null(st, 13);
            sqlite3_bind_null(st, 14);
        }
        sqlite3_bind_text(st, 15, r->remote, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 16, r->credentials_env, -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    sqlite3_finalize(st);
    ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    if (!ok)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return ok;
}

static void batch_work(uv_work_t *w)
{
    struct batch *b = w->data;
    b->ok = write_rows(b->t->db, b->rows, b->n);
}

static void flush(struct session_table *t);

static void batch_done(uv_work_t *w, int status)
{
    struct batch *b = w->data;
    struct session_table *t = b->t;
    t->busy = false;
    if ((status != 0 || !b->ok) && !t->failed_once) {
        /* Memory still has every row: the API keeps answering. */
        log_warn("%s: could not write the session table: %s", t->path, sqlite3_errmsg(t->db));
        t->failed_once = true;
    }
    free(b->rows);
    free(b);
    flush(t);
}

/* Hand the changed rows to the writer unless a batch is already out (the
 * next one follows it, so writes stay in order). */
static void flush(struct session_table *t)
{
    if (t->busy)
        return;
    size_t n = 0;
    for (size_t i = 0; i < t->n_cur; i++)
        n += t->cur[i].dirty;
    if (!n)
        return;
    struct batch *b = xcalloc(1, sizeof *b);
    b->t = t;
    b->rows = xcalloc(n, sizeof *b->rows);
    for (size_t i = 0; i < t->n_cur; i++) {
        if (t->cur[i].dirty) {
            b->rows[b->n++] = t->cur[i].row;
            t->cur[i].dirty = false;
        }
    }
    b->work.data = b;
    t->busy = true;
    uv_queue_work(t->loop, &b->work, batch_work, batch_done);
}

static struct entry *find_entry(const struct session_table *t, const char *id)
{
    for (size_t i = t->n_cur; i-- > 0;)
        if (strcmp(t->cur[i].row.id, id) == 0)
            return &t->cur[i];
    return NULL;
}

/* This run's rows beyond this many: the oldest ended ones leave memory (they
 * stay on disk). */
#define MAX_CURRENT 4096

static void drop_oldest_ended(struct session_table *t)
{
    for (size_t i = 0; i < t->n_cur; i++) {
        if (!t->cur[i].dirty && strcmp(t->cur[i].row.state, "ended") == 0) {
            memmove(&t->cur[i], &t->cur[i + 1], (t->n_cur - i - 1) * sizeof *t->cur);
            t->n_cur--;
            return;
        }
    }
}

void session_table_put(struct session_table *t, const struct session_row *row)
{
    struct entry *e = find_entry(t, row->id);
    if (!e) {
        if (t->n_cur >= MAX_CURRENT)
            drop_oldest_ended(t);
        if (t->n_cur == t->cap_cur) {
            t->cap_cur = t->cap_cur ? t->cap_cur * 2 : 16;
            t->cur = xrealloc(t->cur, t->cap_cur * sizeof *t->cur);
        }
        e = &t->cur[t->n_cur++];
    }
    e->row = *row;
    snprintf(e->row.run, sizeof e->row.run, "%s", t->run);
    e->dirty = true;
    flush(t);
}

const struct session_row *session_table_find(const struct session_table *t, const char *id)
{
    struct entry *e = find_entry(t, id);
    return e ? &e->row : NULL;
}

void session_table_touch(struct session_table *t, const char *id, int64_t now_ms)
{
    struct entry *e = find_entry(t, id);
    if (e && e->row.last_activity_ms < now_ms) {
        e->row.last_activity_ms = now_ms;
        e->dirty = true; /* written with the next change or flush */
        t->touched = true;
    }
}

void session_table_flush(struct session_table *t, int64_t now_ms)
{
    /* Most seconds nothing was touched: no walk over the rows. */
    if (!t || !t->touched || now_ms - t->touch_written_ms < SESSION_TABLE_TOUCH_WRITE_MS)
        return;
    t->touched = false;
    t->touch_written_ms = now_ms;
    flush(t);
}

json_t *session_row_json(const struct session_row *r)
{
    char created[32], active[32], ended[32];
    audit_format_time(r->created_ms, created);
    audit_format_time(r->last_activity_ms, active);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:s}", "id", r->id, "kind", r->kind,
                          "state", r->state, "created", created, "last_activity", active, "shared",
                          r->shared, "run", r->run);
    json_object_set_new(o, "name", r->name[0] ? json_string(r->name) : json_null());
    if (r->owner[0])
        json_object_set_new(o, "front_door", json_string(r->owner));
    if (r->ended_ms) {
        audit_format_time(r->ended_ms, ended);
        json_object_set_new(o, "ended", json_string(ended));
    }
    if (r->end_reason[0])
        json_object_set_new(o, "end_reason", json_string(r->end_reason));
    if (r->endpoint[0])
        json_object_set_new(o, "endpoint", json_string(r->endpoint));
    if (r->width > 0 && r->height > 0) {
        json_object_set_new(o, "width", json_integer(r->width));
        json_object_set_new(o, "height", json_integer(r->height));
    }
    return o;
}

json_t *session_table_list_ended(const struct session_table *t)
{
    json_t *arr = json_array();
    for (size_t i = t->n_cur; i-- > 0;)
        if (strcmp(t->cur[i].row.state, "ended") == 0)
            json_array_append_new(arr, session_row_json(&t->cur[i].row));
    for (size_t i = 0; i < t->n_old; i++)
        json_array_append_new(arr, session_row_json(&t->old[i]));
    return arr;
}

void session_table_clean_endpoint(const char *url, char *out, size_t cap)
{
    const char *scheme = strstr(url, "://");
    const char *auth = scheme ? scheme + 3 : url;
    const char *at = strchr(auth, '@');
    const char *slash = strchr(auth, '/');
    if (at && (!slash || at < slash))
        snprintf(out, cap, "%.*s%s", (int)(auth - url), url, at + 1);
    else
        snprintf(out, cap, "%s", url);
}

const json_t *session_table_orphans(const struct session_table *t)
{
    return t->orphans;
}

void session_table_close(struct session_table *t)
{
    if (!t)
        return;
    json_decref(t->orphans);
    t->orphans = NULL;
    /* The loop has stopped: no batch is out unless the server gave up on
     * its worker jobs, and then the database is left to that job. */
    if (!t->busy) {
        size_t n = 0;
        struct session_row *rows = xcalloc(t->n_cur + 1, sizeof *rows);
        for (size_t i = 0; i < t->n_cur; i++)
            if (t->cur[i].dirty)
                rows[n++] = t->cur[i].row;
        if (n && !write_rows(t->db, rows, n))
            log_warn("%s: could not write the session table: %s", t->path, sqlite3_errmsg(t->db));
        free(rows);
        sqlite3_close(t->db);
    }
    free(t->cur);
    free(t->old);
    free(t->path);
    free(t);
}
