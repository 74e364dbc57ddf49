/* record_start/record_stop on a phone: the frame source for the shared
 * recorder (record/recorder.h). A timer asks for `exec:screencap` at fps;
 * a sample still on its way when the next is due skips that one (a phone
 * takes 100-500 ms per screencap, so the rate falls instead of queueing).
 * Each answer is decoded on the worker pool, painted over where the
 * policy redacts, and offered to the recorder, which keeps it only if it
 * changed. The recording owns its adb requests: a session that ends mid-
 * sample lets the sample finish, then the file is written. */
#define LOG_MODULE "record"
#include "backend/android/internal.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "record/recorder.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANDROID_DEFAULT_FPS 2
#define ANDROID_MAX_FPS     10
#define MAX_REDACT          64

struct android_rec {
    struct recorder *rec;
    struct app *app;
    struct android *a;      /* NULL once the session has ended or record_stop came */
    struct android *stop_a; /* record_stop's session (kept by its call) */
    struct android *held;   /* the session kept from ending by the sample on its way */
    struct adb_server srv;
    char *serial;
    uv_timer_t timer;
    uv_work_t work;
    uint64_t started_ms;
    bool busy;                      /* a sample on its way (adb, then the worker pool) */
    bool ending;                    /* write the file once the sample in flight is back */
    bool last_look;                 /* record_stop: one more sample before writing */
    struct backend_call *stop_call; /* record_stop waiting; NULL at session end */
    struct screen_rect redact[MAX_REDACT];
    int n_redact;
    uint64_t at_ms; /* of the sample in flight */
    uint8_t *raw;   /* its pixels, for the worker */
    size_t raw_len;
    char *decode_err;    /* from the worker */
    const char *stopped; /* the recorder's reason, read on the loop thread */
    bool warned;
};

static void rec_closed(uv_handle_t *h)
{
    struct android_rec *ar = h->data;
    free(ar->serial);
    free(ar);
}

static void stop_done(void *ud, json_t *result, const char *err)
{
    struct backend_call *bc = ud;
    if (!result) {
        backend_call_fail(bc, "cannot write the recording: %s", err);
        return;
    }
    const char *reason = json_string_value(json_object_get(result, "stopped_reason"));
    backend_call_done_link(bc, result, json_string_value(json_object_get(result, "uri")),
                           json_string_value(json_object_get(result, "recording")),
                           json_string_value(json_object_get(result, "mime_type")),
                           "recorded %d frames over %.1f s to %s%s%s",
                           (int)json_integer_value(json_object_get(result, "frames")),
                           (double)json_integer_value(json_object_get(result, "duration_ms")) /
                               1000.0,
                           json_string_value(json_object_get(result, "path")),
                           reason ? "; stopped early: " : "", reason ? reason : "");
}

static void finalise(struct android_rec *ar)
{
    uint64_t end = uv_now(ar->app->loop) - ar->started_ms;
    struct recorder *rec = ar->rec;
    ar->rec = NULL;
    if (ar->app->shutting_down && !ar->stop_call)
        recorder_finish_now(rec, end);
    else
        recorder_finish(rec, end, ar->stop_call ? stop_done : NULL, ar->stop_call);
    /* The session is held until here, so the server's final close of every
     * handle cannot have come first; if it did, ar stays (freeing a
     * closing handle would be worse). */
    if (!uv_is_closing((uv_handle_t *)&ar->timer))
        uv_close((uv_handle_t *)&ar->timer, rec_closed);
}

static void warn_once(struct android_rec *ar, const char *what)
{
    if (!ar->warned)
        log_warn("recording %s: cannot capture %s: %s", recorder_id(ar->rec), ar->serial, what);
    ar->warned = true;
}

static void paint(struct frame *f, const struct screen_rect *r, int n)
{
    for (int i = 0; i < n; i++) {
        int x0 = r[i].x < 0 ? 0 : r[i].x, y0 = r[i].y < 0 ? 0 : r[i].y;
        int x1 = r[i].x + r[i].width, y1 = r[i].y + r[i].height;
        if (x1 > (int)f->width)
            x1 = (int)f->width;
        if (y1 > (int)f->height)
            y1 = (int)f->height;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++)
                memcpy(f->rgba + (size_t)y * f->stride + (size_t)x * 4, "\x60\x60\x60\xff", 4);
    }
}

static void decode_run(uv_work_t *work)
{
    struct android_rec *ar = work->data;
    struct frame f;
    enum error_code code = ERROR_TOOL_FAILED;
    uint8_t *raw = ar->raw;
    ar->raw = NULL;
    bool ok = android_decode_raw(raw, ar->raw_len, &f, &code, &ar->decode_err);
    if (!ok)
        return;
    paint(&f, ar->redact, ar->n_redact);
    recorder_push(ar->rec, &f, ar->at_ms);
    frame_finish(&f);
}

static void sample(struct android_rec *ar);

