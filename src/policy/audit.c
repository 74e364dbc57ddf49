/* The audit log's queue and its writer thread. The loop thread only ever
 * appends to the queue under a mutex; everything that touches the disk
 * happens on the writer, so a slow, full or locked database costs the
 * server nothing but memory, and that is bounded. */
#define LOG_MODULE "audit"
#include "policy/audit.h"

#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <string.h>
#include <uv.h>

/* Rows per transaction: one fsync for many calls, yet short enough that a
 * reader waiting on the lock hardly notices (about 10 ms of inserts). At
 * 256 a server answering 1,300 calls a second committed 5 to 6 times a
 * second instead of the 4 that commit_ms allows. */
#define BATCH   1024
#define HOUR_MS 3600000ULL
/* Fewer than QUIET_ROWS calls followed by none for QUIET_MS are written
 * then, unless a transaction was committed less than commit_ms ago (a
 * busy server); more keep gathering for commit_ms. */
#define QUIET_MS   10
#define QUIET_ROWS 16

struct audit {
    char *path;
    int retention_days;
    size_t capacity, max_bytes;
    unsigned retry_ms, flush_ms, commit_ms;
    int busy_ms;
    struct call_observer observer;
    uv_thread_t thread;
    uv_mutex_t mu;
    uv_cond_t cond;

    /* Guarded by mu. */
    struct audit_row **ring; /* capacity slots, count used from head */
    size_t head, count;
    uint64_t oldest_ms; /* monotonic: when the oldest queued row came, 0 if it is due now */
    uint64_t newest_ms; /* monotonic: when the newest queued row came */
    size_t bytes;       /* text held in the ring */
    size_t held;        /* rows the writer took and has not written yet */
    uint64_t written, dropped;
    char *error;      /* what is wrong now, or NULL */
    char *last_error; /* the most recent problem, kept after recovery */
    bool stopping;

    uint64_t recreated; /* times the file vanished or was replaced under us */

    /* The writer's alone. */
    sqlite3 *db;
    struct audit_db_stmts stmts; /* prepared on db */
    struct audit_db_id id;       /* the file db has open */
    char *gone;                  /* the file was removed or replaced: said in the new one; NULL */
    struct audit_row *batch[BATCH];
    size_t batch_n;
    uint64_t next_expire_ms; /* monotonic */
    uint64_t last_write_ms;  /* monotonic: the last batch written; 0 for none */
};

static uint64_t mono_ms(void)
{
    return uv_hrtime() / 1000000;
}

/* The writer's alone. */
static void close_db(struct audit *a)
{
    audit_db_stmts_finish(&a->stmts);
    audit_db_close(a->db);
}

/* The row that starts a recreated log: whoever reads it learns that the
 * calls before it are missing, and why. */
static struct audit_row *gone_row(const char *what)
{
    struct audit_row *row = xcalloc(1, sizeof *row);
    row->time_ms = audit_now_ms();
    row->text[AUDIT_TOOL] = xstrdup("(audit log)");
    row->text[AUDIT_ARGUMENTS] = xstrdup("{}");
    row->text[AUDIT_DECISION] = xstrdup("recreated");
    row->text[AUDIT_OUTCOME] = xstrdup("error");
    row->text[AUDIT_ERROR] = xstrdup(what);
    row->text[AUDIT_NOTES] = xstrdup("{\"audit_log\":\"recreated\"}");
    return row;
}

/* Someone removed (rm audit.db*) or replaced the file the server writes:
 * rows would go to an unlinked inode and be lost. Checked on every flush;
 * then the log starts again in a new file at the same path. */
static void check_still_there(struct audit *a)
{
    struct audit_db_id now;
    bool present = audit_db_file_id(a->path, &now);
    if (present && now.dev == a->id.dev && now.ino == a->id.ino)
        return;
    free(a->gone);
    a->gone = xasprintf("the audit log %s was %s while glovebox was serving; calls recorded "
                        "before this row are not in this file",
                        a->path, present ? "replaced by another file" : "removed");
    log_error("AUDIT LOG %s: %s; starting a new one", present ? "REPLACED" : "REMOVED", a->gone);
    close_db(a);
    a->db = NULL;
    uv_mutex_lock(&a->mu);
    a->recreated++;
    free(a->last_error);
    a->last_error = xstrdup(a->gone);
    uv_mutex_unlock(&a->mu);
}

/* Open if needed, delete expired rows when due, insert the batch. Runs
 * without the lock. */
