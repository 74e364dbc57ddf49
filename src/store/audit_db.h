/* The audit database: one SQLite table with a row per tools/call. Shared by
 * serve's writer thread (policy/audit.c) and `glovebox audit`. Every
 * function here may block on disk or on another process's lock, so none of
 * them runs on the loop thread. */
#pragma once
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The text columns of a row, in table order. */
enum audit_col {
    AUDIT_CLIENT_NAME,    /* from initialize's clientInfo */
    AUDIT_CLIENT_VERSION, /* " */
    AUDIT_TRANSPORT,      /* "stdio" | "http" */
    AUDIT_REMOTE,         /* "addr:port" (HTTP) */
    AUDIT_MCP_SESSION,    /* Mcp-Session-Id (HTTP) */
    AUDIT_SESSION,        /* the glovebox session the call acted on */
    AUDIT_TOOL,
    AUDIT_ARGUMENTS,    /* JSON object, secrets replaced by "[redacted]" */
    AUDIT_DECISION,     /* invalid | denied | allowed | … (the policy's note) */
    AUDIT_CONFIRMATION, /* the confirmation note: a string, or JSON text */
    AUDIT_OUTCOME,      /* ok | error | cancelled (the client gave up; nothing was sent) */
    AUDIT_ERROR,        /* the error text when outcome is error */
    AUDIT_NOTES,        /* every note, JSON object */
    AUDIT_TEXT_COUNT
};

/* Column names for enum audit_col, as in the table. */
extern const char *const audit_db_columns[AUDIT_TEXT_COUNT];

struct audit_row {
    int64_t time_ms;              /* Unix time in ms when the call arrived */
    int64_t duration_ms;          /* arrival to answer */
    char *text[AUDIT_TEXT_COUNT]; /* each malloc'd or NULL; inside the row when packed */
    bool packed;                  /* one block: the texts follow the struct */
    /* Bit i: text[i] is borrowed (not freed with the row), valid only until
     * the row is packed, which copies it. */
    uint32_t borrowed;
};

void audit_row_free(struct audit_row *row);
/* row as one block (row is freed). Rows are built on
 * the loop thread and freed on the audit writer's: a dozen small blocks
 * freed on another thread leave the loop thread's malloc cache empty, and
 * every allocation of the next call took malloc's slow path. */
struct audit_row *audit_row_pack(struct audit_row *row);

/* Unix time in milliseconds, now. */
int64_t audit_now_ms(void);
/* "2026-11-22T10:00:01.234Z" (UTC) into buf. */
void audit_format_time(int64_t time_ms, char buf[32]);

/* Which file a path names: compared on every flush to notice the log
 * being removed or replaced while the server runs. */
struct audit_db_id {
    uint64_t dev, ino;
};
/* false when path does not exist (or cannot be examined). */
bool audit_db_file_id(const char *path, struct audit_db_id *id);

/* Open the database for writing: the file is created (mode 0600, its
 * directory too), given a rollback journal (never WAL, whose mmap'd index
 * another process could truncate under us) and the table; SQLITE_BUSY
 * waits busy_ms at most. *id names the file opened. NULL with *err
 * (malloc'd) on failure. */
sqlite3 *audit_db_open_write(const char *path, int busy_ms, struct audit_db_id *id, char **err);
/* Open an existing database read-only, through the no-shared-memory VFS
 * (a -wal beside it is ignored; a log still in WAL mode is refused, naming
 * the fix). NULL with *err on failure. */
sqlite3 *audit_db_open_read(const char *path, char **err);
void audit_db_close(sqlite3 *db);

/* The statements audit_db_insert keeps prepared from one batch to the next
 * (a busy server writes a few batches a second; parsing them again each
 * time was a tenth of the writer's work). Start zeroed; finish before
 * closing the database they were prepared on. */
struct audit_db_stmts {
    sqlite3_stmt *begin, *insert, *insert_many, *commit;
};
void audit_db_stmts_finish(struct audit_db_stmts *keep);

/* Insert rows in one transaction: all or none. false with *err. */
bool audit_db_insert(sqlite3 *db, struct audit_db_stmts *keep, struct audit_row *const *rows,
                     size_t n, char **err);
/* Delete rows that arrived before before_ms; *deleted is how many. */
bool audit_db_expire(sqlite3 *db, int64_t before_ms, int64_t *deleted, char **err);
