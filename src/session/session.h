/* The registry of screens glovebox drives. Each session is one backend
 * instance: a terminal program, a desktop, a remote connection. A session
 * belongs to the client that started it (docs/tools.md "Who may reach a
 * session"): other clients neither list nor reach it unless it was started
 * shared or the server shares every session (--shared-sessions). A session
 * that ended (its program exited, or session_stop) stays listed for a while
 * so a late caller learns why it is gone. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct app;
struct backend_impl;

enum session_state {
    SESSION_STARTING, /* registered; the backend is not ready: no backend field may be read */
    SESSION_LIVE,     /* usable */
    SESSION_STOPPING, /* stop requested, backend releasing its resources */
    SESSION_ENDED,    /* nothing left running; kept to report why */
};

/* The owner of sessions started over the REST API (/v1): every holder of
 * the server's token is the same client there (docs/rest.md). */
#define SESSION_OWNER_REST "rest"

/* Who starts a session, copied into it by session_add. */
struct session_client {
    /* The client it belongs to: an MCP session id (HTTP), a stdio
     * connection's key; NULL for a stateless request, which identifies no
     * client: its session gets an unguessable id that works as a capability. */
    const char *owner;
    bool shared; /* every client may list and reach it */
};

struct session {
    char id[48]; /* "terminal-1": kind and a number never reused in this process; sessions
                    of stateless requests add a random suffix ("terminal-2-9f…") */
    char *name;  /* optional label given by the client; NULL if none */
    const struct backend_impl *impl;
    void *backend; /* the backend's state, owned by it; read only once was_live */
    enum session_state state;
    bool was_live;                 /* it reached SESSION_LIVE: its backend is complete */
    char *end_reason;              /* why it ended, for messages; NULL while live */
    uint64_t started_ms, ended_ms; /* uv_now() times */
    struct session_registry *registry;
    struct session_waiter *waiters;      /* run once when the session ends */
    struct session_waiter *live_waiters; /* run once when it leaves SESSION_STARTING */
    int in_use;                          /* operations in flight on it; an ended session in use is
                                            not pruned (a worker job may still read it) */
    char *owner; /* see struct session_client; NULL: started by a stateless request */
    bool shared; /* started with shared: true */
    /* What happened to it lately (session_event): an array of {seq, type,
     * at_ms, …}, oldest first, at most SESSION_EVENTS_MAX; NULL: none yet. */
    json_t *events;
    uint64_t events_seq; /* seq of the latest event; 0: none */
    /* Changes not yet told to the observer (SESSION_CHANGED_* bits) and when
     * they will be (uv_now ms): see session_changed. */
    unsigned pending_changes;
    uint64_t notify_due_ms;
    /* Sampling a screen that reports no changes (session_observer.sample):
     * a look in flight, and a hash of the last one (sample_have). */
    bool sampling, sample_have;
    uint64_t sample_hash;
    struct session *next;
};

struct session_waiter {
    void (*ended)(struct session *s, void *ud);
    void *ud;
    struct session_waiter *next;
};

struct session_registry;

struct session_registry *session_registry_create(struct app *app);
/* All sessions must have ended (see session_registry_stop_all). */
void session_registry_destroy(struct session_registry *reg);

/* How many sessions that have not ended the server, and each client (all
 * stateless requests together count as one), may have; <= 0: no bound. */
#define SESSION_DEFAULT_MAX_TOTAL      128
#define SESSION_DEFAULT_MAX_PER_CLIENT 64
/* share_all: every session is every client's (--shared-sessions). */
void session_registry_configure(struct session_registry *reg, bool share_all, int max_total,
                                int max_per_client);
/* Whether who may start one more session; false with *err naming the limit. */
bool session_registry_admit(struct session_registry *reg, const char *owner, char **err);

/* Be told when any session is added (starting), becomes live and ends
 * (s->end_reason set): the session table and the REST API's idle timeouts
 * and event streams. At most SESSION_MAX_LISTENERS; runs on the loop and
 * must not add, stop or free sessions. */
#define SESSION_MAX_LISTENERS 4
void session_registry_listen(struct session_registry *reg,
                             void (*changed)(void *ud, struct session *s), void *ud);
/* Stop telling changed(ud, …). */
void session_registry_unlisten(struct session_registry *reg,
                               void (*changed)(void *ud, struct session *s), void *ud);

/* Register a new session of impl's kind in SESSION_STARTING; the backend
 * then sets s->backend and calls session_set_live once it is ready. name
 * may be NULL; who NULL: a stateless request. */
struct session *session_add(struct session_registry *reg, const struct backend_impl *impl,
                            const char *name, const struct session_client *who);
/* The backend is ready: tools may use it. Runs the live waiters. */
void session_set_live(struct session *s);
/* Run fn(s, ud) once s has left SESSION_STARTING (live, or ended without
 * ever being live: check s->was_live); at once if it has. The wait is
 * bounded by the backend's own start timeout. */
