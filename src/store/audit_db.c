/* The audit database's schema, and the few statements that write it. */
#include "store/audit_db.h"

#include "core/paths.h"
#include "core/xmalloc.h"
#include "store/nowal_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const audit_db_columns[AUDIT_TEXT_COUNT] = {
    [AUDIT_CLIENT_NAME] = "client_name",
    [AUDIT_CLIENT_VERSION] = "client_version",
    [AUDIT_TRANSPORT] = "transport",
    [AUDIT_REMOTE] = "remote",
    [AUDIT_MCP_SESSION] = "mcp_session",
    [AUDIT_SESSION] = "session",
    [AUDIT_TOOL] = "tool",
    [AUDIT_ARGUMENTS] = "arguments",
    [AUDIT_DECISION] = "decision",
    [AUDIT_CONFIRMATION] = "confirmation",
    [AUDIT_OUTCOME] = "outcome",
    [AUDIT_ERROR] = "error",
    [AUDIT_NOTES] = "notes",
};

/* time is time_ms as text so that people using the sqlite3 shell can read it. */
static const char SCHEMA[] = "CREATE TABLE IF NOT EXISTS calls ("
                             "id INTEGER PRIMARY KEY,"
                             "time_ms INTEGER NOT NULL,"
                             "time TEXT NOT NULL,"
                             "client_name TEXT, client_version TEXT, transport TEXT,"
                             "remote TEXT, mcp_session TEXT, session TEXT,"
                             "tool TEXT NOT NULL, arguments TEXT NOT NULL,"
                             "decision TEXT, confirmation TEXT,"
                             "outcome TEXT NOT NULL, error TEXT,"
                             "duration_ms INTEGER NOT NULL, notes TEXT);"
                             "CREATE INDEX IF NOT EXISTS calls_time ON calls(time_ms);";

#define INSERT_HEAD                                                                                \
    "INSERT INTO calls (time_ms, time, client_name, client_version, "                              \
    "transport, remote, mcp_session, session, tool, arguments, decision, "                         \
    "confirmation, outcome, error, notes, duration_ms) VALUES "
#define ONE_ROW "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
static const char INSERT[] = INSERT_HEAD ONE_ROW;
/* Rows per statement of a batch: each statement's start and end (its
 * halt, its reset) cost as much as a row's own work. Rows of one
 * statement get their ids in the order given. */
#define MANY           16
#define PARAMS_PER_ROW (2 + AUDIT_TEXT_COUNT + 1)

void audit_row_free(struct audit_row *row)
{
    if (!row)
        return;
    if (!row->packed)
        for (int i = 0; i < AUDIT_TEXT_COUNT; i++)
            if (!(row->borrowed & (1u << i)))
                free(row->text[i]);
    free(row);
}

struct audit_row *audit_row_pack(struct audit_row *row)
{
    size_t len[AUDIT_TEXT_COUNT];
    size_t total = sizeof *row;
    for (int i = 0; i < AUDIT_TEXT_COUNT; i++) {
        len[i] = row->text[i] ? strlen(row->text[i]) + 1 : 0;
        total += len[i];
    }
    struct audit_row *packed = xmalloc(total);
    *packed = *row;
    packed->packed = true;
    packed->borrowed = 0;
    char *p = (char *)(packed + 1);
    for (int i = 0; i < AUDIT_TEXT_COUNT; i++) {
        if (!row->text[i])
            continue;
        memcpy(p, row->text[i], len[i]);
        packed->text[i] = p;
        p += len[i];
    }
    audit_row_free(row);
    return packed;
}

int64_t audit_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void audit_format_time(int64_t time_ms, char buf[32])
{
    /* gmtime_r + strftime + snprintf for every row was a tenth of the
     * writer's time; a batch's rows share their second. */
    static _Thread_local int64_t last_secs = INT64_MIN;
    static _Thread_local char last[24];
    static _Thread_local size_t last_len;
    int64_t secs = time_ms / 1000, ms = time_ms % 1000;
    if (ms < 0) {
        secs--;
        ms += 1000;
    }
    if (secs != last_secs) {
        time_t t = (time_t)secs;
        struct tm tm;
        gmtime_r(&t, &tm);
        last_len = strftime(last, sizeof last, "%Y-%m-%dT%H:%M:%S", &tm);
        last_secs = secs;
    }
    memcpy(buf, last, last_len);
    buf[last_len] = '.';
    buf[last_len + 1] = (char)('0' + ms / 100);
    buf[last_len + 2] = (char)('0' + ms / 10 % 10);
    buf[last_len + 3] = (char)('0' + ms % 10);
    buf[last_len + 4] = 'Z';
    buf[last_len + 5] = '\0';
}