static bool write_batch(struct audit *a, char **err)
{
    if (a->db)
        check_still_there(a);
    if (!a->db) {
        a->db = audit_db_open_write(a->path, a->busy_ms, &a->id, err);
        if (!a->db)
            return false;
    }
    if (a->gone) {
        struct audit_row *row = gone_row(a->gone);
        bool ok = audit_db_insert(a->db, &a->stmts, &row, 1, err);
        audit_row_free(row);
        if (!ok)
            return false;
        free(a->gone);
        a->gone = NULL;
    }
    if (a->retention_days > 0 && mono_ms() >= a->next_expire_ms) {
        int64_t deleted = 0;
        int64_t before = audit_now_ms() - (int64_t)a->retention_days * 86400000;
        if (!audit_db_expire(a->db, before, &deleted, err))
            return false;
        if (deleted > 0)
            log_info("deleted %lld rows older than %d days", (long long)deleted, a->retention_days);
        a->next_expire_ms = mono_ms() + HOUR_MS;
    }
    return a->batch_n == 0 || audit_db_insert(a->db, &a->stmts, a->batch, a->batch_n, err);
}

static void cond_wait_ms(struct audit *a, uint64_t ms)
{
    uv_cond_timedwait(&a->cond, &a->mu, ms * 1000000);
}

/* Called with the lock held. */
static void note_result(struct audit *a, bool ok, char *err)
{
    if (ok) {
        a->written += a->batch_n;
        for (size_t i = 0; i < a->batch_n; i++)
            audit_row_free(a->batch[i]);
        a->batch_n = a->held = 0;
        if (a->error) {
            log_warn("audit log works again: %s (calls waiting: %zu)", a->path, a->count);
            free(a->error);
            a->error = NULL;
        }
        return;
    }
    /* The next write may go to a recreated file or directory. */
    close_db(a);
    a->db = NULL;
    /* Said once per distinct problem: a locked database is retried every
     * second and must not fill the log. */
    if (!a->error || strcmp(a->error, err) != 0)
        log_error("audit log cannot be written, retrying (calls waiting: %zu): %s",
                  a->count + a->batch_n, err);
    free(a->error);
    free(a->last_error);
    a->error = err;
    a->last_error = xstrdup(err);
}

static size_t row_bytes(const struct audit_row *row)
{
    size_t n = sizeof *row;
    for (int i = 0; i < AUDIT_TEXT_COUNT; i++)
        n += row->text[i] ? strlen(row->text[i]) + 1 : 0;
    return n;
}

/* The oldest queued row, taken out. Called with the lock held. */
static struct audit_row *ring_pop(struct audit *a)
{
    struct audit_row *row = a->ring[a->head];
    a->head = (a->head + 1) % a->capacity;
    a->count--;
    a->bytes -= row_bytes(row);
    return row;
}

/* Rows that make a batch worth writing without waiting for more. */
static size_t batch_max(const struct audit *a)
{
    return a->capacity < BATCH ? a->capacity : BATCH;
}

static void writer(void *arg)
{
    struct audit *a = arg;
    uint64_t stop_by = 0;  /* when stopping: give up on what is left at this time */
    uint64_t retry_at = 0; /* after a failure: the next attempt, not before */
    uv_mutex_lock(&a->mu);
    for (;;) {
        uint64_t now = mono_ms();
        if (a->stopping && !stop_by) {
            stop_by = now + a->flush_ms;
            retry_at = now; /* a last chance at once, whatever the back-off said */
        }
        if (a->stopping && ((a->count == 0 && a->batch_n == 0) || now >= stop_by))
            break;
        /* New calls wake us, but must not make a failing database be
         * tried more often than retry_ms. */
        if (now < retry_at) {
            cond_wait_ms(a, retry_at - now);
            continue;
        }
        /* Group commit: a transaction costs a few fsyncs whatever its
         * size, so while calls keep coming, one per commit_ms carries many
         * of them. A few calls that stop for QUIET_MS are written then: a
         * lone call reaches the file at once, as it always did. */
        if (!a->stopping && a->db && a->batch_n == 0 && a->count > 0 && a->count < batch_max(a)) {
            uint64_t due = a->oldest_ms + a->commit_ms;
            /* A pause of QUIET_MS in a steady stream of calls (32 clients
             * at a thousand calls a second pause that long several times a
             * second) would otherwise cost a transaction each: after a
             * write, rows wait for commit_ms whatever the pauses. */
            bool busy = a->last_write_ms && now < a->last_write_ms + a->commit_ms;
            if (!busy && a->count < QUIET_ROWS && a->newest_ms + QUIET_MS < due)
                due = a->newest_ms + QUIET_MS;
            if (now < due) {
                cond_wait_ms(a, due - now);
                continue;
            }
        }
        while (a->batch_n < BATCH && a->count > 0)
            a->batch[a->batch_n++] = ring_pop(a);
        a->oldest_ms = 0; /* what is left is a backlog: written at once */
        a->held = a->batch_n;
        bool expire_due = a->retention_days > 0 && now >= a->next_expire_ms;
        if (a->batch_n == 0 && !expire_due && a->db) {
            if (a->retention_days > 0)
                cond_wait_ms(a, a->next_expire_ms - now);
            else
                uv_cond_wait(&a->cond, &a->mu);
            continue;
        }
        uv_mutex_unlock(&a->mu);
        char *err = NULL;
        bool ok = write_batch(a, &err);
        uv_mutex_lock(&a->mu);
        if (ok && a->batch_n)
            a->last_write_ms = mono_ms();
        note_result(a, ok, err);
        /* Flushing at exit: try again soon, until the deadline. */
        retry_at = ok ? 0 : mono_ms() + (a->stopping ? 100 : a->retry_ms);
    }
    size_t lost = a->count + a->batch_n;
    if (lost)
        log_error("audit log: %zu calls not written at exit: %s", lost,
                  a->error ? a->error : "out of time");
    uv_mutex_unlock(&a->mu);
    close_db(a);
    a->db = NULL;
    free(a->gone);
    a->gone = NULL;
}

