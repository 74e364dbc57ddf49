/* The audit log: every tools/call, kept in SQLite (store/audit_db.h).
 * Recording never blocks the loop and never stops the server: rows wait in
 * a bounded queue in memory; a writer thread inserts them in batches and,
 * when the database cannot take them (full disk, read-only, locked), keeps
 * them queued and tries again. When the queue is full the oldest row is
 * dropped and counted. status shows how it is going (audit_describe). */
#pragma once
#include "core/app.h"
#include "store/audit_db.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct audit_options {
    const char *path;   /* the database file (copied) */
    int retention_days; /* rows older are deleted at start and hourly; 0 keeps them all */
    size_t capacity;    /* rows held in memory at most; 0: 10000 */
    size_t max_bytes;   /* and their text at most this many bytes; 0: 64 MiB */
    unsigned retry_ms;  /* after a failure, wait this long before trying again; 0: 1000 */
    unsigned flush_ms;  /* audit_destroy keeps trying to write this long; 0: 2000 */
    int busy_ms;        /* how long one attempt waits for another process's lock; 0: 100 */
    unsigned commit_ms; /* a row waits at most this long for others to share its
                           transaction while calls keep coming (one commit, a few
                           fsyncs, per batch); 0: 250 */
};

struct audit;

/* Starts the writer thread; the database is opened there (a failure shows
 * in audit_describe and is retried). */
struct audit *audit_create(const struct audit_options *o);
/* Writes what is queued (for flush_ms at most), then stops. Accepts NULL. */
void audit_destroy(struct audit *a);

/* Queue a row (stolen). Never blocks for longer than a queue operation. */
void audit_add(struct audit *a, struct audit_row *row);

/* For status: {"enabled": true, "path", "ok", "error" (now, or null),
 * "last_error" (the most recent, or null), "written", "queued", "dropped",
 * "retention_days"}. */
json_t *audit_describe(struct audit *a);

/* The observer to install as app->call_observer: records each finished
 * tools/call (policy/audit_call.c). Lives as long as a. */
const struct call_observer *audit_observer(struct audit *a);

/* One row for a finished call (policy/audit_call.c): secrets redacted,
 * long strings shortened. */
struct tool_call;
struct audit_row *audit_row_from_call(const struct tool_call *call, const json_t *result);
/* struct call_observer's finished hook; ud is the struct audit. */
void audit_observe_call(void *ud, const struct tool_call *call, const json_t *result);
/* One row for a finished resources/read: tool "resources/read", arguments
 * {"uri"}, the session and the policy's decision (policy/audit_call.c). */
struct resource_read;
struct audit_row *audit_row_from_read(const struct resource_read *r, const char *error);
/* struct call_observer's read hook; ud is the struct audit. */
void audit_observe_read(void *ud, const struct resource_read *r, const char *error);
/* One row for an event a person caused (tool what, e.g.
 * "viewer/take_control"; transport "viewer"; arguments details), and the
 * observer's event hook for it. */
struct audit_row *audit_row_from_event(const char *what, const char *session,
                                       const json_t *details);
void audit_observe_event(void *ud, const char *what, const char *session, const json_t *details);
