/* Shared by the files of the desktop backend. */
#pragma once
#include "backend/backend.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

struct app;
struct desktop_clipboard;
struct desktop_damage;
struct desktop_output;
struct desktop_watch;
struct frame;
struct input_queue;
struct perceive;
struct pidns;
struct session;
struct start;
struct typed_check;

#define DESKTOP_MAX_CHILDREN 64

/* In the order they are started; stopped in reverse. */
enum desktop_child_kind { CHILD_XVFB, CHILD_DBUS, CHILD_APP };

struct desktop_child {
    pid_t pid; /* also its process group */
    enum desktop_child_kind kind;
    bool alive;
    size_t log_from; /* the session log's size when it started */
};

/* A program that ended, for wait_for {exit} asked afterwards. */
struct desktop_exited {
    pid_t pid;
    int status;              /* wait status */
    size_t log_from, log_to; /* the session log while it ran */
};
#define DESKTOP_EXITED_KEPT 16
struct exit_waiter;

struct desktop {
    struct app *app;
    struct session *session;
    char display[32]; /* ":5" */
    char *bus;        /* the private desktop's session bus; NULL when attached */
    /* The private desktop's XDG_RUNTIME_DIR, removed when it ends; NULL when
     * attached. The accessibility bus puts its socket there, named after the
     * display: a shared folder let a stale bus of another desktop with the
     * same display number answer for this one. */
    char *runtime_dir;
    int width, height;
    bool owned; /* glovebox started the X server (a private desktop) */
    bool stopping;
    /* Every process the session starts lives here (core/pidns.h); NULL when
     * containment is off, and once the session has ended. */
    struct pidns *ns;
    struct desktop_child children[DESKTOP_MAX_CHILDREN + 1]; /* + the window manager */
    int n_children;
    uv_timer_t kill_timer;
    bool kill_timer_open; /* until its close callback has run */
    bool destroyed;       /* the session is gone; free when the timer has closed */
    struct perceive *perceive;
    struct xinput *input;            /* XTEST, created on the first action */
    struct input_queue *input_queue; /* the thread input runs on; with input */
    uint64_t input_at_ms; /* uv_hrtime ms when the last click, drag or key ended (input thread) */
    /* A person has control (the live viewer): agent input is refused on the
     * input thread. Set on the loop thread. */
    atomic_bool person_control;
    struct typed_check *typed; /* password checks after typing (typed_check.h); NULL until used */
    struct xgrab *grab;        /* pixels; connects on the first capture */
    struct desktop_clipboard *clipboard; /* X selections; NULL until first used */
    struct start *start;                 /* while starting (start.c), else NULL */
    struct desktop_output *output;       /* the programs' stdout and stderr; NULL if unmade */
    struct desktop_rec *rec;             /* recordings (recording.c); NULL until record_start */
    struct desktop_watch *watch;         /* windows opened/closed/focused (watch.c); NULL */
    struct desktop_damage *damage;       /* screen changes (damage.c); NULL until asked */
    pid_t last_app_pid;                  /* the program started last (not the window manager); 0 */
    struct desktop_exited exited[DESKTOP_EXITED_KEPT]; /* ring of the last that ended */
    unsigned next_exited;
    struct exit_waiter *exit_waiters; /* wait_for {exit} calls (exit_wait.c) */
    pid_t wm_pid;                     /* the window manager (wm.c); 0 for none */
    char *wm_note;                    /* why there is none though one was asked for; NULL */
    char last_recording[32];          /* id of the recording written when the session ended; "" */
};

struct desktop *desktop_of(struct session *s);
/* The window manager of a private desktop (wm.c): openbox with glovebox's
 * own settings. false (logged, d->wm_note says why) when it cannot start. */
#define WM_WAIT_MS 3000
bool desktop_wm_start(struct desktop *d);
/* Whether a window manager manages the screen now (_NET_SUPPORTING_WM_CHECK). */
bool desktop_wm_ready(struct desktop *d);
/* The desktop is being destroyed while it was still starting (only at
 * exit): let go of the start-up state. */
void desktop_start_abandon(struct desktop *d);
/* The desktop is stopping: a start waiting for the window manager ends now
 * (its error answers the start). */
void desktop_start_stopping(struct desktop *d);
/* A new desktop and its session (live, nothing started yet). */
struct session_client;
struct desktop *desktop_create(struct app *app, const char *name,
                               const struct session_client *client);
