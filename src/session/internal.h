/* The registry's insides, shared by the files of src/session/ only. */
#pragma once
#include "session/session.h"

#include <uv.h>

struct session_registry {
    struct app *app;
    struct session *head; /* newest first */
    unsigned next_number;
    bool share_all;                /* --shared-sessions */
    int max_total, max_per_client; /* <= 0: no bound */
    void (*all_stopped)(void *ud);
    void *all_stopped_ud;
    /* session_watch.c: who hears about changes, the gap between two
     * notifications of a session (ms), and the one timer for them all
     * (initialised on first use; closed with the loop's other handles). */
    const struct session_observer *observer;
    int notify_interval_ms;
    uv_timer_t notify_timer;
    bool notify_timer_init;
    uv_timer_t sample_timer; /* for screens that report no changes */
    bool sample_timer_init;
    /* session_registry_listen: told of every session's start and end. */
    struct {
        void (*changed)(void *ud, struct session *s);
        void *ud;
    } listeners[SESSION_MAX_LISTENERS];
    int n_listeners;
    /* session_registry_listen_events: told of each session event. */
    struct {
        void (*event)(void *ud, struct session *s, const json_t *e);
        void *ud;
    } event_listeners[SESSION_MAX_LISTENERS];
    int n_event_listeners;
};
