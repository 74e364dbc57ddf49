/* record_start/record_stop on a desktop: the frame source for the shared
 * recorder (record/recorder.h). A timer samples the screen at fps; each
 * sample is captured on the worker pool through a recording-own X
 * connection (so a capture in flight never races the desktop's teardown),
 * painted over where screenshots are (the policy's redact areas and
 * password fields), and offered to the recorder, which keeps it only if it
 * changed. */
#define LOG_MODULE "record"
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/xgrab.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "record/recorder.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

#define DESKTOP_DEFAULT_FPS 5
#define DESKTOP_MAX_FPS     30
/* At most this many redact areas from the policy are painted. */
#define MAX_REDACT 64

struct desktop_rec {
    struct recorder *rec;
    struct app *app;
    struct desktop *d; /* NULL once the session has ended */
    struct xgrab *grab;
    uv_timer_t timer;
    uv_work_t work;
    uint64_t started_ms;
    bool busy;                      /* a capture on the worker pool */
    bool ending;                    /* write the file once the capture in flight is back */
    struct backend_call *stop_call; /* record_stop waiting; NULL at session end */
    /* What is painted over: the policy's areas (copied at record_start) and
     * the password fields known when the sample was asked for. */
    struct perceive_rect paint[MAX_REDACT + PERCEIVE_MAX_SECRETS];
    int n_policy, n_paint;
    uint64_t at_ms;    /* of the capture in flight */
    char *capture_err; /* of the capture in flight */
    /* The recorder's stopped reason, copied on the loop thread once no
     * sample is in flight (the recorder is written from the worker). */
    const char *stopped;
    bool warned; /* a failed capture was logged once */
};

static void paint(struct frame *f, const struct perceive_rect *r, int n)
{
    for (int i = 0; i < n; i++) {
        int x0 = r[i].x < 0 ? 0 : r[i].x, y0 = r[i].y < 0 ? 0 : r[i].y;
        int x1 = r[i].x + r[i].w, y1 = r[i].y + r[i].h;
        if (x1 > (int)f->width)
            x1 = (int)f->width;
        if (y1 > (int)f->height)
            y1 = (int)f->height;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++)
                memcpy(f->rgba + (size_t)y * f->stride + (size_t)x * 4, "\x60\x60\x60\xff", 4);
    }
}

static void sample_run(uv_work_t *work)
{
    struct desktop_rec *dr = work->data;
    struct frame f;
    if (!xgrab_screen(dr->grab, &f, &dr->capture_err))
        return;
    paint(&f, dr->paint, dr->n_paint);
    recorder_push(dr->rec, &f, dr->at_ms);
    frame_finish(&f);
}

static void rec_closed(uv_handle_t *h)
{
    struct desktop_rec *dr = h->data;
    xgrab_destroy(dr->grab);
    free(dr);
}

