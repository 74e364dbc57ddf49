/* The webdriver backend's shared state; private to src/backend/webdriver/. */
#pragma once
#include "backend/backend.h"
#include "backend/frame_recording.h"
#include "backend/webdriver/webdriver.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

struct pidns;
struct pattern;
struct wd_http;

struct wd {
    struct session *session;
    struct app *app;
    struct wd_http *http;
    char *base;      /* the endpoint as given (credentials included), no trailing '/' */
    char *shown;     /* the endpoint without userinfo: the only form ever shown */
    char *remote_id; /* the remote session id; NULL until created */
    char *browser;   /* "chrome 156.0…", NULL if the endpoint did not say */
    bool attached;   /* the remote session existed before (attach): never deleted */
    long timeout_ms; /* every request */
    /* Farms end idle sessions: a cheap command after this long without
     * one (ms; 0: never), and when the last request went. */
    uint64_t keepalive_ms, last_request_ms;
    bool remote_gone;      /* the endpoint ended the remote session: no DELETE */
    char *credentials_env; /* the variable the endpoint's credentials came from */
    struct wd_farm *farm;  /* an AWS Device Farm session behind the endpoint (devicefarm.c) */
    void (*progress)(void *ud, const char *message); /* the connect's, while it waits */
    int width, height;
    /* The pointer as glovebox last moved it (WebDriver never says). */
    int pointer_x, pointer_y;
    bool pointer_known;

    /* A chromedriver glovebox started (owned); pid 0 when none. */
    pid_t driver_pid;
    bool driver_alive;
    int driver_status; /* wait status once it exited */
    struct pidns *ns;
    pid_t ns_init; /* the ended namespace's init, until it is reaped */
    char *tmpdir;  /* HOME, TMPDIR and profile of the browser; removed at the end */
    /* Where the owned browser saves downloads (<data dir>/downloads/<id>);
     * NULL when it saves none here. Removed when the session is freed. */
    char *downloads;
    int port;

    /* Connecting. */
    webdriver_connected_fn connected;
    void *connected_ud;
    json_t *capabilities; /* the caller's, until the session is made */
    int status_tries;
    enum error_code fail_code; /* why the start failed, for connected */

    uv_timer_t timer; /* readiness polls, then the kill grace */
    bool timer_open;
    bool stopping;
    bool destroyed;
    /* What calls in flight hear when the session goes. */
    enum error_code abort_code;
    struct frame_recording_slot rec;
    /* A native app (Appium): a platformName and no browserName. */
    bool native;
    char *platform;                  /* "android", "ios", … lower case; NULL if not said */
    struct screen_rect *native_refs; /* e1 = [0]: the latest snapshot or find */
    char **native_ref_keys;          /* the same elements' wd_native_key, for waits */
    size_t n_native_refs;
    /* The owned browser's DevTools socket and screencast (cast.c); NULL
     * when glovebox does not own the browser. */
    struct wd_cast *cast;
    /* Cross-origin frames the latest snapshots found (frames.c): f1 is
     * [0], each the number of the frame its iframe is in (0: the top),
     * whose page keeps the iframe in window.__glovebox_frames. NULL when
     * none. */
    json_t *frames;
};

struct wd *wd_of(struct session *s);

/* A WebDriver command's outcome: value (borrowed; the response's "value")
 * or code and err (for the user). */
typedef void (*wd_reply_fn)(struct wd *w, void *ud, json_t *value, enum error_code code,
                            const char *err);
/* method on <endpoint>/session/<id><path> (path "" or "/url", …); body
 * stolen (NULL: none; POSTs get {} then). */
void wd_command(struct wd *w, const char *method, const char *path, json_t *body, wd_reply_fn fn,
                void *ud);
/* wd_command for what does not change what the page shows (reading it):
 * a screencast frame that arrived before it is still the page's picture. */
void wd_command_quiet(struct wd *w, const char *method, const char *path, json_t *body,
                      wd_reply_fn fn, void *ud);
/* wd_command with a time limit of its own (a script that waits). */
void wd_command_within(struct wd *w, const char *method, const char *path, json_t *body,
                       long timeout_ms, wd_reply_fn fn, void *ud);
/* The same on <endpoint><path> (no session), with its own time limit. */
void wd_request(struct wd *w, const char *method, const char *path, json_t *body, long timeout_ms,
                wd_reply_fn fn, void *ud);

/* The owned browser's own DevTools (cast.c). wd_cast_init: from the new
 * session's capabilities, when glovebox owns the browser. */
