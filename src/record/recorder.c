#define LOG_MODULE "record"
#include "record/recorder.h"

#include "core/app.h"
#include "core/args.h"
#include "core/check.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "record/anim_writer.h"
#include "record/video_stream.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

/* One kept frame: the rectangle that differs from the frame before (the
 * whole picture for the first). */
struct delta {
    uint64_t at_ms;
    uint32_t x, y, w, h;
    uint8_t *rgba; /* w*h*4 */
};

struct recorder {
    struct app *app;
    char id[32];
    char *session;
    char *path;
    struct recorder_options o;
    struct frame last; /* the picture so far; width 0 before the first */
    struct delta *d;
    int count, cap;
    uint64_t held; /* bytes the deltas and the last picture hold */
    /* WebM: frames go to the encoder thread as they come; none are held
     * here but the last picture (to see what changed). */
    struct video_stream *video;
    int dropped;
    char *stopped_reason;
    uint64_t stopped_ms;
    /* finishing */
    uv_work_t work;
    uint64_t end_ms;
    recorder_done_fn done;
    void *done_ud;
    uint64_t bytes;
    char *err;
};

bool recorder_options_parse(const json_t *args, int default_fps, struct recorder_options *o,
                            char **err)
{
    const char *format = args_string(args, "format", "gif");
    if (!rec_format_parse(format, &o->format)) {
        *err = xasprintf("\"format\" must be \"gif\", \"webp\" or \"webm\", not \"%s\"", format);
        return false;
    }
    o->fps = (int)args_int(args, "fps", default_fps);
    o->max_bytes = (uint64_t)args_int(args, "max_bytes", (json_int_t)RECORDER_DEFAULT_MAX_BYTES);
    o->max_duration_ms =
        (uint64_t)args_int(args, "max_duration_s", RECORDER_DEFAULT_MAX_DURATION) * 1000;
    return true;
}

struct recorder *recorder_create(struct app *app, const char *session,
                                 const struct recorder_options *o, char **err)
{
    struct recorder *r = xcalloc(1, sizeof *r);
    r->path = recordings_new(app, o->format, r->id, err);
    if (!r->path) {
        free(r);
        return NULL;
    }
    if (o->format == REC_WEBM) {
        r->video = video_stream_create(r->path, o->fps, o->max_bytes, err);
        if (!r->video) {
            free(r->path);
            free(r);
            return NULL;
        }
    }
    r->app = app;
    r->session = session ? xstrdup(session) : NULL;
    r->o = *o;
    return r;
}

const char *recorder_id(const struct recorder *r)
{
    return r->id;
}

const struct recorder_options *recorder_options(const struct recorder *r)
{
    return &r->o;
}

int recorder_frames(const struct recorder *r)
{
    return r->count;
}

const char *recorder_stopped_reason(const struct recorder *r)
{
    return r->stopped_reason;
}

static void stop_at_limit(struct recorder *r, uint64_t at_ms, char *reason)
{
    r->stopped_reason = reason;
    r->stopped_ms = at_ms;
    log_warn("recording %s stopped after %d frames: %s; record_stop writes what was recorded",
             r->id, r->count, reason);
}

/* The smallest rectangle holding every pixel of f that differs from last;
 * false when none does. */
static bool changed_rect(const struct frame *last, const struct frame *f, uint32_t *x0,
                         uint32_t *y0, uint32_t *x1, uint32_t *y1)
{
    size_t row_bytes = (size_t)f->width * 4;
    uint32_t top = f->height, bottom = 0, left = f->width, right = 0;
    for (uint32_t y = 0; y < f->height; y++) {
        const uint8_t *a = last->rgba + (size_t)y * last->stride;
        const uint8_t *b = f->rgba + (size_t)y * f->stride;
        if (memcmp(a, b, row_bytes) == 0)
            continue;
        if (top == f->height)
            top = y;
        bottom = y + 1;
        uint32_t l = 0, rr = f->width;
        while (l < f->width && memcmp(a + (size_t)l * 4, b + (size_t)l * 4, 4) == 0)
            l++;
        while (rr > l && memcmp(a + (size_t)(rr - 1) * 4, b + (size_t)(rr - 1) * 4, 4) == 0)
            rr--;
        if (l < left)
            left = l;
        if (rr > right)
            right = rr;
    }
    if (top == f->height)
        return false;
    *x0 = left;
    *y0 = top;
    *x1 = right;
    *y1 = bottom;
    return true;
}

static void copy_rect(uint8_t *dst, size_t dst_stride, const uint8_t *src, size_t src_stride,
                      uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h; y++)
        memcpy(dst + y * dst_stride, src + y * src_stride, (size_t)w * 4);
}

