/* The android backend's shared state; private to src/backend/android/. */
#pragma once
#include "backend/android/adb.h"
#include "backend/backend.h"
#include "backend/frame_recording.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app;
struct session;
struct ui_tree;
struct android_wait;
struct android_shell;
struct frame;
struct ocr_result;
struct screen_guard;
struct android_stream;
struct android_check;
struct android_touch;

/* Timeouts of one adb step (ms): a device answers these in well under a
 * second; a screenshot moves megabytes. */
#define ANDROID_TIMEOUT_MS      15000
#define ANDROID_SHOT_TIMEOUT_MS 20000
#define ANDROID_MAX_TEXT        (8u << 20)  /* shell output kept, bytes */
#define ANDROID_MAX_SHOT        (96u << 20) /* a raw screencap, bytes */
#define ANDROID_MAX_APK         (1u << 30)  /* app_install's file, bytes */

struct android_ref {
    int x, y, w, h; /* bounds, screen pixels */
    /* Who the element is, to know it again in a later dump (wait_for ref):
     * its package, class and resource id (never NULL, "" when absent), and
     * its name (text, else description) when it has no resource id or
     * shares it with another element of the same snapshot (list rows);
     * else name is NULL. With neither an id nor a name, its bounds say
     * which (by_bounds). Owned by the refs array (perceive.c). */
    char *package, *cls, *resource_id, *name;
    bool by_bounds;
};

struct android {
    struct session *session;
    struct app *app;
    struct adb_server srv;
    char *serial, *model, *product, *version;
    int width, height, density;  /* as apps see the screen now (rotated) */
    int phys_width, phys_height; /* `wm size`, unrotated: cached at connect */
    int rotation;                /* 0-3 quarter turns: read at connect, kept by orientation */
    int pending;                 /* adb requests in flight */
    bool stopping, ended;        /* stop asked: end once pending is 0 */
    char *stop_reason;
    struct frame_recording_slot rec; /* the recording (shot.c) */
    struct android_wait *waits;      /* wait_for calls (wait.c) */
    struct android_shell *shell;     /* the long-lived shell for input (input_shell.c), or NULL */
    bool shell_off;                  /* the device keeps no shell open: a step per command */
    struct android_touch *touch;   /* touches as evdev events (touch_events.c), or NULL: `input` */
    char *input_note;              /* why taps go through `input` (NULL: asked for, or events) */
    struct android_stream *stream; /* the screen stream (stream.c), or NULL: screencap only */
    uint64_t acts;                 /* actions answered so far (the screen stream's clock) */
    struct android_ref *refs;      /* the elements of the latest snapshot/find: e1 = refs[0] */
    size_t n_refs;
    /* computer's pointer on a touch screen: where the last touch was (or
     * where the next one starts), and whether a finger is down. */
    int pointer_x, pointer_y;
    bool pointer_known, finger_down;
};

struct android *android_of(struct session *s);

/* The reply to one step of a call; the call's own data in bc->backend_data. */
typedef void (*android_step_fn)(struct backend_call *bc, const struct adb_reply *r);

/* Run a device service for bc's session: shell,v2,raw:cmd (ADB_SHELL_V2)
 * or exec:cmd (ADB_EXEC). A device that went away ends the session after
 * step has answered. */
void android_run(struct backend_call *bc, enum adb_mode mode, const char *cmd, uint64_t timeout_ms,
                 size_t max_bytes, android_step_fn step);
/* Bytes of a push on their way, of total (adb_progress_fn). */
typedef void (*android_progress_fn)(struct backend_call *bc, size_t sent, size_t total);
/* Write data (borrowed until step) to remote on bc's device (sync: push),
 * with progress (may be NULL) after each MiB. */
void android_push(struct backend_call *bc, const char *remote, const uint8_t *data, size_t len,
                  android_progress_fn progress, android_step_fn step);
/* Work of the session's own on its way (a recording being written): the
 * session ends only once every hold is released. Loop thread. */
