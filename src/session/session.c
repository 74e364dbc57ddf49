#include "session/session.h"
#include "session/internal.h"

#define LOG_MODULE "session"
#include "backend/backend.h"
#include "core/app.h"
#include "core/check.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Ended sessions kept for "why is it gone" answers. */
#define MAX_ENDED_KEPT 32

void session_registry_listen(struct session_registry *reg,
                             void (*changed)(void *ud, struct session *s), void *ud)
{
    CHECK(reg->n_listeners < SESSION_MAX_LISTENERS);
    reg->listeners[reg->n_listeners].changed = changed;
    reg->listeners[reg->n_listeners].ud = ud;
    reg->n_listeners++;
}

void session_registry_unlisten(struct session_registry *reg,
                               void (*changed)(void *ud, struct session *s), void *ud)
{
    for (int i = 0; i < reg->n_listeners; i++) {
        if (reg->listeners[i].changed == changed && reg->listeners[i].ud == ud) {
            reg->listeners[i] = reg->listeners[--reg->n_listeners];
            return;
        }
    }
}

static void tell_listeners(struct session *s)
{
    struct session_registry *reg = s->registry;
    for (int i = 0; i < reg->n_listeners; i++)
        reg->listeners[i].changed(reg->listeners[i].ud, s);
}

struct session_registry *session_registry_create(struct app *app)
{
    struct session_registry *reg = xcalloc(1, sizeof *reg);
    reg->app = app;
    reg->next_number = 1;
    reg->max_total = SESSION_DEFAULT_MAX_TOTAL;
    reg->max_per_client = SESSION_DEFAULT_MAX_PER_CLIENT;
    return reg;
}

void session_registry_configure(struct session_registry *reg, bool share_all, int max_total,
                                int max_per_client)
{
    reg->share_all = share_all;
    reg->max_total = max_total;
    reg->max_per_client = max_per_client;
}