static char *db_error(sqlite3 *db, const char *path, const char *what)
{
    return xasprintf("%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
}

/* SQLite would create the file with the umask's mode; arguments can be
 * private, so the file is made first, readable by its owner only. */
static bool create_private(const char *path, char **err)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    bool ok = true;
    if (slash && slash != dir) {
        *slash = '\0';
        ok = paths_mkdir_p(dir, err);
    }
    free(dir);
    if (!ok)
        return false;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        *err = xasprintf("cannot create %s: %s", path, strerror(errno));
        return false;
    }
    close(fd);
    return true;
}

/* Rollback journal, not WAL: WAL shares its index through a memory-mapped
 * -shm file, and any process of the same user truncating that file would
 * kill the server with SIGBUS on its next write. Readers (glovebox audit,
 * the sqlite3 shell) still read while the server runs; a reader holding
 * its lock only delays a batch, which then waits in the queue.
 * A database left in WAL mode (older glovebox, or a -wal file someone put
 * beside it) is taken over in exclusive mode, where SQLite keeps the WAL
 * index on the heap, and converted; the nowal VFS makes sure no path ever
 * maps shared memory.
 * The journal persists between transactions (its header zeroed, so it is
 * never taken for a hot one): creating and deleting the file for every
 * batch was half of the writer's time on a busy server. */
static const char SETUP[] = "PRAGMA locking_mode=EXCLUSIVE;"
                            "PRAGMA journal_mode=PERSIST;"
                            "PRAGMA locking_mode=NORMAL;"
                            "PRAGMA synchronous=NORMAL;";

sqlite3 *audit_db_open_write(const char *path, int busy_ms, struct audit_db_id *id, char **err)
{
    if (!create_private(path, err))
        return NULL;
    const char *vfs = nowal_vfs_name();
    if (!vfs) {
        *err = xasprintf("%s: cannot open: SQLite has no \"unix\" VFS", path);
        return NULL;
    }
    sqlite3 *db = NULL;
    /* NOMUTEX: the writer thread alone uses this connection, and SQLite's
     * own locking took a mutex around every bind and step (28 per row). */
    if (sqlite3_open_v2(path, &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
                        vfs) != SQLITE_OK) {
        *err = db_error(db, path, "cannot open");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, busy_ms);
    /* The schema statement is the first access after NORMAL: it ends the
     * exclusive lock, so readers get in from then on. */
    if (sqlite3_exec(db, SETUP, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, SCHEMA, NULL, NULL, NULL) != SQLITE_OK) {
        *err = db_error(db, path, "cannot set up");
        sqlite3_close(db);
        return NULL;
    }
    if (!audit_db_file_id(path, id)) {
        *err = xasprintf("%s: removed while being opened", path);
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

bool audit_db_file_id(const char *path, struct audit_db_id *id)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    id->dev = (uint64_t)st.st_dev;
    id->ino = (uint64_t)st.st_ino;
    return true;
}

/* Whether the file's header says WAL (bytes 18 and 19, the read and write
 * format versions, are 2): a log an older glovebox wrote, not converted
 * yet. Reading it would need the shared-memory index. */
static bool header_says_wal(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool wal = read(fd, h, sizeof h) == (ssize_t)sizeof h && (h[18] == 2 || h[19] == 2);
    close(fd);
    return wal;
}

sqlite3 *audit_db_open_read(const char *path, char **err)
{
    const char *vfs = nowal_vfs_reader_name();
    if (!vfs) {
        *err = xasprintf("%s: cannot open: SQLite has no \"unix\" VFS", path);
        return NULL;
    }
    if (header_says_wal(path)) {
        *err = xasprintf("%s: cannot read: the log is in WAL mode (an older glovebox wrote it); "
                         "glovebox serve converts it when it next starts",
                         path);
        return NULL;
    }
    /* The no-shared-memory VFS, as the writer uses: a -shm or -wal file
     * another process drops, truncates or replaces cannot crash the
     * reader (SIGBUS on a mapped page) while it reads or follows. */
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, vfs) != SQLITE_OK) {
        *err = db_error(db, path, "cannot open");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 2000);
    return db;
}

void audit_db_close(sqlite3 *db)
{
    sqlite3_close(db);
}

