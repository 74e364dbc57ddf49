/* The session table: one SQLite row per screen session glovebox started, kept
 * beside the audit log (DATA_DIR/sessions.db) so orchestrators can list the
 * sessions of earlier runs and a restarted server knows what the previous
 * one left behind (docs/rest.md). The rows live in memory as well; the loop
 * thread only ever reads memory, and writes go to disk on the worker pool,
 * one batch at a time, in order. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

struct session_table;

/* One session. Strings are copied in and out; endpoint never holds
 * credentials (session_table_clean_endpoint). */
struct session_row {
    char run[40];   /* "<pid>-<start ms>": the server run that started it */
    char id[48];    /* "terminal-1" (ids repeat across runs) */
    char kind[16];  /* "terminal", "desktop", … */
    char name[128]; /* "" when none */
    char owner[48]; /* the front door that started it: "rest", "mcp", "stdio", "" */
    bool shared;
    int64_t created_ms;       /* Unix ms */
    int64_t last_activity_ms; /* Unix ms */
    int64_t ended_ms;         /* Unix ms; 0 while not ended */
    char state[12];           /* "starting", "live", "stopping", "ended" */
    char end_reason[160];     /* how it ended: "server_exit", "idle", the backend's reason… */
    char endpoint[160];       /* display or URL, without credentials; "" when none */
    int width, height;        /* the screen in pixels when it has one; 0: none */
    char remote[128];         /* a remote session glovebox must delete (a farm's); "" */
    char credentials_env[64]; /* the variable the endpoint's credentials come from; "" */
};

/* Open (creating) the table at path. Rows of earlier runs whose server is no
 * longer running and that never ended are marked ended with "server_exit".
 * NULL with *err (malloc'd) on failure. Runs on the loop thread, once, at
 * start-up. */
struct session_table *session_table_open(uv_loop_t *loop, const char *path, char **err);
/* Write what is still unwritten, then close. Call once the loop has stopped.
 * Accepts NULL. */
void session_table_close(struct session_table *t);

/* Sessions of earlier runs that died (no server_exit of their own) holding
 * something remote: [{run, id, kind, endpoint, remote, credentials_env?}].
 * Found at open; borrowed until close. */
const json_t *session_table_orphans(const struct session_table *t);
/* This run's identity ("<pid>-<start ms>"). */
const char *session_table_run(const struct session_table *t);
/* Insert or update this run's row of row->id (row->run is set here). */
void session_table_put(struct session_table *t, const struct session_row *row);
/* This run's row of id, or NULL. The pointer stays valid until the next put. */
const struct session_row *session_table_find(const struct session_table *t, const char *id);
/* Note activity on this run's session id: memory only, so a call pays no
 * write; it reaches the disk with the session's next change, the next
 * session_table_flush, or at close. */
void session_table_touch(struct session_table *t, const char *id, int64_t now_ms);
/* Write what touches changed, unless such a write went out less than
 * SESSION_TABLE_TOUCH_WRITE_MS before now_ms (Unix ms): the HTTP transport
 * calls this every second, so a session's last_activity reaches the disk
 * within a second of a quiet spell's first call and at most every 10 s
 * while calls keep coming (a write costs a transaction and its fsyncs: once
 * a second, that was 8% of the server's CPU under a stream of calls). A
 * server killed by surprise loses at most the last 10 s of activity. Does
 * nothing when nothing was touched. */
#define SESSION_TABLE_TOUCH_WRITE_MS 10000
void session_table_flush(struct session_table *t, int64_t now_ms);
/* Ended sessions, newest first: this run's and earlier runs' (at most
 * SESSION_TABLE_KEEP of the earlier ones, read at open). */
#define SESSION_TABLE_KEEP 1000
json_t *session_table_list_ended(const struct session_table *t);
/* A row as the API shows it: {id, kind, name, state, created, last_activity,
 * ended, end_reason, endpoint, shared, run}. */
json_t *session_row_json(const struct session_row *row);
/* Copy url into out without any "user:password@" part. */
void session_table_clean_endpoint(const char *url, char *out, size_t cap);
