/* Telling an observer (the subscribable resources) that sessions changed,
 * once per burst: the first change of a session arms a notification
 * interval_ms later, and changes until then ride along with it. A screen
 * that stays still arms nothing; neither does a change nobody watches. One
 * timer serves every session: it is armed for the earliest due one. */
#include "backend/backend.h"
#include "core/app.h"
#include "core/check.h"
#include "core/xmalloc.h"
#include "session/internal.h"
#include "session/session.h"

#include <time.h>

struct app *session_registry_app(const struct session_registry *reg)
{
    return reg->app;
}

static void on_sample(uv_timer_t *timer)
{
    struct session_registry *reg = timer->data;
    const struct session_observer *o = reg->observer;
    if (!o || !o->sample || reg->app->shutting_down)
        return;
    /* sample only starts a look (answered later): the list holds still. */
    for (struct session *s = reg->head; s; s = s->next) {
        if (s->state != SESSION_LIVE || s->impl->reports_changes || !s->impl->capture ||
            s->sampling)
            continue;
        if (!o->watched(s, SESSION_CHANGED_SCREEN, o->ud)) {
            /* The next subscriber starts from the screen as it is then. */
            s->sample_have = false;
            continue;
        }
        o->sample(s, o->ud);
    }
}

void session_registry_observe(struct session_registry *reg, const struct session_observer *o,
                              int interval_ms)
{
    reg->observer = o;
    reg->notify_interval_ms = interval_ms < 0 ? 0 : interval_ms;
    if (o && o->sample && !reg->sample_timer_init) {
        uv_timer_init(reg->app->loop, &reg->sample_timer);
        reg->sample_timer.data = reg;
        reg->sample_timer_init = true;
        uv_unref((uv_handle_t *)&reg->sample_timer);
        uv_timer_start(&reg->sample_timer, on_sample, SESSION_SAMPLE_MS, SESSION_SAMPLE_MS);
    }
}

static void on_notify(uv_timer_t *timer);

static void arm(struct session_registry *reg)
{
    uint64_t now = uv_now(reg->app->loop);
    uint64_t first = UINT64_MAX;
    for (struct session *s = reg->head; s; s = s->next)
        if (s->pending_changes && s->notify_due_ms < first)
            first = s->notify_due_ms;
    if (first == UINT64_MAX) {
        if (reg->notify_timer_init)
            uv_timer_stop(&reg->notify_timer);
        return;
    }
    if (!reg->notify_timer_init) {
        uv_timer_init(reg->app->loop, &reg->notify_timer);
        reg->notify_timer.data = reg;
        reg->notify_timer_init = true;
        /* A pending notification does not keep a finished server alive. */
        uv_unref((uv_handle_t *)&reg->notify_timer);
    }
    if (uv_is_closing((uv_handle_t *)&reg->notify_timer))
        return;
    uv_timer_start(&reg->notify_timer, on_notify, first > now ? first - now : 0, 0);
}

static void on_notify(uv_timer_t *timer)
{
    struct session_registry *reg = timer->data;
    uint64_t now = uv_now(reg->app->loop);
    /* The observer only sends notifications: it neither adds nor frees
     * sessions, so the list holds still while it runs. */
    for (struct session *s = reg->head; s; s = s->next) {
        if (!s->pending_changes || s->notify_due_ms > now)
            continue;
        unsigned what = s->pending_changes;
        s->pending_changes = 0;
        if (reg->observer)
            reg->observer->changed(s, what, reg->observer->ud);
    }
    arm(reg);
}

bool session_is_watched(struct session *s, unsigned what)
{
    const struct session_observer *o = s->registry->observer;
    return o && !s->registry->app->shutting_down && o->watched(s, what, o->ud);
}

void session_changed(struct session *s, unsigned what)
{
    struct session_registry *reg = s->registry;
    const struct session_observer *o = reg->observer;
    if (!o || reg->app->shutting_down || (s->pending_changes & what) == what)
        return;
    if (!o->watched(s, what, o->ud))
        return;
    if (!s->pending_changes) {
        s->notify_due_ms = uv_now(reg->app->loop) + (uint64_t)reg->notify_interval_ms;
        s->pending_changes = what;
        arm(reg);
    } else {
        s->pending_changes |= what;
    }
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void session_event(struct session *s, const char *type, json_t *detail)
{
    json_t *e = json_pack("{s:I, s:s, s:I}", "seq", (json_int_t)++s->events_seq, "type", type,
                          "at_ms", (json_int_t)wall_ms());
    if (detail)
        json_object_update_missing(e, detail);
    json_decref(detail);
    if (!s->events)
        s->events = json_array();
    json_array_append_new(s->events, e);
    /* Bounded: the oldest go first. */
    while (json_array_size(s->events) > SESSION_EVENTS_MAX)
        json_array_remove(s->events, 0);
    struct session_registry *reg = s->registry;
    for (int i = 0; reg && i < reg->n_event_listeners; i++)
        reg->event_listeners[i].event(reg->event_listeners[i].ud, s, e);
    session_changed(s, SESSION_CHANGED_EVENTS);
}

void session_registry_listen_events(struct session_registry *reg,
                                    void (*event)(void *ud, struct session *s, const json_t *e),
                                    void *ud)
{
    CHECK(reg->n_event_listeners < SESSION_MAX_LISTENERS);
    reg->event_listeners[reg->n_event_listeners].event = event;
    reg->event_listeners[reg->n_event_listeners].ud = ud;
    reg->n_event_listeners++;
}

void session_registry_unlisten_events(struct session_registry *reg,
                                      void (*event)(void *ud, struct session *s, const json_t *e),
                                      void *ud)
{
    for (int i = 0; i < reg->n_event_listeners; i++) {
        if (reg->event_listeners[i].event == event && reg->event_listeners[i].ud == ud) {
            reg->event_listeners[i] = reg->event_listeners[--reg->n_event_listeners];
            return;
        }
    }
}