void android_hold(struct android *a);
void android_release(struct android *a);
/* A failed step answered on bc: the adb error, or a non-zero exit with the
 * command's output. true when it was a failure (bc answered). */
bool android_step_failed(struct backend_call *bc, const struct adb_reply *r, const char *what);

/* Operations (ops.c, perceive.c, shot.c). */
void android_screenshot_op(struct backend_call *bc);
void android_pointer_op(struct backend_call *bc);
void android_snapshot_op(struct backend_call *bc);
void android_find_op(struct backend_call *bc);
void android_read_text_op(struct backend_call *bc);
void android_click_op(struct backend_call *bc);
void android_type_text_op(struct backend_call *bc);
void android_press_key_op(struct backend_call *bc);
void android_scroll_op(struct backend_call *bc);
void android_drag_op(struct backend_call *bc);
/* read_text by OCR (ocr_text.c): why is the fallback's reason (NULL: asked
 * for). usable: OCR is built and the call's lang installed, else *err. */
void android_read_ocr(struct backend_call *bc, const char *why);
bool android_ocr_usable(const struct backend_call *bc, enum error_code *code, char **err);
/* find by OCR (ocr_text.c): the places the call's text shows in the
 * pixels, when no element of the window has it. */
void android_find_ocr(struct backend_call *bc);
/* Where the pixels show text (exact: case and whole words), by OCR: at
 * gets the centre of the first place and the match (borrowed); none: bc
 * answered not_found. */
typedef void (*android_at_fn)(struct backend_call *bc, int x, int y, const json_t *match);
void android_locate_ocr(struct backend_call *bc, const char *text, bool exact, android_at_fn at);
/* Worker thread: screencap's raw output (stolen) decoded, the guard's
 * redact areas painted over, and the rectangle (w 0: everything) read in
 * lang, for at most deadline_ms (0: no limit). false with *code, *err. */
bool android_ocr_raw(uint8_t *raw, size_t len, const struct screen_guard *g, int x, int y, int w,
                     int h, const char *lang, int deadline_ms, struct ocr_result *out,
                     enum error_code *code, char **err);
/* The session's refs dropped (perceive.c). */
void android_refs_clear(struct android *a);
/* wait_for (wait.c); waits_end answers the waits of a stopping session. */
void android_wait_for_op(struct backend_call *bc);
void android_waits_end(struct android *a, const char *why);

/* Run cmd (a shell line) in the session's long-lived shell (input_shell.c),
 * opened on first use; step gets the reply a step of its own would give
 * (without req: no adb_reply_take_out). shell_end: the session stops. */
void android_shell_run(struct backend_call *bc, const char *cmd, android_step_fn step);
void android_shell_end(struct android *a);
/* The device went away (error: why): the session ends (android.c). */
void android_device_lost(struct android *a, const char *error);

/* Run cmd (a shell line); answer result (stolen) with caption (stolen,
 * freed) once it exits 0, else the device's words. */
void android_act(struct backend_call *bc, json_t *result, char *caption, const char *cmd);
/* s single-quoted for the device's sh ('\'' for a quote); caller frees. */
char *android_sh_quote(const char *s);
/* The rotation in a `dumpsys input` (0-3), or -1. */
int android_parse_rotation(const char *dump);
/* Rotation r (0-3) applied to the cached screen size. */
void android_set_rotation(struct android *a, int r);

/* screencap's raw output (stolen: 32-bit pixels become the frame's own
 * buffer) as an RGBA frame (shot.c); false with *code, *err. */
bool android_decode_raw(uint8_t *raw, size_t len, struct frame *f, enum error_code *code,
                        char **err);

/* A screenshot by screencap (shot.c); check (taken, may be NULL) compares
 * it with the stream's latest picture on the way. */
void android_screencap_shot(struct backend_call *bc, struct android_check *check);

/* The screen stream (stream.c): screenrecord's H.264 decoded as it comes.
 * start: at connect, when asked; end: the session stops (its connections
 * close before the session ends). */