/* fork + exec argv in its own process group, inside the session's PID
 * namespace, with env_extra (name, value pairs, NULL-terminated) set; fd_keep
 * (or -1) stays open in the child, which also ends if glovebox dies. Its stdout and stderr go to
 * d's output (output.h), else /dev/null. -1 with *err on failure. */
pid_t desktop_spawn(const struct desktop *d, const char *const *argv, const char *const *env_extra,
                    int fd_keep, char **err);
/* Track a child: its exit is noticed, it is stopped with the session and
 * recorded for the next glovebox should this one be killed. */
void desktop_watch(struct desktop *d, pid_t pid, enum desktop_child_kind kind);
/* The whole screen into out (initialised here), from any thread. ud is the
 * struct desktop. */
bool desktop_capture(void *ud, struct frame *out, char **err);
/* The live viewer's own frame source (view.c). */
struct frame_source;
bool desktop_view_frames(struct session *s, struct frame_source *out, char **err);
/* Takeover (person.c): a person's pointer and keys from the viewer, and
 * letting go of every key and button held (backend_impl). */
struct backend_view_event;
void desktop_view_event(struct session *s, const struct backend_view_event *ev);
void desktop_input_control(struct session *s, bool person);
/* Input (act.c): click, drag, scroll, type_text, press_key. */
void desktop_click_op(struct backend_call *bc);
void desktop_drag_op(struct backend_call *bc);
void desktop_scroll_op(struct backend_call *bc);
void desktop_type_op(struct backend_call *bc);
void desktop_press_key_op(struct backend_call *bc);
/* A step of a longer operation: err NULL when it was done, else why not
 * (borrowed). Loop thread. */
typedef void (*desktop_input_done)(void *ud, const char *err);
/* Wheel clicks at x,y (screen pixels) in direction ("up", "down", "left",
 * "right"), as bc (its guard, its cancellation); done() instead of an answer. */
void desktop_wheel(struct backend_call *bc, int x, int y, const char *direction, int clicks,
                   desktop_input_done done, void *ud);
/* hover: {x, y | ref | text}: the pointer moved there. */
void desktop_hover_op(struct backend_call *bc);
/* scroll_to (scroll_to.c). */
void desktop_scroll_to_op(struct backend_call *bc);
/* The pointer alone and keys held (backend.h pointer, key_hold). */
void desktop_pointer_op(struct backend_call *bc);
void desktop_key_hold_op(struct backend_call *bc);
/* The desktop's input connection and the thread that uses it (input_queue.h),
 * created on first use. */
void desktop_input_ensure(struct desktop *d);
/* Screen changes for computer's settling (damage.c, backend.h
 * watch_changes); closed when the desktop stops. */
bool desktop_watch_changes(struct session *s, struct backend_change_watch *w, bool on);
void desktop_damage_close(struct desktop *d);
/* window_list and window_manage (window_ops.c). */
void desktop_window_list_op(struct backend_call *bc);
void desktop_window_manage_op(struct backend_call *bc);
/* window_manage after the password checks of text typed before it
 * (typed_check.h): it may move the focus. */
void desktop_fenced_window_manage_op(struct backend_call *bc);
/* screenshot: {format, quality, max_width, region} on the worker pool. */
void desktop_screenshot_op(struct backend_call *bc);

/* record_start / record_stop (recording.c); desktop_record_end writes and
 * indexes a recording still running when the session ends. */
void desktop_record_start_op(struct backend_call *bc);
void desktop_record_stop_op(struct backend_call *bc);
void desktop_record_end(struct desktop *d);

/* Events of the session's windows (watch.c): start watching once the
 * display is up; stop when the session ends (safe if never started, and
 * more than once). */
void desktop_watch_open(struct desktop *d);
void desktop_watch_close(struct desktop *d);

/* clipboard_get / clipboard_set: {selection, text} through X selections. */
void desktop_clipboard_get_op(struct backend_call *bc);
void desktop_clipboard_set_op(struct backend_call *bc);
/* The session is ending: calls waiting on the clipboard fail with "the
 * session ended", selections glovebox owns are let go, the connection closes.
 * Safe to call when the clipboard was never used, and more than once. */
void desktop_clipboard_close(struct desktop *d);