static void sample_over(struct android_rec *ar)
{
    /* Let the session go last: its end may close every handle (shutdown),
     * and the file must be on its way and the timer closing by then. */
    struct android *held = ar->held;
    ar->held = NULL;
    ar->busy = false;
    ar->stopped = recorder_stopped_reason(ar->rec);
    if (ar->stopped)
        uv_timer_stop(&ar->timer);
    if (ar->ending) {
        if (ar->last_look) {
            /* The sample that was on its way began before record_stop. */
            ar->last_look = false;
            sample(ar);
        }
        if (!ar->busy)
            finalise(ar);
    }
    if (held)
        android_release(held);
}

static void decode_done(uv_work_t *work, int status)
{
    (void)status;
    struct android_rec *ar = work->data;
    if (ar->decode_err) {
        warn_once(ar, ar->decode_err);
        free(ar->decode_err);
        ar->decode_err = NULL;
    }
    sample_over(ar);
}

static void captured(void *ud, const struct adb_reply *r)
{
    struct android_rec *ar = ud;
    if (!r->ok) {
        warn_once(ar, r->error);
        sample_over(ar);
        return;
    }
    ar->raw = adb_reply_take_out(r, &ar->raw_len);
    ar->work.data = ar;
    uv_queue_work(ar->app->loop, &ar->work, decode_run, decode_done);
}

static void sample(struct android_rec *ar)
{
    if (ar->busy || ar->stopped)
        return;
    ar->at_ms = uv_now(ar->app->loop) - ar->started_ms;
    ar->busy = true;
    ar->held = ar->a ? ar->a : ar->stop_a;
    if (ar->held)
        android_hold(ar->held);
    adb_request(ar->app->loop, &ar->srv, ar->serial, "exec:screencap", ADB_EXEC,
                ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT, captured, ar);
}

static void on_tick(uv_timer_t *t)
{
    sample(t->data);
}

void android_record_start_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    if (a->rec && a->rec->stopped) {
        backend_call_fail(bc,
                          "%s's recording %s stopped by itself (%s); call record_stop to write "
                          "it first",
                          bc->session->id, recorder_id(a->rec->rec), a->rec->stopped);
        return;
    }
    if (a->rec) {
        backend_call_fail(bc, "%s is already being recorded (%s); call record_stop first",
                          bc->session->id, recorder_id(a->rec->rec));
        return;
    }
    char *err = NULL;
    struct recorder_options o;
    if (!recorder_options_parse(bc->args, ANDROID_DEFAULT_FPS, &o, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    if (o.fps > ANDROID_MAX_FPS) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "fps: at most %d for android sessions (each frame is a screencap), "
                               "not %d",
                               ANDROID_MAX_FPS, o.fps);
        return;
    }
    struct recorder *rec = recorder_create(bc->app, bc->session->id, &o, &err);
    if (!rec) {
        backend_call_fail(bc, "cannot record: %s", err);
        free(err);
        return;
    }
    struct android_rec *ar = xcalloc(1, sizeof *ar);
    ar->rec = rec;
    ar->app = bc->app;
    ar->a = a;
    ar->srv = a->srv;
    ar->serial = xstrdup(a->serial);
    for (size_t i = 0; i < bc->guard->n_redact && ar->n_redact < MAX_REDACT; i++)
        ar->redact[ar->n_redact++] = bc->guard->redact[i];
    ar->started_ms = uv_now(bc->app->loop);
    uv_timer_init(bc->app->loop, &ar->timer);
    ar->timer.data = ar;
    uint64_t interval = 1000u / (uint64_t)o.fps;
    uv_timer_start(&ar->timer, on_tick, interval, interval);
    a->rec = ar;
    sample(ar);
    backend_call_done(bc,
                      json_pack("{s:s, s:s, s:i, s:s}", "session", bc->session->id, "recording",
                                recorder_id(rec), "fps", o.fps, "format",
                                rec_format_name(o.format)),
                      "recording %s as %s (%s) at up to %d fps", bc->session->id, recorder_id(rec),
                      rec_format_name(o.format), o.fps);
}

void android_record_stop_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    struct android_rec *ar = a->rec;
    if (!ar) {
        if (a->last_recording[0])
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "%s is not being recorded; its recording %s was written when "
                                   "the session ended (glovebox://recording/%s)",
                                   bc->session->id, a->last_recording, a->last_recording);
        else
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "%s is not being recorded; call record_start first",
                                   bc->session->id);
        return;
    }
    ar->stop_call = bc;
    uv_timer_stop(&ar->timer);
    a->rec = NULL;
    ar->a = NULL;
    ar->stop_a = a;
    ar->ending = true;
    /* One last look, so the recording ends on what the screen shows now
     * (after the sample on its way, if one is). */
    ar->last_look = true;
    if (!ar->busy)
        sample_over(ar);
}

void android_record_end(struct android *a)
{
    struct android_rec *ar = a->rec;
    if (!ar)
        return;
    snprintf(a->last_recording, sizeof a->last_recording, "%s", recorder_id(ar->rec));
    a->rec = NULL;
    ar->a = NULL;
    ar->ending = true;
    uv_timer_stop(&ar->timer);
    if (!ar->busy)
        finalise(ar);
}
