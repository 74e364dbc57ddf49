/* Takeover: a person with a control link takes a session from the agent in
 * the viewer. The agent's input in flight on it stops and whatever it held
 * down is let go; while they hold it, the agent's input tools are refused
 * (tools/screen_call.c asks viewer_person_has_control) and the person's
 * keys (and, on a desktop, pointer) reach the session; "Hand back" returns
 * it, with a note the pages show, the log keeps and wait_for {control:
 * "agent"} answers with. A holder whose page goes away hands back after
 * CONTROL_GRACE_MS unless it takes control again. */
#define LOG_MODULE "viewer"
#include "backend/backend.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "tools/screen_call.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTROL_GRACE_MS 60000

struct control {
    char session[48];
    char link_id[VIEW_ID_LEN + 1];
    struct view_client *holder; /* NULL: its page went away (grace) */
    uint64_t gone_ms;
    struct control *next;
};

static struct control *controls;

/* wait_for {control: "agent"} calls waiting for a hand-back. */
struct waiter {
    char session[48];
    void (*fn)(void *ud, const char *note);
    void *ud;
    struct waiter *next;
};

static struct waiter *waiters;

void viewer_control_when_agent(struct session *s, void (*fn)(void *ud, const char *note), void *ud)
{
    struct waiter *w = xcalloc(1, sizeof *w);
    snprintf(w->session, sizeof w->session, "%s", s->id);
    w->fn = fn;
    w->ud = ud;
    w->next = waiters;
    waiters = w;
}

void viewer_control_forget_waiter(void *ud)
{
    for (struct waiter **p = &waiters; *p; p = &(*p)->next)
        if ((*p)->ud == ud) {
            struct waiter *w = *p;
            *p = w->next;
            free(w);
            return;
        }
}

/* The waiters of session (all when NULL) hear note. Each is unlinked
 * before it is called: its callback answers (frees) its call. */
static void wake(const char *session, const char *note)
{
    for (;;) {
        struct waiter **p = &waiters;
        while (*p && session && strcmp((*p)->session, session) != 0)
            p = &(*p)->next;
        struct waiter *w = *p;
        if (!w)
            return;
        *p = w->next;
        w->fn(w->ud, note);
        free(w);
    }
}

static struct control *find(const char *session)
{
    for (struct control *k = controls; k; k = k->next)
        if (strcmp(k->session, session) == 0)
            return k;
    return NULL;
}

bool viewer_person_has_control(const struct session *s)
{
    return find(s->id) != NULL;
}

static void broadcast(struct viewer *v, const char *session, const char *by, const char *note)
{
    json_t *msg = json_pack("{s:s, s:s, s:s, s:s?}", "type", "control", "session", session, "by",
                            by, "note", note);
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    for (struct view_client *c = v->clients; c; c = c->next)
        if (strcmp(c->watching, session) == 0)
            ws_send(c->ws, true, text, strlen(text));
    free(text);
}

/* A row in the audit log (when there is one) for what a person did. */
static void audit_event(struct viewer *v, const char *what, const char *session,
                        const json_t *details)
{
    const struct call_observer *o = v->app->call_observer;
    if (o && o->event)
        o->event(o->ud, what, session, details);
}

