#define LOG_MODULE "record"
#include "backend/frame_recording.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "image/pixel_budget.h"
#include "record/recorder.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* At most this many of the policy's areas are painted. */
#define MAX_REDACT 64

struct frame_recording {
    struct recorder *rec;
    struct app *app;
    const struct frame_recording_kind *kind;
    void *ud; /* the kind's, for sample; NULL once the session ended */
    struct frame_recording_slot *slot;
    uv_timer_t timer;
    uv_work_t work;
    uint64_t started_ms, at_ms;
    bool busy;      /* a sample asked for or on the worker pool */
    bool in_sample; /* inside kind->sample: its caller settles what follows */
    bool ending;    /* write the file once the sample in flight is back */
    bool last_look; /* record_stop: one more sample before writing */
    struct backend_call *stop_call;
    void (*idle)(void *ud); /* frame_recording_end's */
    void *idle_ud;
    struct frame_source src; /* of the sample in flight */
    char *err;               /* of the sample in flight */
    bool warned;
    const char *stopped; /* the recorder's stopped reason, read on the loop */
    struct screen_rect redact[MAX_REDACT];
    int n_redact;
};

static void closed(uv_handle_t *h)
{
    free(h->data);
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

/* Writes the file (on the worker pool, or now when the loop is ending),
 * lets the kind go on, and frees fr once its timer is closed. */
static void finalise(struct frame_recording *fr)
{
    uint64_t end = uv_now(fr->app->loop) - fr->started_ms;
    if (fr->app->shutting_down && !fr->stop_call)
        recorder_finish_now(fr->rec, end);
    else
        recorder_finish(fr->rec, end, fr->stop_call ? stop_done : NULL, fr->stop_call);
    fr->rec = NULL;
    if (fr->slot->draining == fr)
        fr->slot->draining = NULL;
    if (fr->idle)
        fr->idle(fr->idle_ud);
    if (uv_is_closing((uv_handle_t *)&fr->timer))
        free(fr);
    else
        uv_close((uv_handle_t *)&fr->timer, closed);
}

static void sample_run(uv_work_t *work)
{
    struct frame_recording *fr = work->data;
    struct frame_shot shot = {.unit = 1};
    struct frame_request rq = {0};
    if (!fr->src.produce(fr->src.ud, &rq, &shot, &fr->err)) {
        image_budget_release(shot.budget_pixels);
        free(shot.cursor.argb);
        return;
    }
    for (int i = 0; i < fr->n_redact; i++)
        frames_paint(&shot.frame, &fr->redact[i], shot.x, shot.y, shot.unit);
    for (int i = 0; i < shot.n_secrets; i++)
        frames_paint(&shot.frame, &shot.secrets[i], shot.x, shot.y, shot.unit);
    recorder_push(fr->rec, &shot.frame, fr->at_ms);
    frame_finish(&shot.frame);
    free(shot.cursor.argb);
    image_budget_release(shot.budget_pixels);
}

static void sample(struct frame_recording *fr);

/* A recording that is ending once no sample is in flight: record_stop's
 * last look (one sample begun after the call, so the recording ends on what
 * the screen shows now, not on a sample already on its way), then the file.
 * No last look once the session ended (ud NULL). */
static void settle(struct frame_recording *fr)
{
    if (!fr->ending || fr->busy)
        return;
    if (fr->last_look) {
        fr->last_look = false;
        sample(fr);
        if (fr->busy)
            return;
    }
    finalise(fr);
}

/* The sample is over (taken, or failed): the next may come. */
static void sample_over(struct frame_recording *fr)
{
    fr->busy = false;
    if (fr->err) {
        if (!fr->warned)
            log_warn("recording %s: cannot take a frame of the %s screen: %s", recorder_id(fr->rec),
                     fr->kind->kind, fr->err);
        fr->warned = true;
        free(fr->err);
        fr->err = NULL;
    }
    fr->stopped = recorder_stopped_reason(fr->rec);
    if (fr->stopped)
        uv_timer_stop(&fr->timer);
    /* A kind that fails at once: sample's caller settles (and may free fr). */
    if (!fr->in_sample)
        settle(fr);
}

static void sample_done(uv_work_t *work, int status)
{
    (void)status;
    struct frame_recording *fr = work->data;
    if (fr->src.release)
        fr->src.release(fr->src.ud);
    sample_over(fr);
}

void frame_recording_sampled(struct frame_recording *fr, const struct frame_source *src)
{
    fr->src = *src;
    fr->work.data = fr;
    uv_queue_work(fr->app->loop, &fr->work, sample_run, sample_done);
}

void frame_recording_failed(struct frame_recording *fr, const char *err)
{
    fr->err = xstrdup(err);
    sample_over(fr);
}

static void sample(struct frame_recording *fr)
{
    if (fr->busy || fr->stopped || !fr->ud)
        return;
    fr->busy = true;
    fr->at_ms = uv_now(fr->app->loop) - fr->started_ms;
    fr->in_sample = true;
    fr->kind->sample(fr->ud, fr);
    fr->in_sample = false;
}

static void on_tick(uv_timer_t *t)
{
    sample(t->data);
}

void frame_recording_start(struct frame_recording_slot *slot, struct backend_call *bc,
                           const struct frame_recording_kind *kind, void *ud)
{
    struct frame_recording *cur = slot->active;
    if (cur) {
        if (cur->stopped)
            backend_call_fail(bc,
                              "%s's recording %s stopped by itself (%s); call record_stop to "
                              "write it first",
                              bc->session->id, recorder_id(cur->rec), cur->stopped);
        else
            backend_call_fail(bc, "%s is already being recorded (%s); call record_stop first",
                              bc->session->id, recorder_id(cur->rec));
        return;
    }
    char *err = NULL;
    struct recorder_options o;
    if (!recorder_options_parse(bc->args, kind->default_fps, &o, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    if (o.fps > kind->max_fps) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "\"fps\" is at most %d for %s sessions%s, not %d", kind->max_fps,
                               kind->kind, kind->fps_note ? kind->fps_note : "", o.fps);
        return;
    }
    struct recorder *rec = recorder_create(bc->app, bc->session->id, &o, &err);
    if (!rec) {
        backend_call_fail(bc, "cannot record: %s", err);
        free(err);
        return;
    }
    struct frame_recording *fr = xcalloc(1, sizeof *fr);
    fr->rec = rec;
    fr->app = bc->app;
    fr->kind = kind;
    fr->ud = ud;
    fr->slot = slot;
    for (size_t i = 0; i < bc->guard->n_redact && fr->n_redact < MAX_REDACT; i++)
        fr->redact[fr->n_redact++] = bc->guard->redact[i];
    fr->started_ms = uv_now(bc->app->loop);
    uv_timer_init(bc->app->loop, &fr->timer);
    fr->timer.data = fr;
    uint64_t interval = 1000u / (uint64_t)o.fps;
    uv_timer_start(&fr->timer, on_tick, interval, interval);
    slot->active = fr;
    sample(fr);
    backend_call_done(bc,
                      json_pack("{s:s, s:s, s:i, s:s}", "session", bc->session->id, "recording",
                                recorder_id(rec), "fps", o.fps, "format",
                                rec_format_name(o.format)),
                      "recording %s as %s (%s) at up to %d fps", bc->session->id, recorder_id(rec),
                      rec_format_name(o.format), o.fps);
}

void frame_recording_stop(struct frame_recording_slot *slot, struct backend_call *bc)
{
    struct frame_recording *fr = slot->active;
    if (!fr) {
        if (slot->last[0])
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "%s is not being recorded; its recording %s was written when "
                                   "the session ended (glovebox://recording/%s)",
                                   bc->session->id, slot->last, slot->last);
        else
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "%s is not being recorded; call record_start first",
                                   bc->session->id);
        return;
    }
    slot->active = NULL;
    slot->draining = fr;
    fr->stop_call = bc;
    fr->ending = true;
    fr->last_look = true;
    uv_timer_stop(&fr->timer);
    settle(fr);
}

void frame_recording_end(struct frame_recording_slot *slot, void (*idle)(void *ud), void *ud)
{
    struct frame_recording *fr = slot->active;
    /* No last look for a record_stop still drained: the screen is going. */
    if (slot->draining)
        slot->draining->ud = NULL;
    if (!fr && slot->draining) {
        /* record_stop's sample is still out: idle once it is back. */
        slot->draining->idle = idle;
        slot->draining->idle_ud = ud;
        return;
    }
    if (!fr) {
        idle(ud);
        return;
    }
    snprintf(slot->last, sizeof slot->last, "%s", recorder_id(fr->rec));
    slot->active = NULL;
    slot->draining = fr;
    fr->ud = NULL;
    fr->ending = true;
    fr->idle = idle;
    fr->idle_ud = ud;
    uv_timer_stop(&fr->timer);
    settle(fr);
}

const char *frame_recording_active_id(const struct frame_recording_slot *slot)
{
    return slot->active ? recorder_id(slot->active->rec) : NULL;
}
