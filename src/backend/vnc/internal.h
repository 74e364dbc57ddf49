/* The vnc backend's shared state; private to src/backend/vnc/.
 *
 * Threads and processes: libgvnc runs in a process of each connection's
 * own (glovebox-vnc-worker, worker.h), so that a server's data libgvnc
 * cannot survive ends that connection alone. The module's GLib thread
 * (glib.c) talks to it over a socket pair (wire.h) and maps the
 * framebuffer it paints; the loop starts the process (proc.c) and is told
 * of changes through the session's uv_async; pool workers (screenshots,
 * OCR, input) read the framebuffer under mu and post input events,
 * waiting for them to be sent. */
#pragma once
#include "backend/backend.h"
#include "backend/frame_recording.h"
#include "backend/frames.h"
#include "backend/vnc/vnc.h"
#include "backend/vnc/wire.h"
#include "image/frame.h"

#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* Keys glovebox keeps track of holding down at once. */
#define VNC_MAX_KEYS_DOWN 16

struct vnc;

/* A connection's process (proc.c); the GLib thread's. */
struct vnc_proc {
    struct vnc *v;
    pid_t pid;
    int sock;  /* the module's end of the socket pair (nonblocking) */
    int pidfd; /* signals reach this process only; -1 once reaped (under proc.c's lock) */
    guint watch;
    struct vnc_wire_reader rd;
    bool eof;         /* the socket has ended */
    bool status_seen; /* the exit status has come (exited, status) */
    bool exited;      /* under proc.c's lock */
    int status;       /* waitpid's */
    bool live;        /* INITIALIZED came: input may go */
    gint64 live_at;   /* when (monotonic, us) */
    /* DISCONNECTED: why it ended (reason NULL: it did not say) */
    enum error_code code;
    char *reason, *detail;
    char *broken;          /* the worker broke the protocol: what, and it was stopped */
    struct vnc_proc *next; /* proc.c's list */
};

/* The GLib thread's request to the loop to start a process. */
struct vnc_spawn {
    struct vnc_proc *proc;
    bool taken; /* the loop is at it: its answer is waited for, however long */
    bool done, ok;
    char *err;
};

struct vnc {
    struct session *session;
    struct app *app;
    char *host;
    int port;
    char *password; /* wiped once the handshake is over */
    char *username;
    vnc_connected_fn connected;
    void *connected_ud;
    uv_async_t wake;  /* GLib thread -> loop: initialized, gone */
    uv_timer_t timer; /* the connect's time limit */
    int handles_open;
    int timeout_ms;
    /* The part of the remote screen the session is (vnc_connect's viewport;
     * vp_w == 0: all of it). Set before the session is live, then fixed:
     * frames are cut to it, input points moved by its corner. */
    int vp_x, vp_y, vp_w, vp_h;
    /* viewport {window}: the title whose window becomes the viewport, found
     * once after the handshake (viewport_window.c); NULL: none. */
    char *vp_window;
    bool finding;          /* loop: that search is under way on the pool */
    bool end_waits;        /* loop: the session's end waits for the search */
    atomic_bool find_stop; /* the session is stopping: the search gives up */
    /* How long a dropped connection is tried again (0: not); with it the
     * password is kept, in memory only, until the session ends. */
    int reconnect_ms;
    bool tls_verify;       /* VeNCrypt: check the server's certificate */
    char *ca_file;         /* VeNCrypt: the CA to check it against (tls_front.c) */
    bool iphone_mirroring; /* press_button and launch_app as that app's shortcuts */
    char *paste_keys;      /* type_text's paste chord; NULL: by the server (input.c) */
    bool stopping;
    bool finishing; /* the end has begun (a recording may still be written) */
    struct frame_recording_slot rec;
    /* The live viewer (view.c): the link its frame sources reach the
     * framebuffer through (loop thread; NULL: none yet), and whether a
     * person has control (agent input on the pool stops, denied). */
    struct vnc_view_link *view_link;
    atomic_bool person_control;
    /* Computer's settling (watch_changes; loop thread): the listeners and
     * the update count they have been told of. */
    struct backend_change_watch *change_watchers;
    uint64_t told_serial;