static void release(struct viewer *v, struct control *k, const char *note)
{
    for (struct control **p = &controls; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    log_info("viewer link %s handed %s back to the agent%s%s", k->link_id, k->session,
             note ? ": " : "", note ? note : "");
    json_t *d = json_pack("{s:s, s:s?}", "link", k->link_id, "note", note);
    audit_event(v, "viewer/hand_back", k->session, d);
    json_decref(d);
    broadcast(v, k->session, "agent", note);
    /* The agent hears it in the session's events (its resource). */
    struct session *s = viewer_session_find(v, k->session);
    if (s)
        session_event(s, "person_handed_back_control",
                      json_pack("{s:s, s:s?}", "link", k->link_id, "note", note));
    /* The person's keys and buttons still down (a key up the page never
     * sent) are let go before the agent's input. */
    if (s && s->state == SESSION_LIVE && s->impl->input_control)
        s->impl->input_control(s, false);
    char session[sizeof k->session];
    memcpy(session, k->session, sizeof session);
    free(k);
    wake(session, note);
}

void viewer_control_send_state(struct view_client *c)
{
    struct control *k = find(c->watching);
    viewer_client_send_json(c, json_pack("{s:s, s:s, s:s, s:b}", "type", "control", "session",
                                         c->watching, "by", k ? "person" : "agent", "mine",
                                         k && k->holder == c));
}

void viewer_control_take(struct view_client *c)
{
    struct viewer *v = c->v;
    struct session *s = c->watching[0] ? viewer_session_find(v, c->watching) : NULL;
    const char *why = NULL;
    if (c->grant.role < VIEW_CONTROL)
        why = "take: only a control link can take control";
    else if (!s || s->state != SESSION_LIVE)
        why = "take: watch a live session first";
    else if (!s->impl->view_input && !s->impl->view_event)
        why = "take: this kind of session cannot take a person's input yet";
    struct control *k = s ? find(s->id) : NULL;
    if (!why && k && k->holder && k->holder != c)
        why = "take: another page has control of this session";
    if (why) {
        viewer_client_send_json(c, json_pack("{s:s, s:s}", "type", "error", "message", why));
        return;
    }
    bool taken = !k;
    if (!k) {
        k = xcalloc(1, sizeof *k);
        snprintf(k->session, sizeof k->session, "%s", s->id);
        k->next = controls;
        controls = k;
    }
    k->holder = c;
    memcpy(k->link_id, c->grant.link_id, sizeof k->link_id);
    if (taken) {
        /* The agent's input in flight stops (its calls answer that a person
         * has control), then whatever it holds down is let go: queued after
         * the stopped input, before the person's. */
        int n = screen_call_stop_input(s);
        if (s->impl->input_control)
            s->impl->input_control(s, true);
        log_info("viewer link %s took control of %s (%d agent input call%s stopped)",
                 c->grant.link_id, s->id, n, n == 1 ? "" : "s");
        json_t *d = json_pack("{s:s, s:i}", "link", c->grant.link_id, "stopped_calls", n);
        audit_event(v, "viewer/take_control", s->id, d);
        json_decref(d);
    }
    broadcast(v, k->session, "person", NULL);
    session_event(s, "person_took_control", json_pack("{s:s}", "link", k->link_id));
    viewer_control_send_state(c);
}

void viewer_control_handback(struct view_client *c, const char *note)
{
    struct control *k = c->watching[0] ? find(c->watching) : NULL;
    if (!k || k->holder != c) {
        viewer_client_send_json(c, json_pack("{s:s, s:s}", "type", "error", "message",
                                             "handback: this page does not have control"));
        return;
    }
    release(c->v, k, note && *note ? note : NULL);
}

void viewer_control_input(struct view_client *c, const char *data, size_t len)
{
    struct control *k = c->watching[0] ? find(c->watching) : NULL;
    struct session *s = k && k->holder == c ? viewer_session_find(c->v, c->watching) : NULL;
    if (!s || s->state != SESSION_LIVE) {
        viewer_client_send_json(c, json_pack("{s:s, s:s}", "type", "error", "message",
                                             "input: take control of a live session first"));
        return;
    }
    if (!s->impl->view_input) {
        viewer_client_send_json(
            c, json_pack("{s:s, s:s}", "type", "error", "message",
                         "input: this kind of session takes \"key\" and \"pointer\" messages"));
        return;
    }
    s->impl->view_input(s, data, len);
}

void viewer_control_event(struct view_client *c, const json_t *msg)
{
    struct control *k = c->watching[0] ? find(c->watching) : NULL;
    struct session *s = k && k->holder == c ? viewer_session_find(c->v, c->watching) : NULL;
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!s || s->state != SESSION_LIVE || !s->impl->view_event) {
        viewer_client_send_json(
            c, json_pack("{s:s, s:s}", "type", "error", "message",
                         s && s->state == SESSION_LIVE
                             ? "input: this kind of session takes keys as \"input\" messages"
                             : "input: take control of a live session first"));
        return;
    }
    struct backend_view_event ev = {.down = json_is_true(json_object_get(msg, "down"))};
    if (strcmp(type, "key") == 0) {
        ev.kind = BACKEND_VIEW_KEY;
        ev.keysym = viewer_keysym(json_string_value(json_object_get(msg, "key")),
                                  json_string_value(json_object_get(msg, "code")), &ev.is_char);
        if (!ev.keysym)
            return; /* a key with no keysym (dead keys): nothing to send */
    } else {
        const json_t *x = json_object_get(msg, "x"), *y = json_object_get(msg, "y");
        const json_t *b = json_object_get(msg, "button");
        if (!json_is_number(x) || !json_is_number(y) || (b && !json_is_integer(b)) ||
            json_integer_value(b) < 0 || json_integer_value(b) > 7) {
            viewer_client_send_json(
                c, json_pack("{s:s, s:s}", "type", "error", "message",
                             "pointer: expected numbers x and y (screen pixels) and an optional "
                             "button 0-7 (1 left, 2 middle, 3 right, 4-7 wheel)"));
            return;
        }
        ev.kind = BACKEND_VIEW_POINTER;
        /* Bounded before the conversion; the backend clamps to the screen. */
        ev.x = (int)fmax(-1, fmin(65535, json_number_value(x)));
        ev.y = (int)fmax(-1, fmin(65535, json_number_value(y)));
        ev.button = (int)json_integer_value(b);
    }
    s->impl->view_event(s, &ev);
}

void viewer_control_left(struct view_client *c)
{
    for (struct control *k = controls; k; k = k->next)
        if (k->holder == c) {
            k->holder = NULL;
            k->gone_ms = uv_now(c->v->app->loop);
        }
}

void viewer_control_sweep(struct viewer *v)
{
    uint64_t now = uv_now(v->app->loop);
    for (struct control *k = controls, *next; k; k = next) {
        next = k->next;
        struct session *s = viewer_session_find(v, k->session);
        if (!s || s->state != SESSION_LIVE)
            release(v, k, NULL);
        else if (!k->holder && now - k->gone_ms >= CONTROL_GRACE_MS)
            release(v, k, "the person's page went away");
    }
}

void viewer_control_finish(void)
{
    wake(NULL, NULL);
    while (controls) {
        struct control *k = controls;
        controls = k->next;
        free(k);
    }
}
