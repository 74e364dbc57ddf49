/* The registry of screens glovebox drives. Each session is one backend
 * instance: a terminal program, a desktop, a remote connection. Sessions are
 * owned by the server, not by a client connection. A session that ended (its
 * program exited, or session_stop) stays listed for a while so a late caller
 * learns why it is gone. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct app;
struct backend_impl;

enum session_state {
    SESSION_LIVE,     /* usable */
    SESSION_STOPPING, /* stop requested, backend releasing its resources */
    SESSION_ENDED,    /* nothing left running; kept to report why */
};

struct session {
    char id[32]; /* "terminal-1": kind and a number never reused in this process */
    char *name;  /* optional label given by the client; NULL if none */
    const struct backend_impl *impl;
    void *backend; /* the backend's state, owned by it */
    enum session_state state;
    char *end_reason;              /* why it ended, for messages; NULL while live */
    uint64_t started_ms, ended_ms; /* uv_now() times */
    struct session_registry *registry;
    struct session_waiter *waiters; /* run once when the session ends */
    int in_use;                     /* operations in flight on it; an ended session in use is
                                       not pruned (a worker job may still read it) */
    char *owner; /* the MCP session (HTTP) that started it; NULL: nobody in particular */
    bool shared; /* another MCP session has used it: it is no longer its owner's alone */
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

/* Register a new live session of impl's kind; the backend then sets
 * s->backend. name may be NULL. */
struct session *session_add(struct session_registry *reg, const struct backend_impl *impl,
                            const char *name);
/* Find a session for a tool: id (or name) given, else the most recently
 * started live session (or, when none is live, the newest ended one, so the
 * caller can say how it ended). NULL with *err set (listing the live
 * sessions) when there is none; an ended session may be returned (callers
 * check s->state). */
struct session *session_resolve(struct session_registry *reg, const char *id_or_name, char **err);
/* Who started it, and who uses it: owner is an MCP session id (NULL for
 * stdio and stateless requests, which no client can lose). */
void session_set_owner(struct session *s, const char *owner);
void session_note_user(struct session *s, const char *user);
/* An MCP session expired: stop the live sessions it alone started. Returns
 * how many. */
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
/* [{id, name, kind, state, started_ms_ago, end_reason, …describe()}] */
json_t *session_registry_list(struct session_registry *reg, bool include_ended);
json_t *session_to_json(struct session *s);
/* "terminal-1, desktop-2" or "none". Caller frees. */
char *session_registry_live_ids(const struct session_registry *reg);