/* Binds row r as the statement's row k (from 0); when is its time's text,
 * which must stay until the statement has run. */
static void bind_row(sqlite3_stmt *st, int k, const struct audit_row *r, char when[32])
{
    int p = k * PARAMS_PER_ROW;
    audit_format_time(r->time_ms, when);
    sqlite3_bind_int64(st, p + 1, r->time_ms);
    sqlite3_bind_text(st, p + 2, when, -1, SQLITE_STATIC);
    for (int i = 0; i < AUDIT_TEXT_COUNT; i++) {
        if (r->text[i])
            sqlite3_bind_text(st, p + 3 + i, r->text[i], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, p + 3 + i);
    }
    sqlite3_bind_int64(st, p + 3 + AUDIT_TEXT_COUNT, r->duration_ms);
}

/* rows[0..n) with statements of MANY rows, then one at a time. */
static bool insert_rows(struct audit_db_stmts *keep, struct audit_row *const *rows, size_t n)
{
    char when[MANY][32];
    size_t i = 0;
    for (; keep->insert_many && i + MANY <= n; i += MANY) {
        sqlite3_reset(keep->insert_many);
        for (int k = 0; k < MANY; k++)
            bind_row(keep->insert_many, k, rows[i + (size_t)k], when[k]);
        if (sqlite3_step(keep->insert_many) != SQLITE_DONE)
            return false;
    }
    for (; i < n; i++) {
        sqlite3_reset(keep->insert);
        bind_row(keep->insert, 0, rows[i], when[0]);
        if (sqlite3_step(keep->insert) != SQLITE_DONE)
            return false;
    }
    return true;
}

/* The statement of MANY rows' text. */
static char *insert_many_sql(void)
{
    size_t head = sizeof INSERT_HEAD - 1, row = sizeof ONE_ROW - 1;
    char *sql = xmalloc(head + MANY * (row + 1));
    char *p = sql;
    memcpy(p, INSERT_HEAD, head);
    p += head;
    for (int k = 0; k < MANY; k++) {
        if (k)
            *p++ = ',';
        memcpy(p, ONE_ROW, row);
        p += row;
    }
    *p = '\0';
    return sql;
}

void audit_db_stmts_finish(struct audit_db_stmts *keep)
{
    sqlite3_finalize(keep->begin);
    sqlite3_finalize(keep->insert);
    sqlite3_finalize(keep->insert_many);
    sqlite3_finalize(keep->commit);
    *keep = (struct audit_db_stmts){0};
}

static bool prepared(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    return *st || sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK;
}

/* Runs a statement that returns no rows, leaving it ready to run again. */
static bool run(sqlite3_stmt *st)
{
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_reset(st);
    return ok;
}

bool audit_db_insert(sqlite3 *db, struct audit_db_stmts *keep, struct audit_row *const *rows,
                     size_t n, char **err)
{
    const char *file = sqlite3_db_filename(db, "main");
    if (!prepared(db, "BEGIN IMMEDIATE", &keep->begin) || !prepared(db, INSERT, &keep->insert) ||
        !prepared(db, "COMMIT", &keep->commit) || !run(keep->begin)) {
        *err = db_error(db, file, "cannot write");
        return false;
    }
    if (!keep->insert_many && n >= MANY) {
        /* Not fatal: rows go one at a time without it. */
        char *sql = insert_many_sql();
        prepared(db, sql, &keep->insert_many);
        free(sql);
    }
    bool ok = insert_rows(keep, rows, n);
    /* Bound text stays bound until the next row's: let go of the rows. */
    sqlite3_reset(keep->insert);
    sqlite3_clear_bindings(keep->insert);
    if (keep->insert_many) {
        sqlite3_reset(keep->insert_many);
        sqlite3_clear_bindings(keep->insert_many);
    }
    if (ok)
        ok = run(keep->commit);
    if (!ok) {
        *err = db_error(db, file, "cannot write");
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    return ok;
}

bool audit_db_expire(sqlite3 *db, int64_t before_ms, int64_t *deleted, char **err)
{
    sqlite3_stmt *st = NULL;
    bool ok =
        sqlite3_prepare_v2(db, "DELETE FROM calls WHERE time_ms < ?", -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(st, 1, before_ms);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    if (ok)
        *deleted = sqlite3_changes64(db);
    else
        *err = db_error(db, sqlite3_db_filename(db, "main"), "cannot delete old rows");
    sqlite3_finalize(st);
    return ok;
}