static void stop_done(void *ud, json_t *result, const char *err)
{
    struct backend_call *bc = ud;
    if (!result) {
        backend_call_fail(bc, "cannot write the recording: %s", err);
        return;
    }
    const char *reason = json_string_value(json_object_get(result, "stopped_reason"));
    /* A file the client fetches: linked, not inlined. */
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

/* Writes the file (on the worker pool, or now when the loop is ending) and
 * lets go of the sampling. */
static void finalise(struct desktop_rec *dr)
{
    uint64_t end = uv_now(dr->app->loop) - dr->started_ms;
    struct recorder *rec = dr->rec;
    dr->rec = NULL;
    if (dr->app->shutting_down && !dr->stop_call)
        recorder_finish_now(rec, end);
    else
        recorder_finish(rec, end, dr->stop_call ? stop_done : NULL, dr->stop_call);
    /* At exit the loop may have closed the timer already (without a
     * callback). */
    if (uv_is_closing((uv_handle_t *)&dr->timer))
        rec_closed((uv_handle_t *)&dr->timer);
    else
        uv_close((uv_handle_t *)&dr->timer, rec_closed);
}

static void sample(struct desktop_rec *dr);

static void sample_done(uv_work_t *work, int status)
{
    (void)status;
    struct desktop_rec *dr = work->data;
    dr->busy = false;
    if (dr->capture_err) {
        if (!dr->warned)
            log_warn("recording %s: cannot capture the screen: %s", recorder_id(dr->rec),
                     dr->capture_err);
        dr->warned = true;
        free(dr->capture_err);
        dr->capture_err = NULL;
    }
    dr->stopped = recorder_stopped_reason(dr->rec);
    if (dr->stopped)
        uv_timer_stop(&dr->timer);
    if (dr->ending)
        finalise(dr);
}

static void sample(struct desktop_rec *dr)
{
    if (dr->busy || dr->stopped)
        return;
    dr->n_paint = dr->n_policy;
    if (dr->d && dr->d->perceive)
        dr->n_paint +=
            perceive_secret_rects(dr->d->perceive, dr->paint + dr->n_policy, PERCEIVE_MAX_SECRETS);
    dr->at_ms = uv_now(dr->app->loop) - dr->started_ms;
    dr->busy = true;
    dr->work.data = dr;
    uv_queue_work(dr->app->loop, &dr->work, sample_run, sample_done);
}

static void on_tick(uv_timer_t *t)
{
    /* A sample still in flight when the next is due: that one is skipped,
     * so a slow capture lowers the rate instead of queueing. */
    sample(t->data);
}

void desktop_record_start_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    if (d->rec && d->rec->stopped) {
        backend_call_fail(bc,
                          "%s's recording %s stopped by itself (%s); call record_stop to "
                          "write it first",
                          bc->session->id, recorder_id(d->rec->rec), d->rec->stopped);
        return;
    }
    if (d->rec) {
        backend_call_fail(bc, "%s is already being recorded (%s); call record_stop first",
                          bc->session->id, recorder_id(d->rec->rec));
        return;
    }
    char *err = NULL;
    struct recorder_options o;
    if (!recorder_options_parse(bc->args, DESKTOP_DEFAULT_FPS, &o, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    if (o.fps > DESKTOP_MAX_FPS) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "\"fps\" is at most %d for desktop sessions, not %d",
                               DESKTOP_MAX_FPS, o.fps);
        return;
    }
    struct recorder *rec = recorder_create(bc->app, bc->session->id, &o, &err);
    if (!rec) {
        backend_call_fail(bc, "cannot record: %s", err);
        free(err);
        return;
    }
    struct desktop_rec *dr = xcalloc(1, sizeof *dr);
    dr->rec = rec;
    dr->app = bc->app;
    dr->d = d;
    dr->grab = xgrab_create(d->display);
    for (size_t i = 0; i < bc->guard->n_redact && dr->n_policy < MAX_REDACT; i++) {
        const struct screen_rect *r = &bc->guard->redact[i];
        dr->paint[dr->n_policy++] = (struct perceive_rect){r->x, r->y, r->width, r->height};
    }
    dr->started_ms = uv_now(bc->app->loop);
    uv_timer_init(bc->app->loop, &dr->timer);
    dr->timer.data = dr;
    uint64_t interval = 1000u / (uint64_t)o.fps;
    uv_timer_start(&dr->timer, on_tick, interval, interval);
    d->rec = dr;
    sample(dr);
    backend_call_done(bc,
                      json_pack("{s:s, s:s, s:i, s:s}", "session", bc->session->id, "recording",
                                recorder_id(rec), "fps", o.fps, "format",
                                rec_format_name(o.format)),
                      "recording %s as %s (%s) at up to %d fps", bc->session->id, recorder_id(rec),
                      rec_format_name(o.format), o.fps);
}

void desktop_record_stop_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    struct desktop_rec *dr = d->rec;
    if (!dr) {
        if (d->last_recording[0])
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "%s is not being recorded; its recording %s was written when "
                                   "the session ended (glovebox://recording/%s)",
                                   bc->session->id, d->last_recording, d->last_recording);
        else
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "%s is not being recorded; call record_start first",
                                   bc->session->id);
        return;
    }
    dr->stop_call = bc;
    dr->ending = true;
    uv_timer_stop(&dr->timer);
    /* One last look, so the recording ends on what the screen shows now. */
    sample(dr);
    d->rec = NULL;
    dr->d = NULL;
    if (!dr->busy)
        finalise(dr);
}

void desktop_record_end(struct desktop *d)
{
    struct desktop_rec *dr = d->rec;
    if (!dr)
        return;
    snprintf(d->last_recording, sizeof d->last_recording, "%s", recorder_id(dr->rec));
    d->rec = NULL;
    dr->d = NULL;
    dr->ending = true;
    uv_timer_stop(&dr->timer);
    if (!dr->busy)
        finalise(dr);
}