static bool same_owner(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether owner may see s in lists, reach it by name and (own sessions, or
 * everyone's under --shared-sessions) as its default. Sessions of stateless
 * requests belong to nobody: only their id, a capability, reaches them. */
static bool may_list(const struct session_registry *reg, const struct session *s, const char *owner)
{
    return reg->share_all || s->shared || (s->owner && same_owner(s->owner, owner));
}

/* Whether owner may reach s by its id. */
static bool may_reach_by_id(const struct session_registry *reg, const struct session *s,
                            const char *owner)
{
    return may_list(reg, s, owner) || !s->owner;
}

bool session_registry_admit(struct session_registry *reg, const char *owner, char **err)
{
    int total = 0, mine = 0;
    for (struct session *s = reg->head; s; s = s->next) {
        if (s->state == SESSION_ENDED)
            continue;
        total++;
        mine += same_owner(s->owner, owner);
    }
    if (reg->max_total > 0 && total >= reg->max_total) {
        *err = xasprintf("too many sessions: this server runs at most %d at once "
                         "(--max-sessions); stop one with session_stop first",
                         reg->max_total);
        return false;
    }
    if (reg->max_per_client > 0 && mine >= reg->max_per_client) {
        *err = xasprintf("too many sessions: a client may run at most %d at once "
                         "(--max-sessions-per-client); stop one of yours with session_stop "
                         "first",
                         reg->max_per_client);
        return false;
    }
    return true;
}

/* The only way a session's state changes. Starting -> live -> stopping ->
 * ended, where starting and live may go straight to stopping or ended, and
 * ended is final: callers rely on a session never going back to starting
 * (its backend is complete once was_live) and on an ended session never
 * running again (its waiters have been answered, it may be pruned). */
static void set_state(struct session *s, enum session_state to)
{
    CHECK(s->state != SESSION_ENDED);
    CHECK(to != SESSION_STARTING);
    CHECK(to != SESSION_LIVE || s->state == SESSION_STARTING);
    CHECK(to != SESSION_STOPPING || s->state != SESSION_STOPPING);
    s->state = to;
}

static void free_session(struct session *s)
{
    if (s->impl && s->impl->destroy && s->backend)
        s->impl->destroy(s);
    free(s->name);
    free(s->end_reason);
    free(s->owner);
    json_decref(s->events);
    free(s);
}

void session_registry_destroy(struct session_registry *reg)
{
    if (!reg)
        return;
    struct session *s = reg->head;
    while (s) {
        struct session *next = s->next;
        if (s->state != SESSION_ENDED)
            log_warn("session %s still %s at exit", s->id,
                     s->state == SESSION_STOPPING ? "stopping" : "live");
        free_session(s);
        s = next;
    }
    free(reg);
}

static void prune_ended(struct session_registry *reg);

/* 64 bits from the kernel's CSPRNG as hex: a stateless request's session id
 * is its only key, so it must not be guessable. */
static bool random_suffix(char out[17])
{
    uint8_t b[8];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return true;
}

struct session *session_add(struct session_registry *reg, const struct backend_impl *impl,
                            const char *name, const struct session_client *who)
{
    /* Pruning happens here, never while a session is ending: callers up the
     * stack of session_stop may still hold the sessions it would free. */
    prune_ended(reg);
    struct session *s = xcalloc(1, sizeof *s);
    char suffix[17];
    if (who && !who->owner) {
        if (!random_suffix(suffix)) {
            log_error("cannot read random bytes for a session id");
            abort();
        }
        snprintf(s->id, sizeof s->id, "%s-%u-%s", impl->kind, reg->next_number++, suffix);
    } else {
        snprintf(s->id, sizeof s->id, "%s-%u", impl->kind, reg->next_number++);
    }
    s->name = name ? xstrdup(name) : NULL;
    s->impl = impl;
    s->state = SESSION_STARTING;
    s->started_ms = uv_now(reg->app->loop);
    s->registry = reg;
    s->owner = who && who->owner ? xstrdup(who->owner) : NULL;
    s->shared = who && who->shared;
    s->next = reg->head;
    reg->head = s;
    log_info("session %s starting%s", s->id, s->shared ? " (shared)" : "");
    tell_listeners(s);
    return s;
}

static void run_waiters(struct session *s, struct session_waiter *w)
{
    while (w) {
        struct session_waiter *next = w->next;
        w->ended(s, w->ud);
        free(w);
        w = next;
    }
}

void session_set_live(struct session *s)
{
    if (s->state != SESSION_STARTING)
        return;
    set_state(s, SESSION_LIVE);
    s->was_live = true;
    log_info("session %s live", s->id);
    tell_listeners(s);
    struct session_waiter *w = s->live_waiters;
    s->live_waiters = NULL;
    run_waiters(s, w);
}

void session_when_live(struct session *s, void (*fn)(struct session *s, void *ud), void *ud)
{
    if (s->state != SESSION_STARTING) {
        fn(s, ud);
        return;
    }
    struct session_waiter *w = xcalloc(1, sizeof *w);
    w->ended = fn;
    w->ud = ud;
    w->next = s->live_waiters;
    s->live_waiters = w;
}

void session_forget_live_waiter(struct session *s, void *ud)
{
    for (struct session_waiter **pp = &s->live_waiters; *pp; pp = &(*pp)->next) {
        if ((*pp)->ud == ud) {
            struct session_waiter *w = *pp;
            *pp = w->next;
            free(w);
            return;
        }
    }
}

static bool running(const struct session *s)
{
    return s->state == SESSION_STARTING || s->state == SESSION_LIVE;
}

char *session_registry_live_ids(const struct session_registry *reg, const char *owner)
{
    struct strbuf sb;
    strbuf_init(&sb);
    for (struct session *s = reg->head; s; s = s->next) {
        if (!running(s) || !may_list(reg, s, owner))
            continue;
        strbuf_printf(&sb, "%s%s", sb.len ? ", " : "", s->id);
        if (s->name)
            strbuf_printf(&sb, " (\"%s\")", s->name);
    }
    if (!sb.len)
        strbuf_puts(&sb, "none");
    return strbuf_steal(&sb);
}

/* The caller's default: its newest running session, else its newest. */
static struct session *default_session(struct session_registry *reg, const char *owner, char **err)
{
    if (!owner && !reg->share_all) {
        *err = xstrdup("no session given: a stateless request has no default session; pass "
                       "\"session\" (the id terminal_start or desktop_start answered)");
        return NULL;
    }
    /* Shared sessions are reachable by id or name, but only the caller's
     * own are its default: it never types into another client's screen by
     * leaving "session" out. */
    for (struct session *s = reg->head; s; s = s->next)
        if (running(s) && (reg->share_all || (s->owner && same_owner(s->owner, owner))))
            return s;
    /* None live: the newest one, so the caller can say how it ended (and
     * its last screen stays readable). */
    for (struct session *s = reg->head; s; s = s->next)
        if (reg->share_all || (s->owner && same_owner(s->owner, owner)))
            return s;
    *err = xstrdup("no session; start one first with terminal_start or desktop_start");
    return NULL;
}

struct session *session_resolve(struct session_registry *reg, const char *owner,
                                const char *id_or_name, char **err)
{
    if (!id_or_name)
        return default_session(reg, owner, err);
    for (struct session *s = reg->head; s; s = s->next)
        if (strcmp(s->id, id_or_name) == 0 && may_reach_by_id(reg, s, owner))
            return s;
    /* A name: the session of that name that has not ended, else the newest
     * that has (its end is what the caller needs to hear about). */
    struct session *ended = NULL;
    for (struct session *s = reg->head; s; s = s->next) {
        if (!s->name || strcmp(s->name, id_or_name) != 0 || !may_list(reg, s, owner))
            continue;
        if (s->state != SESSION_ENDED)
            return s;
        if (!ended)
            ended = s;
    }
    if (ended)
        return ended;
    char *live = session_registry_live_ids(reg, owner);
    *err = xasprintf("unknown session \"%s\"; live sessions: %s", id_or_name, live);
    free(live);
    return NULL;
}

/* Stop, one at a time, the first session wanted() picks: choose, re-check,
 * act. Stopping may end a session at once and run code that changes the
 * list, so no pointer into it is kept across session_stop. */
static int stop_each(struct session_registry *reg, const char *owner,
                     bool (*wanted)(const struct session_registry *reg, const struct session *s,
                                    const char *owner),
                     const char *reason)
{
    int n = 0;
    for (;;) {
        struct session *pick = NULL;
        for (struct session *s = reg->head; s && !pick; s = s->next)
            if (running(s) && wanted(reg, s, owner))
                pick = s;
        if (!pick)
            return n;
        session_stop(pick, reason);
        n++;
    }
}

static bool released_with(const struct session_registry *reg, const struct session *s,
                          const char *owner)
{
    return !reg->share_all && !s->shared && s->owner && same_owner(s->owner, owner);
}

static bool any_session(const struct session_registry *reg, const struct session *s,
                        const char *owner)
{
    (void)reg, (void)s, (void)owner;
    return true;
}

int session_registry_release_owner(struct session_registry *reg, const char *owner)
{
    return stop_each(reg, owner, released_with, "the MCP session that started it went away");
}

void session_stop(struct session *s, const char *reason)
{
    if (!running(s))
        return;
    set_state(s, SESSION_STOPPING);
    free(s->end_reason);
    s->end_reason = xstrdup(reason);
    log_info("session %s stopping: %s", s->id, reason);
    if (s->impl->stop)
        s->impl->stop(s);
    else
        session_ended(s, reason);
}

static void prune_ended(struct session_registry *reg)
{
    int kept = 0;
    struct session **pp = &reg->head;
    while (*pp) {
        struct session *s = *pp;
        if (s->state == SESSION_ENDED && ++kept > MAX_ENDED_KEPT && s->in_use == 0) {
            *pp = s->next;
            free_session(s);
            continue;
        }
        pp = &s->next;
    }
}

static void check_all_stopped(struct session_registry *reg)
{
    if (!reg->all_stopped)
        return;
    for (struct session *s = reg->head; s; s = s->next)
        if (s->state != SESSION_ENDED)
            return;
    void (*done)(void *) = reg->all_stopped;
    reg->all_stopped = NULL;
    done(reg->all_stopped_ud);
}

void session_when_ended(struct session *s, void (*ended)(struct session *s, void *ud), void *ud)
{
    if (s->state == SESSION_ENDED) {
        ended(s, ud);
        return;
    }
    struct session_waiter *w = xcalloc(1, sizeof *w);
    w->ended = ended;
    w->ud = ud;
    w->next = s->waiters;
    s->waiters = w;
}

void session_ended(struct session *s, const char *reason)
{
    if (s->state == SESSION_ENDED)
        return;
    struct session_registry *reg = s->registry;
    set_state(s, SESSION_ENDED);
    s->ended_ms = uv_now(reg->app->loop);
    /* The first reason wins: "stopped by session_stop" explains a kill
     * better than the signal that followed it. */
    if (!s->end_reason)
        s->end_reason = xstrdup(reason);
    log_info("session %s ended: %s", s->id, s->end_reason);
    session_event(s, "session_ended", json_pack("{s:s}", "reason", s->end_reason));
    tell_listeners(s);
    /* Calls waiting for a start that failed hear it now (s->was_live false). */
    struct session_waiter *w = s->live_waiters;
    s->live_waiters = NULL;
    run_waiters(s, w);
    w = s->waiters;
    s->waiters = NULL;
    run_waiters(s, w);
    check_all_stopped(reg);
}

void session_registry_stop_all(struct session_registry *reg, void (*done)(void *ud), void *ud)
{
    reg->all_stopped = done;
    reg->all_stopped_ud = ud;
    stop_each(reg, NULL, any_session, "glovebox is shutting down");
    check_all_stopped(reg);
}

int session_registry_live_count(const struct session_registry *reg)
{
    int n = 0;
    for (struct session *s = reg->head; s; s = s->next)
        n += running(s);
    return n;
}

static const char *state_name(enum session_state st)
{
    switch (st) {
    case SESSION_STARTING:
        return "starting";
    case SESSION_LIVE:
        return "live";
    case SESSION_STOPPING:
        return "stopping";
    case SESSION_ENDED:
        return "ended";
    }
    return "?";
}

struct session *session_registry_first(struct session_registry *reg)
{
    return reg->head;
}

json_t *session_to_json(struct session *s)
{
    uint64_t now = uv_now(s->registry->app->loop);
    json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "id", s->id, "kind", s->impl->kind, "state",
                          state_name(s->state), "age_ms", (json_int_t)(now - s->started_ms));
    json_object_set_new(o, "name", s->name ? json_string(s->name) : json_null());
    if (s->end_reason)
        json_object_set_new(o, "end_reason", json_string(s->end_reason));
    if (s->impl->describe && s->backend && s->was_live) {
        json_t *extra = s->impl->describe(s);
        if (extra)
            json_object_update_missing(o, extra);
        json_decref(extra);
    }
    return o;
}

json_t *session_registry_list(struct session_registry *reg, const char *owner, bool include_ended)
{
    json_t *arr = json_array();
    /* Oldest first reads naturally in a list. */
    int n = 0;
    for (struct session *s = reg->head; s; s = s->next)
        n += may_list(reg, s, owner);
    struct session **v = xcalloc((size_t)n + 1, sizeof *v);
    int i = n;
    for (struct session *s = reg->head; s; s = s->next)
        if (may_list(reg, s, owner))
            v[--i] = s;
    for (i = 0; i < n; i++)
        if (include_ended || v[i]->state != SESSION_ENDED)
            json_array_append_new(arr, session_to_json(v[i]));
    free(v);
    return arr;
}