void android_stream_start(struct android *a);
void android_stream_end(struct android *a);
/* An action's command answered: later screenshots must show its effect. */
void android_stream_acted(struct android *a);
/* Whether a screenshot with these arguments can come from the stream's
 * pictures (their size is the default fit). */
bool android_stream_fits(const struct android *a, int max_width, bool fit, bool region);
/* Answers a screenshot from the stream's latest picture when it shows the
 * screen after the last action, else (after a short wait) by screencap. */
void android_stream_screenshot(struct backend_call *bc);
/* A look for a subscription's sampler (screen_resources.c), which tells a
 * change by comparing the images' bytes: always the same kind of image —
 * the stream's latest picture while the stream is on (nothing while it has
 * none yet), screencaps while it is off — since a screencap and a picture
 * of the same screen differ (H.264 is lossy). */
void android_stream_sample(struct backend_call *bc);
/* "live", "starting", "failed" (*note says why) or "off". */
const char *android_stream_state(const struct android *a, const char **note);
/* Worker pool: compares the screencap shot with c's picture. Loop thread
 * (end): what it found goes to the stream; c is freed. NULL: nothing. */
void android_check_run(struct android_check *c, const struct frame *shot);
void android_check_end(struct android *a, struct android_check *c);

/* Recordings through the shared recorder (shot.c). */
void android_record_start_op(struct backend_call *bc);
void android_record_stop_op(struct backend_call *bc);

/* Apps and device settings (apps.c, device.c). */
void android_press_button_op(struct backend_call *bc);
void android_app_list_op(struct backend_call *bc);
void android_app_launch_op(struct backend_call *bc);
void android_app_stop_op(struct backend_call *bc);
void android_app_reset_op(struct backend_call *bc);
void android_app_install_op(struct backend_call *bc);
void android_app_uninstall_op(struct backend_call *bc);
void android_orientation_op(struct backend_call *bc);
void android_set_network_op(struct backend_call *bc);
void android_open_url_op(struct backend_call *bc);

/* Touches written to the touchscreen's evdev node (touch_events.c).
 * open: at connect, one `getevent -p` step, then the stream kept open;
 * opened gets t once the device said it is writing (t NULL with why
 * otherwise: no touchscreen, protocol A, not writable, unknown ABI, the
 * stream refused), always later. attach: t belongs to the session from
 * then on (a->touch, cleared when the stream ends). close: a t never
 * attached goes. live: taps can go as events now. The gestures answer bc
 * once their last frame is written (result and caption stolen); end: the
 * session stops (a finger left down is lifted, the stream's input
 * closed). */
typedef void (*android_touch_opened_fn)(void *ud, struct android_touch *t, const char *why);
void android_touch_open(uv_loop_t *loop, const struct adb_server *srv, const char *serial,
                        android_touch_opened_fn opened, void *ud);
void android_touch_attach(struct android_touch *t, struct android *a);
void android_touch_close(struct android_touch *t);
const char *android_touch_node(const struct android_touch *t);
bool android_touch_live(const struct android *a);
/* count taps TAP_GAP apart, or one press held hold_ms (> 0). */
void android_touch_tap(struct backend_call *bc, int x, int y, int count, int hold_ms,
                       json_t *result, char *caption);
/* A finger down at x1,y1, moved about every 8 ms to x2,y2 over ms, lifted. */
void android_touch_swipe(struct backend_call *bc, int x1, int y1, int x2, int y2, int ms,
                         json_t *result, char *caption);
/* computer's pointer: one frame (down, up, else a move). */
void android_touch_pointer(struct backend_call *bc, bool down, bool up, int x, int y,
                           json_t *result, char *caption);
void android_touch_end(struct android *a);

/* `input text` commands that type text literally (input_text.c): NULL with
 * *err (not_supported) when text has characters `input text` cannot type. */
char *android_input_text_command(const char *text, char **err);
/* The KEYCODE number for a glovebox key spec; false with *err, *code. */
bool android_keycode(const char *spec, int *keycode, enum error_code *code, char **err);