void wd_cast_init(struct wd *w, const json_t *caps);
void wd_cast_destroy(struct wd *w);
/* A command that may change what the page shows is sent / has ended. */
void wd_cast_changing(struct wd *w);
void wd_cast_changed(struct wd *w);
/* The commands now go to the window of handle (NULL: not known). */
void wd_cast_window(struct wd *w, const char *handle);
/* The latest capture (base64 PNG) when the page has not changed since,
 * else NULL (the screencast that tells is started when it is not yet). */
const char *wd_cast_frame(struct wd *w);
/* A capture on the socket (fn gets a base64 PNG, or chromedriver's answer
 * when the socket fails); false when there is no socket. */
bool wd_cast_capture(struct wd *w, wd_reply_fn fn, void *ud);
/* The owned browser's DevTools socket when it is open for the tab the
 * commands go to, else NULL; the flat session of the frame frame_id when
 * it runs in a process of its own (an attached target), else NULL. */
struct wd_cdp;
struct wd_cdp *wd_cast_cdp(struct wd *w);
const char *wd_cast_frame_session(struct wd *w, const char *frame_id);
/* A script that only reads the page, with args (an array, stolen): over
 * DevTools when the socket is open, else execute/sync. */
void wd_script(struct wd *w, const char *source, json_t *args, wd_reply_fn fn, void *ud);

/* Cross-origin frames (frames.c). The frame of a ref: 0 for "e3" (the
 * page), 2 for "f2e3"; -1 when ref is not a ref. */
int wd_ref_frame(const char *ref);
void wd_frames_forget(struct wd *w);
/* The number the next frame found gets. */
int wd_frames_next(const struct wd *w);
/* Back to the top context, no answer wanted. */
void wd_frame_top(struct wd *w);
/* A frame's outcome: value (borrowed) and the top-page position of the
 * frame's viewport (dx, dy), or code and err (not_found: the frame left
 * the page). */
typedef void (*wd_frame_fn)(struct wd *w, void *ud, json_t *value, int dx, int dy,
                            enum error_code code, const char *err);
/* Into frame n (> 0) from the top: fn hears no value and no position. */
void wd_frame_enter(struct wd *w, int n, wd_frame_fn fn, void *ud);
/* From frame n back to the top: fn hears the frame's position. */
void wd_frame_leave(struct wd *w, int n, wd_frame_fn fn, void *ud);
/* A command (body stolen) run inside frame n, then back to the top: fn
 * hears its value and the frame's position. */
void wd_frame_command(struct wd *w, int n, const char *method, const char *path, json_t *body,
                      long timeout_ms, wd_frame_fn fn, void *ud);
/* The owned browser's DevTools session of frame n (> 0): fn hears it, or
 * NULL when there is none — no socket, a frame the session does not know,
 * or one on the way that runs in its parent's process (the same site):
 * then frame switching reaches it. */
typedef void (*wd_session_fn)(struct wd *w, void *ud, const char *session);
void wd_frame_session(struct wd *w, int n, wd_session_fn fn, void *ud);
/* A snapshot's rows (stolen) with those of its cross-origin iframes
 * spliced in where each is: xf the script's [[row index, x, y, depth]…],
 * script the snapshot script run in each frame, max the budget. Starts and
 * ends in frame's context. fn gets the rows (a new reference) and the
 * total, or code and err. */
typedef void (*wd_rows_fn)(struct wd *w, void *ud, json_t *rows, size_t total, enum error_code code,
                           const char *err);
void wd_frames_walk(struct wd *w, int frame, json_t *rows, size_t total, const json_t *xf,
                    const char *script, int max, bool hidden, bool keep, wd_rows_fn fn, void *ud);

/* A screenshot's password fields in the cross-origin iframes of the page:
 * rows (stolen) the rectangles script found in the page, xf its
 * [[row index, x, y, box, number]…], script run in each frame the same way
 * (shot.c), at most max rectangles. A frame that cannot be looked into
 * (gone, too deep, too many) is a rectangle of its own: its visible box.
 * Starts and ends at the top; its frames are not numbered for refs. */
void wd_frames_secrets(struct wd *w, json_t *rows, const json_t *xf, const char *script, int max,
                       wd_rows_fn fn, void *ud);

/* The chromedriver glovebox owns (driver.c). */
bool wd_driver_spawn(struct wd *w, char **err);
/* The arguments Chromium gets from glovebox. A new array. */
json_t *wd_driver_chrome_args(const struct wd *w);
/* The Chromium program, or NULL when none is installed. Static storage. */
const char *wd_driver_chromium(void);
/* Remove the private folder. */
void wd_driver_remove_tmpdir(struct wd *w);