struct audit *audit_create(const struct audit_options *o)
{
    struct audit *a = xcalloc(1, sizeof *a);
    a->path = xstrdup(o->path);
    a->retention_days = o->retention_days;
    a->capacity = o->capacity ? o->capacity : 10000;
    a->max_bytes = o->max_bytes ? o->max_bytes : 64u << 20;
    a->retry_ms = o->retry_ms ? o->retry_ms : 1000;
    a->flush_ms = o->flush_ms ? o->flush_ms : 2000;
    a->busy_ms = o->busy_ms ? o->busy_ms : 100;
    a->commit_ms = o->commit_ms ? o->commit_ms : 250;
    a->ring = xcalloc(a->capacity, sizeof *a->ring);
    a->observer.ud = a;
    uv_mutex_init(&a->mu);
    uv_cond_init(&a->cond);
    if (uv_thread_create(&a->thread, writer, a) != 0) {
        log_error("cannot start the audit log's writer thread");
        abort();
    }
    return a;
}

void audit_destroy(struct audit *a)
{
    if (!a)
        return;
    uv_mutex_lock(&a->mu);
    a->stopping = true;
    uv_cond_signal(&a->cond);
    uv_mutex_unlock(&a->mu);
    uv_thread_join(&a->thread);
    for (size_t i = 0; i < a->count; i++)
        audit_row_free(a->ring[(a->head + i) % a->capacity]);
    for (size_t i = 0; i < a->batch_n; i++)
        audit_row_free(a->batch[i]);
    uv_cond_destroy(&a->cond);
    uv_mutex_destroy(&a->mu);
    free(a->ring);
    free(a->error);
    free(a->last_error);
    free(a->path);
    free(a);
}

void audit_add(struct audit *a, struct audit_row *row)
{
    row = audit_row_pack(row);
    size_t size = row_bytes(row);
    uv_mutex_lock(&a->mu);
    /* Memory stays bounded however long the database is away: by count,
     * and by size since one call's arguments can be large. */
    while (a->count > 0 && (a->count == a->capacity || a->bytes + size > a->max_bytes)) {
        audit_row_free(ring_pop(a));
        a->dropped++;
        if (a->dropped == 1 || a->dropped % 1000 == 0)
            log_error("audit log queue full: %llu oldest calls dropped so far",
                      (unsigned long long)a->dropped);
    }
    a->newest_ms = mono_ms();
    if (a->count == 0)
        a->oldest_ms = a->newest_ms;
    a->ring[(a->head + a->count) % a->capacity] = row;
    a->count++;
    a->bytes += size;
    /* The writer needs waking only for a first row (it may be waiting for
     * any) or a full batch; otherwise its commit_ms timer is due first, and
     * a wake per call would cost a context switch per call. */
    if (a->count == 1 || a->count == batch_max(a))
        uv_cond_signal(&a->cond);
    uv_mutex_unlock(&a->mu);
}

/* Paths and SQLite's messages need not be UTF-8; JSON strings must be. */
static json_t *text_or_null(const char *s)
{
    return s ? utf8_json_string(s, strlen(s)) : json_null();
}

json_t *audit_describe(struct audit *a)
{
    uv_mutex_lock(&a->mu);
    json_t *o =
        json_pack("{s:b, s:o, s:b, s:o, s:o, s:I, s:I, s:I, s:I, s:i}", "enabled", 1, "path",
                  text_or_null(a->path), "ok", a->error == NULL, "error", text_or_null(a->error),
                  "last_error", text_or_null(a->last_error), "written", (json_int_t)a->written,
                  "queued", (json_int_t)(a->count + a->held), "dropped", (json_int_t)a->dropped,
                  "recreated", (json_int_t)a->recreated, "retention_days", a->retention_days);
    uv_mutex_unlock(&a->mu);
    return o;
}

const struct call_observer *audit_observer(struct audit *a)
{
    a->observer.finished = audit_observe_call;
    a->observer.read = audit_observe_read;
    a->observer.event = audit_observe_event;
    return &a->observer;
}