    pthread_mutex_t mu;
    pthread_cond_t changed; /* a framebuffer update, or the end */
    /* Under mu. */
    uint8_t *pixels; /* R,G,B,x per pixel: the worker's memfd, mapped read-only */
    size_t pixels_len;
    int width, height;
    uint64_t covered;    /* pixels updated since the framebuffer was made */
    bool full;           /* a whole frame has arrived since */
    uint64_t serial;     /* framebuffer updates so far */
    bool serial_watched; /* computer's settling listens: tell the loop of updates */
    bool initialized;    /* the handshake is done */
    bool gone;           /* the connection is closed and released */
    bool reconnecting;   /* dropped, being tried again: calls wait or fail */
    char *server_name;
    char *cut_text;       /* the server's latest cut text, as UTF-8; NULL: none yet */
    const char *security; /* "none", "vnc" */
    char *close_reason;   /* why it closed, for the user */
    enum error_code close_code;
    /* The pointer as glovebox last sent it (RFB never says where it is),
     * and the buttons a pointer "down" holds. */
    int pointer_x, pointer_y;
    bool pointer_known;
    uint8_t buttons_held;
    /* The pointer's shape as the server sent it apart from the framebuffer
     * (the cursor pseudo-encodings; the frames then lack the pointer):
     * premultiplied ARGB, hot_x,hot_y the point within it; NULL: none (not
     * sent, hidden, or too large). */
    uint32_t *cursor_argb;
    int cursor_w, cursor_h, cursor_hot_x, cursor_hot_y;

    struct vnc_spawn *spawn; /* a process the loop is asked to start */
    pthread_cond_t spawned;  /* spawn is done */

    /* GLib thread only. */
    struct vnc_proc *proc;  /* the connection's process; NULL between tries */
    guint kill_source;      /* the ending process's grace */
    bool closing;           /* the session is ending: no more reconnects */
    gint64 dropped_at;      /* when the live connection dropped; 0: it did not */
    bool last_crashed;      /* the last try's process died (or broke the protocol) */
    int backoff_ms;         /* the wait before the next try */
    guint retry_source;     /* the next try */
    guint handshake_source; /* a try's time limit */
    /* What glovebox holds down on the server, let go when control changes
     * hands (view.c), and whether a person has control: the agent's events
     * are refused. Points are the viewport's. */
    uint32_t keys_down[VNC_MAX_KEYS_DOWN];
    int n_keys_down;
    uint8_t sent_buttons;
    uint16_t sent_x, sent_y;
    bool person_glib;
};

struct vnc *vnc_of(struct session *s);
/* The session's screen size: the viewport's, else the remote screen's.
 * Takes mu. */
void vnc_size(struct vnc *v, int *w, int *h);

/* The GLib thread (glib.c). */
bool vnc_glib_start(char **err);
void vnc_glib_finish(void);
/* Runs fn(data) on the GLib thread, soon. Any thread. */
void vnc_glib_post(gboolean (*fn)(gpointer), void *data);

/* One input event for the server. */
struct vnc_event {
    bool key;
    bool down;       /* key */
    uint32_t keysym; /* key */
    uint8_t buttons; /* pointer: the mask of buttons held */
    uint16_t x, y;   /* pointer */
    const char *cut; /* non-NULL: cut text (Latin-1) for the server's clipboard */
    size_t cut_len;
};
/* Worker thread: sends events in order on the GLib thread and waits until
 * they are written. False with *err when the connection is gone, or with
 * *refused when a person has control (view.c): none was sent. */
bool vnc_send(struct vnc *v, const struct vnc_event *ev, int n, bool *refused, char **err);
/* Worker thread: a copy of the framebuffer in f, waiting up to wait_ms for
 * a whole first frame. False with *err (and *code). */
bool vnc_copy_frame(struct vnc *v, int wait_ms, struct frame *f, uint64_t *serial,
                    enum error_code *code, char **err);