/* Operations (ops.c, keys.c). */
void wd_screenshot_op(struct backend_call *bc);
void wd_click_op(struct backend_call *bc);
void wd_type_text_op(struct backend_call *bc);
void wd_press_key_op(struct backend_call *bc);
void wd_scroll_op(struct backend_call *bc);
void wd_drag_op(struct backend_call *bc);
void wd_snapshot_op(struct backend_call *bc);
void wd_find_op(struct backend_call *bc);
void wd_wait_for_op(struct backend_call *bc);
void wd_record_start_op(struct backend_call *bc);
void wd_window_list_op(struct backend_call *bc);
void wd_browser_logs_op(struct backend_call *bc);
void wd_press_button_op(struct backend_call *bc);
void wd_storage_save_op(struct backend_call *bc);
void wd_storage_load_op(struct backend_call *bc);
void wd_upload_file_op(struct backend_call *bc);
void wd_window_manage_op(struct backend_call *bc);
void wd_record_stop_op(struct backend_call *bc);
/* Where the element of bc's "ref" (or the first with its "text" and
 * "role") is, brought into view (and focused when focus): fn gets its
 * bounds in the viewport and whether it is a password field. bc is
 * answered with not_found when there is none (perceive.c). */
typedef void (*wd_target_fn)(struct backend_call *bc, const char *ref,
                             const struct screen_rect *bounds, bool password);
void wd_target(struct backend_call *bc, bool focus, wd_target_fn fn);
/* A snapshot's budget: "max_elements" or "max_nodes" (the same), else
 * fallback; -1 after answering bc when both are given. */
int wd_snapshot_budget(struct backend_call *bc, int fallback);

/* Native apps (native.c): the page source as elements, the finger. */
void wd_native_snapshot(struct backend_call *bc);
void wd_native_find(struct backend_call *bc);
void wd_native_read_text(struct backend_call *bc);
void wd_native_target(struct backend_call *bc, wd_target_fn fn);
/* What names a native element across page sources: role, name and
 * resource id (malloc'd). */
struct native_el;
char *wd_native_key(const struct native_el *e);
/* Drop the refs of the latest snapshot or find (and free them). */
void wd_native_forget_refs(struct wd *w);
/* wait_for on a native app (native_wait.c): the page source looked at
 * until a line of its text holds text or matches re (stolen), or the
 * element of ref shows — or, with gone, no longer. Arguments checked. */
void wd_native_wait(struct backend_call *bc, const char *text, struct pattern *re, const char *ref,
                    bool gone, int timeout_ms);
/* Input sources of W3C actions with pointerType touch. */
json_t *wd_touch(json_t *actions);
json_t *wd_touch_tap(int x, int y, int count, int hold_ms);
json_t *wd_touch_swipe(int x, int y, int x2, int y2, int ms);
json_t *wd_touch_scroll(const char *dir, int amount, int x, int y, int width, int height);
void wd_app_launch_op(struct backend_call *bc);
void wd_pointer_op(struct backend_call *bc);
void wd_key_hold_op(struct backend_call *bc);
void wd_read_text_op(struct backend_call *bc);
void wd_open_url_op(struct backend_call *bc);
/* The WebDriver key (a one-character string, U+E000…) of a named glovebox
 * key, or NULL when WebDriver has none. */
const char *wd_key_for(int named);
/* The key actions of press_key's key (a chord). False with *err. */
bool wd_key_actions(const char *spec, int repeat, json_t **actions, char **err);
/* The key actions that hold down (or let go of) spec: modifiers alone
 * ("shift", "ctrl+alt") or a chord. False with *err. */
bool wd_key_hold_actions(const char *spec, bool down, json_t **actions, char **err);

/* AWS Device Farm (devicefarm.c): make the remote access session and, once
 * it runs, wd_farm_running connects to its endpoint; false with *err when
 * it cannot begin. wd_farm_stop stops it and calls done (false: nothing
 * to stop); wd_farm_release lets go without waiting. */
struct webdriver_farm;
bool wd_farm_start(struct wd *w, const struct webdriver_farm *o, char **err);
bool wd_farm_stop(struct wd *w, void (*done)(struct wd *w));
void wd_farm_release(struct wd *w);
/* (webdriver.c) The farm's endpoint runs: connect to it. */
void wd_farm_running(struct wd *w, const char *endpoint);
/* Ends a start that cannot go on: the session stops with msg, the connect
 * hears code. */
void wd_fail_start(struct wd *w, enum error_code code, const char *msg);
/* Tells the connect's caller what it waits for. */
void wd_progress(struct wd *w, const char *message);

/* Delete the orphans of a server that died (sweep_delete.c). */
void wd_sweep(struct app *app, const json_t *rows);

/* Connect (webdriver.c). */
void wd_connect(struct app *app, const struct webdriver_options *o, webdriver_connected_fn done,
                void *ud);