/* The encoder thread takes the frame's pixels. */
static bool frame_render(void *data, struct frame *out, char **err)
{
    (void)err;
    struct frame *f = data;
    *out = *f;
    f->rgba = NULL;
    return true;
}

static void frame_release(void *data)
{
    struct frame *f = data;
    if (f->rgba)
        frame_finish(f);
    free(f);
}

/* WebM: the whole changed picture goes to the encoder; only the last one
 * stays here. */
static enum recorder_push push_video(struct recorder *r, const struct frame *f, uint64_t at_ms,
                                     uint32_t x0, uint32_t y0, uint32_t w, uint32_t h)
{
    if (!r->count) {
        frame_alloc(&r->last, f->width, f->height);
        r->held = (uint64_t)f->width * f->height * 4;
    }
    copy_rect(r->last.rgba + (size_t)y0 * r->last.stride + (size_t)x0 * 4, r->last.stride,
              f->rgba + (size_t)y0 * f->stride + (size_t)x0 * 4, f->stride, w, h);
    struct frame *copy = xmalloc(sizeof *copy);
    frame_alloc(copy, f->width, f->height);
    copy_rect(copy->rgba, copy->stride, r->last.rgba, r->last.stride, f->width, f->height);
    enum video_stream_offer taken =
        video_stream_offer(r->video, copy, frame_render, frame_release, at_ms);
    if (taken != VIDEO_STREAM_STOPPED) {
        r->count++;
        if (taken == VIDEO_STREAM_DROPPED)
            r->dropped++;
        return RECORDER_KEPT;
    }
    uint64_t stopped_ms = at_ms;
    char *reason = video_stream_stopped(r->video, &stopped_ms);
    stop_at_limit(r, stopped_ms, reason ? reason : xstrdup("the video stopped"));
    return RECORDER_STOPPED;
}

enum recorder_push recorder_push(struct recorder *r, const struct frame *f, uint64_t at_ms)
{
    if (r->stopped_reason)
        return RECORDER_STOPPED;
    if (r->video) {
        /* The encoder stopped (max_bytes) since the last frame. */
        uint64_t stopped_ms = 0;
        char *reason = video_stream_stopped(r->video, &stopped_ms);
        if (reason) {
            stop_at_limit(r, stopped_ms, reason);
            return RECORDER_STOPPED;
        }
    }
    if (at_ms > r->o.max_duration_ms) {
        stop_at_limit(r, r->o.max_duration_ms,
                      xasprintf("max_duration_s reached (%llu s)",
                                (unsigned long long)r->o.max_duration_ms / 1000));
        return RECORDER_STOPPED;
    }
    uint32_t x0 = 0, y0 = 0, x1 = f->width, y1 = f->height;
    if (r->count) {
        /* A screen resized mid-recording: the recording keeps its first
         * size, and frames of another size are left out. */
        if (f->width != r->last.width || f->height != r->last.height)
            return RECORDER_SAME;
        if (!changed_rect(&r->last, f, &x0, &y0, &x1, &y1))
            return RECORDER_SAME;
    }
    if (r->video)
        return push_video(r, f, at_ms, x0, y0, x1 - x0, y1 - y0);
    if (r->count >= RECORDER_MAX_FRAMES) {
        stop_at_limit(r, at_ms,
                      xasprintf("the frame limit was reached (%d frames)", RECORDER_MAX_FRAMES));
        return RECORDER_STOPPED;
    }
    uint32_t w = x1 - x0, h = y1 - y0;
    uint64_t cost = (uint64_t)w * h * 4 + sizeof(struct delta);
    if (!r->count)
        cost += (uint64_t)f->width * f->height * 4; /* the running picture */
    /* The first frame is always kept: a recording of nothing is no use. */
    if (r->count && r->held + cost > r->o.max_bytes) {
        stop_at_limit(r, at_ms,
                      xasprintf("max_bytes reached (%llu bytes of frames held, the next "
                                "frame needs %llu more)",
                                (unsigned long long)r->held, (unsigned long long)cost));
        return RECORDER_STOPPED;
    }
    r->held += cost;
    if (!r->count)
        frame_alloc(&r->last, f->width, f->height);
    if (r->count == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->d = xrealloc(r->d, (size_t)r->cap * sizeof *r->d);
    }
    struct delta *d = &r->d[r->count++];
    *d = (struct delta){at_ms, x0, y0, w, h, xmalloc((size_t)w * h * 4)};
    const uint8_t *src = f->rgba + (size_t)y0 * f->stride + (size_t)x0 * 4;
    copy_rect(d->rgba, (size_t)w * 4, src, f->stride, w, h);
    copy_rect(r->last.rgba + (size_t)y0 * r->last.stride + (size_t)x0 * 4, r->last.stride, src,
              f->stride, w, h);
    return RECORDER_KEPT;
}