/* The same; with even_gone, a connection that has closed still gives the
 * last whole frame it showed (a recording's last look as its session ends). */
bool vnc_copy_frame_last(struct vnc *v, int wait_ms, bool even_gone, struct frame *f,
                         uint64_t *serial, enum error_code *code, char **err);

/* Any thread: the server's pointer shape where glovebox last put the
 * pointer, in the session's coordinates, into out (argb malloc'd); false
 * when the server sent no shape or the pointer has not been moved. Takes
 * mu. */
bool vnc_cursor_copy(struct vnc *v, struct frame_cursor *out);

/* The live viewer (view.c). Loop thread: */
bool vnc_view_frames(struct session *s, struct frame_source *out, char **err);
void vnc_view_event(struct session *s, const struct backend_view_event *ev);
void vnc_input_control(struct session *s, bool person);
/* The session is destroyed: the viewer's sources no longer reach v. */
void vnc_view_detach(struct vnc *v);
/* GLib thread: e was sent (what is held down is noted); whether a person
 * has control, so that the agent's events are refused. */
void vnc_view_sent(struct vnc *v, const struct vnc_event *e);
bool vnc_view_refuses(struct vnc *v);

/* Connect and the session's life (session.c, conn.c). */
void vnc_connect(struct app *app, const struct vnc_options *o, vnc_connected_fn done, void *ud);
/* GLib thread: open the connection (conn.c). */
gboolean vnc_conn_open(gpointer v);
/* GLib thread: close it; "gone" follows (conn.c). */
gboolean vnc_conn_shutdown(gpointer v);
/* GLib thread: the process p has exited (posted by proc.c). */
gboolean vnc_conn_proc_exited(gpointer p);
/* GLib thread: e to the server now, noted (view.c); false when the
 * connection is not up. */
bool vnc_conn_send_event(struct vnc *v, const struct vnc_event *e);

/* Connection processes (proc.c). GLib thread: start one (the loop forks
 * it); NULL with *err. */
struct vnc_proc *vnc_proc_start(struct vnc *v, char **err);
/* Loop thread (on_wake): start the process the GLib thread asks for. */
void vnc_proc_spawn_pending(struct vnc *v);
/* Any thread: SIGKILL, unless it has already been reaped. */
void vnc_proc_kill(struct vnc_proc *p);
/* "signal 6", "exit status 1" (malloc'd). */
char *vnc_proc_status_text(int status);
void vnc_proc_free(struct vnc_proc *p);
/* Loop: the connect's last step: the viewport checked against the screen,
 * the session live, the connect answered (session.c). */
void vnc_go_live(struct vnc *v);
/* Loop: the stopping session's end, once its connection is gone (session.c). */
void vnc_finish_end(struct vnc *v);
/* Loop: look for the window titled v->vp_window on the worker pool, then
 * vnc_go_live with it as the viewport, or stop the session with not_found
 * (viewport_window.c). */
void vnc_window_find(struct vnc *v);
/* GLib thread: free v, after every idle posted for it (session.c). */
gboolean vnc_free_later(gpointer v);

/* Operations (input.c, text.c, shot.c). */
void vnc_screenshot_op(struct backend_call *bc);
void vnc_click_op(struct backend_call *bc);
void vnc_drag_op(struct backend_call *bc);
void vnc_scroll_op(struct backend_call *bc);
void vnc_type_text_op(struct backend_call *bc);
void vnc_press_key_op(struct backend_call *bc);
void vnc_pointer_op(struct backend_call *bc);
void vnc_record_start_op(struct backend_call *bc);
void vnc_record_stop_op(struct backend_call *bc);
void vnc_key_hold_op(struct backend_call *bc);
void vnc_clipboard_get_op(struct backend_call *bc);
void vnc_clipboard_set_op(struct backend_call *bc);
void vnc_read_text_op(struct backend_call *bc);
void vnc_wait_for_op(struct backend_call *bc);
void vnc_find_op(struct backend_call *bc);
void vnc_press_button_op(struct backend_call *bc);
void vnc_app_launch_op(struct backend_call *bc);
