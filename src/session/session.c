#include "session/session.h"

#define LOG_MODULE "session"
#include "backend/backend.h"
#include "core/app.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdio.h>
#include <string.h>

/* Ended sessions kept for "why is it gone" answers. */
#define MAX_ENDED_KEPT 32

struct session_registry {
    struct app *app;
    struct session *head; /* newest first */
    unsigned next_number;
    void (*all_stopped)(void *ud);
    void *all_stopped_ud;
};

struct session_registry *session_registry_create(struct app *app)
{
    struct session_registry *reg = xcalloc(1, sizeof *reg);
    reg->app = app;
    reg->next_number = 1;
    return reg;
}

static void free_session(struct session *s)
{
    if (s->impl && s->impl->destroy && s->backend)
        s->impl->destroy(s);
    free(s->name);
    free(s->end_reason);
    free(s->owner);
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
                     s->state == SESSION_LIVE ? "live" : "stopping");
        free_session(s);
        s = next;
    }
    free(reg);
}

struct session *session_add(struct session_registry *reg, const struct backend_impl *impl,
                            const char *name)
{
    struct session *s = xcalloc(1, sizeof *s);
    snprintf(s->id, sizeof s->id, "%s-%u", impl->kind, reg->next_number++);
    s->name = name ? xstrdup(name) : NULL;
    s->impl = impl;
    s->state = SESSION_LIVE;
    s->started_ms = uv_now(reg->app->loop);
    s->registry = reg;
    s->next = reg->head;
    reg->head = s;
    log_info("session %s started", s->id);
    return s;
}

char *session_registry_live_ids(const struct session_registry *reg)
{
    struct strbuf sb;
    strbuf_init(&sb);
    for (struct session *s = reg->head; s; s = s->next) {
        if (s->state != SESSION_LIVE)
            continue;
        strbuf_printf(&sb, "%s%s", sb.len ? ", " : "", s->id);
        if (s->name)
            strbuf_printf(&sb, " (\"%s\")", s->name);
    }
    if (!sb.len)
        strbuf_puts(&sb, "none");
    return strbuf_steal(&sb);
}

struct session *session_resolve(struct session_registry *reg, const char *id_or_name, char **err)
{
    if (!id_or_name) {
        for (struct session *s = reg->head; s; s = s->next)
            if (s->state == SESSION_LIVE)
                return s;
        /* None live: the newest one, so the caller can say how it ended (and
         * its last screen stays readable). */
        if (reg->head)
            return reg->head;
        *err = xstrdup("no session; start one first with terminal_start");
        return NULL;
    }
    for (struct session *s = reg->head; s; s = s->next)
        if (strcmp(s->id, id_or_name) == 0)
            return s;
    for (struct session *s = reg->head; s; s = s->next)
        if (s->name && strcmp(s->name, id_or_name) == 0 && s->state == SESSION_LIVE)
            return s;
    char *live = session_registry_live_ids(reg);
    *err = xasprintf("unknown session \"%s\"; live sessions: %s", id_or_name, live);
    free(live);
    return NULL;
}

void session_set_owner(struct session *s, const char *owner)
{
    free(s->owner);
    s->owner = owner ? xstrdup(owner) : NULL;
}

void session_note_user(struct session *s, const char *user)
{
    /* A caller without an MCP session (stdio, stateless) could be anyone. */
    if (s->owner && (!user || strcmp(user, s->owner) != 0))
        s->shared = true;
}

int session_registry_release_owner(struct session_registry *reg, const char *owner)
{
    int n = 0;
    for (struct session *s = reg->head; s; s = s->next) {
        if (s->state == SESSION_LIVE && s->owner && !s->shared && strcmp(s->owner, owner) == 0) {
            session_stop(s, "the MCP session that started it expired");
            n++;
        }
    }
    return n;
}

void session_stop(struct session *s, const char *reason)
{
    if (s->state != SESSION_LIVE)
        return;
    s->state = SESSION_STOPPING;
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
    s->state = SESSION_ENDED;
    s->ended_ms = uv_now(reg->app->loop);
    /* The first reason wins: "stopped by session_stop" explains a kill
     * better than the signal that followed it. */
    if (!s->end_reason)
        s->end_reason = xstrdup(reason);
    log_info("session %s ended: %s", s->id, s->end_reason);
    struct session_waiter *w = s->waiters;
    s->waiters = NULL;
    while (w) {
        struct session_waiter *next = w->next;
        w->ended(s, w->ud);
        free(w);
        w = next;
    }
    prune_ended(reg);
    check_all_stopped(reg);
}

void session_registry_stop_all(struct session_registry *reg, void (*done)(void *ud), void *ud)
{
    reg->all_stopped = done;
    reg->all_stopped_ud = ud;
    for (struct session *s = reg->head; s; s = s->next)
        session_stop(s, "glovebox is shutting down");
    check_all_stopped(reg);
}

int session_registry_live_count(const struct session_registry *reg)
{
    int n = 0;
    for (struct session *s = reg->head; s; s = s->next)
        n += s->state == SESSION_LIVE;
    return n;
}

static const char *state_name(enum session_state st)
{
    switch (st) {
    case SESSION_LIVE:
        return "live";
    case SESSION_STOPPING:
        return "stopping";
    case SESSION_ENDED:
        return "ended";
    }
    return "?";
}

json_t *session_to_json(struct session *s)
{
    uint64_t now = uv_now(s->registry->app->loop);
    json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "id", s->id, "kind", s->impl->kind, "state",
                          state_name(s->state), "age_ms", (json_int_t)(now - s->started_ms));
    json_object_set_new(o, "name", s->name ? json_string(s->name) : json_null());
    if (s->end_reason)
        json_object_set_new(o, "end_reason", json_string(s->end_reason));
    if (s->impl->describe && s->backend) {
        json_t *extra = s->impl->describe(s);
        if (extra)
            json_object_update_missing(o, extra);
        json_decref(extra);
    }
    return o;
}

json_t *session_registry_list(struct session_registry *reg, bool include_ended)
{
    json_t *arr = json_array();
    /* Oldest first reads naturally in a list. */
    int n = 0;
    for (struct session *s = reg->head; s; s = s->next)
        n++;
    struct session **v = xcalloc((size_t)n, sizeof *v);
    int i = n;
    for (struct session *s = reg->head; s; s = s->next)
        v[--i] = s;
    for (i = 0; i < n; i++)
        if (include_ended || v[i]->state != SESSION_ENDED)
            json_array_append_new(arr, session_to_json(v[i]));
    free(v);
    return arr;
}