/* Replays the deltas into one picture and hands each state to the writer. */
static void encode(struct recorder *r)
{
    if (r->video) {
        struct video_stream_result res;
        bool ok = video_stream_finish(r->video, r->end_ms, &res, &r->err);
        r->video = NULL;
        r->count = res.frames;
        r->dropped = res.dropped;
        r->bytes = ok ? res.bytes : 0;
        return;
    }
    if (!r->count) {
        r->err = xstrdup("no frame was recorded");
        return;
    }
    struct frame pic;
    frame_alloc(&pic, r->last.width, r->last.height);
    struct anim_writer *w =
        anim_writer_create(r->o.format, r->path, (int)pic.width, (int)pic.height, &r->err);
    for (int i = 0; w && i < r->count; i++) {
        struct delta *d = &r->d[i];
        copy_rect(pic.rgba + (size_t)d->y * pic.stride + (size_t)d->x * 4, pic.stride, d->rgba,
                  (size_t)d->w * 4, d->w, d->h);
        if (!anim_writer_add(w, &pic, d->at_ms, &r->err)) {
            anim_writer_abort(w);
            w = NULL;
        }
    }
    uint64_t end = r->end_ms > r->d[r->count - 1].at_ms ? r->end_ms : r->d[r->count - 1].at_ms;
    if (w && !anim_writer_close(w, end, &r->err))
        w = NULL;
    frame_finish(&pic);
    if (!r->err) {
        struct stat st;
        r->bytes = stat(r->path, &st) == 0 ? (uint64_t)st.st_size : 0;
    }
}

static void destroy(struct recorder *r)
{
    CHECK(!r->video); /* finished by encode */
    /* A video's count is of frames streamed: it holds no deltas. */
    for (int i = 0; r->d && i < r->count; i++)
        free(r->d[i].rgba);
    free(r->d);
    if (r->last.rgba)
        frame_finish(&r->last);
    free(r->session);
    free(r->path);
    free(r->stopped_reason);
    free(r->err);
    free(r);
}

/* The file is written (or not): index it and tell whoever waits. */
static void publish(struct recorder *r)
{
    json_t *result = NULL;
    if (!r->err) {
        struct recording_info info = {.path = r->path,
                                      .mime = rec_format_mime(r->o.format),
                                      .bytes = r->bytes,
                                      .frames = r->count,
                                      .duration_ms = r->end_ms,
                                      .session = r->session};
        memcpy(info.id, r->id, sizeof info.id);
        recordings_add(r->app, &info);
        result = recordings_result(&info, r->stopped_reason);
        if (r->o.format == REC_WEBM)
            json_object_set_new(result, "frames_dropped", json_integer(r->dropped));
    }
    if (r->done)
        r->done(r->done_ud, result, r->err);
    else {
        if (r->err)
            log_error("recording %s lost: %s", r->id, r->err);
        else
            log_warn("recording %s was not stopped; written to %s", r->id, r->path);
        json_decref(result);
    }
    destroy(r);
}

static void finish_work(uv_work_t *work)
{
    encode(work->data);
}

static void finish_done(uv_work_t *work, int status)
{
    struct recorder *r = work->data;
    if (status != 0 && !r->err)
        r->err = xstrdup("the recording was cancelled");
    publish(r);
}

static void set_end(struct recorder *r, uint64_t end_ms)
{
    if (r->stopped_reason)
        end_ms = r->stopped_ms;
    else if (end_ms > r->o.max_duration_ms) {
        stop_at_limit(r, r->o.max_duration_ms,
                      xasprintf("max_duration_s reached (%llu s)",
                                (unsigned long long)r->o.max_duration_ms / 1000));
        end_ms = r->o.max_duration_ms;
    }
    r->end_ms = end_ms;
}

void recorder_finish(struct recorder *r, uint64_t end_ms, recorder_done_fn done, void *ud)
{
    set_end(r, end_ms);
    r->done = done;
    r->done_ud = ud;
    r->work.data = r;
    uv_queue_work(r->app->loop, &r->work, finish_work, finish_done);
}

void recorder_finish_now(struct recorder *r, uint64_t end_ms)
{
    set_end(r, end_ms);
    encode(r);
    publish(r);
}