void session_when_live(struct session *s, void (*fn)(struct session *s, void *ud), void *ud);
/* Forget a waiter registered with session_when_live (a cancelled call). */
void session_forget_live_waiter(struct session *s, void *ud);

/* Find a session for a caller (owner as in struct session_client): id or
 * name given (a name means the live session of that name, else the newest
 * ended one), else the caller's most recently started live session (or,
 * when none is live, its newest ended one, so the caller can say how it
 * ended). A session the caller may not reach is answered exactly as one
 * that does not exist. NULL with *err set (listing the caller's live
 * sessions) when there is none; an ended or starting session may be
 * returned (callers check s->state). */
struct session *session_resolve(struct session_registry *reg, const char *owner,
                                const char *id_or_name, char **err);
/* An MCP session went away: stop the live sessions it started, unless they
 * are shared. Returns how many. */
int session_registry_release_owner(struct session_registry *reg, const char *owner);
/* Ask a live session to end. reason is kept for later callers. */
void session_stop(struct session *s, const char *reason);
/* Run ended(s, ud) once the session has ended (at once if it has). */
void session_when_ended(struct session *s, void (*ended)(struct session *s, void *ud), void *ud);
/* Called by the backend when it has released everything. */
void session_ended(struct session *s, const char *reason);

/* Stop every live session; done(ud) runs once all have ended (maybe at once). */
void session_registry_stop_all(struct session_registry *reg, void (*done)(void *ud), void *ud);
int session_registry_live_count(const struct session_registry *reg);
/* Every session, newest first (the live viewer shows a person all of them);
 * follow s->next. Do not keep the pointer past the current callback. */
struct session *session_registry_first(struct session_registry *reg);
/* The sessions owner may list: [{id, name, kind, state, age_ms, end_reason,
 * …describe()}]. */
json_t *session_registry_list(struct session_registry *reg, const char *owner, bool include_ended);
json_t *session_to_json(struct session *s);
/* The live sessions owner may list: "terminal-1, desktop-2" or "none".
 * Caller frees. */
char *session_registry_live_ids(const struct session_registry *reg, const char *owner);

/* The app reg was created with. */
struct app *session_registry_app(const struct session_registry *reg);

/* Watching sessions change (session_watch.c), for clients subscribed to a
 * session's resources. */
enum {
    SESSION_CHANGED_SCREEN = 1, /* what the screen shows (pixels, text, cursor) */
    SESSION_CHANGED_EVENTS = 2, /* a new entry in s->events */
};
#define SESSION_EVENTS_MAX 100
/* The default minimum gap between two notifications of one session. */
#define SESSION_NOTIFY_DEFAULT_MS 250

struct session_observer {
    /* Whether anyone listens to these changes of s now: nothing is timed
     * for changes nobody hears. */
    bool (*watched)(struct session *s, unsigned what, void *ud);
    /* The changes of s since the last call (bits), once per burst: at most
     * one call per session every interval_ms, interval_ms after the first
     * change it reports. Loop thread. */
    void (*changed)(struct session *s, unsigned what, void *ud);
    /* Look at the screen of s, whose backend reports no changes itself
     * (backend_impl.reports_changes false): called every SESSION_SAMPLE_MS
     * while s is live and its screen watched, never while a look is in
     * flight (s->sampling, set and cleared by the observer). */
    void (*sample)(struct session *s, void *ud);
    void *ud;
};
#define SESSION_SAMPLE_MS 1000
/* o (borrowed, outlives reg) hears about changes; interval_ms >= 0. */
void session_registry_observe(struct session_registry *reg, const struct session_observer *o,
                              int interval_ms);
/* Whether anyone listens to these changes of s now: a backend that must
 * look for changes (sample pixels) does so only then. Loop thread. */
bool session_is_watched(struct session *s, unsigned what);
/* The backend saw s change (what: SESSION_CHANGED_* bits). Cheap when
 * nobody watches; call as often as changes happen. Loop thread. */
void session_changed(struct session *s, unsigned what);
/* Something happened to s: appends {seq, type, at_ms (ms since the epoch),
 * …detail} to s->events (detail stolen: an object or NULL) and reports an
 * events change. type: "program_exited", "session_ended", "window_opened",
 * "window_closed", "window_focused". Loop thread. */
void session_event(struct session *s, const char *type, json_t *detail);
/* event(ud, s, e) hears each session event as it is appended (e borrowed);
 * unlisten with the same pair. Loop thread. */
void session_registry_listen_events(struct session_registry *reg,
                                    void (*event)(void *ud, struct session *s, const json_t *e),
                                    void *ud);
void session_registry_unlisten_events(struct session_registry *reg,
                                      void (*event)(void *ud, struct session *s, const json_t *e),
                                      void *ud);
