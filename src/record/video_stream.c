/* The encoder thread of a WebM recording (video_stream.h). The producer and
 * the thread share one slot under a mutex: the producer fills it (dropping
 * what it held) and signals; the thread empties it and encodes with the
 * mutex released. The writer is made on the first frame, whose size the
 * video takes. */
#define LOG_MODULE "record"
#include "record/video_stream.h"

#include "core/log.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "record/video.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct slot {
    void *data; /* NULL when empty */
    video_stream_render_fn render;
    video_stream_release_fn release;
    uint64_t at_ms;
};

struct video_stream {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /* Under lock: the first frame, never replaced (a video starts with the
     * screen as it was when recording began, however slowly the encoder
     * starts), and the newest since, which replaces one not taken yet. */
    struct slot first, next;
    bool offered;
    bool closing;
    bool stopped; /* no more frames are taken */
    char *stopped_reason;
    uint64_t stopped_ms;
    int frames, dropped;
    /* The thread's own (read by finish after the join): */
    char *path;
    int fps;
    uint64_t max_bytes;
    struct video_writer *w;
    int width, height; /* of the first frame */
    char *err;
};

static void stop(struct video_stream *s, uint64_t at_ms, char *reason)
{
    pthread_mutex_lock(&s->lock);
    if (!s->stopped) {
        s->stopped = true;
        s->stopped_reason = reason;
        s->stopped_ms = at_ms;
        reason = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    free(reason);
}

static void encode(struct video_stream *s, struct slot *in)
{
    struct frame f = {0};
    char *err = NULL;
    if (!in->render(in->data, &f, &err)) {
        s->err = err;
        stop(s, in->at_ms, xasprintf("the video could not be made: %s", err));
        return;
    }
    if (!s->w) {
        s->width = (int)f.width;
        s->height = (int)f.height;
        s->w = video_writer_create(s->path, s->width, s->height, s->fps, s->max_bytes, &err);
        if (!s->w) {
            s->err = err;
            stop(s, in->at_ms, xasprintf("the video could not be made: %s", err));
            frame_finish(&f);
            return;
        }
    }
    /* A screen resized mid-recording: the video keeps its first size, and
     * frames of another size are left out. */
    if ((int)f.width == s->width && (int)f.height == s->height) {
        uint64_t before = video_writer_bytes(s->w);
        if (!video_writer_add(s->w, &f, in->at_ms, &err)) {
            s->err = err;
            stop(s, in->at_ms, xasprintf("the video encoder failed: %s", err));
        } else if (video_writer_full(s->w)) {
            stop(s, in->at_ms,
                 xasprintf("max_bytes reached (the file holds %llu bytes, the next frame did "
                           "not fit in %llu)",
                           (unsigned long long)before, (unsigned long long)s->max_bytes));
        } else {
            pthread_mutex_lock(&s->lock);
            s->frames++;
            pthread_mutex_unlock(&s->lock);
        }
    }
    frame_finish(&f);
}

static void *run(void *arg)
{
    struct video_stream *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->first.data && !s->next.data && !s->closing)
            pthread_cond_wait(&s->wake, &s->lock);
        struct slot *take = s->first.data ? &s->first : &s->next;
        if (!take->data)
            break; /* closing, and nothing left to encode */
        struct slot in = *take;
        take->data = NULL;
        bool skip = s->stopped;
        pthread_mutex_unlock(&s->lock);
        if (!skip)
            encode(s, &in);
        in.release(in.data);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

struct video_stream *video_stream_create(const char *path, int fps, uint64_t max_bytes, char **err)
{
    /* Fail at record_start, not after an hour of recording. */
    if (!video_available(err))
        return NULL;
    struct video_stream *s = xcalloc(1, sizeof *s);
    s->path = xstrdup(path);
    s->fps = fps;
    s->max_bytes = max_bytes;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    /* Signals are the loop's: the encoder thread takes none. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, run, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        *err = xasprintf("cannot start the video encoder thread: %s", strerror(rc));
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        free(s->path);
        free(s);
        return NULL;
    }
    /* Named, so its CPU can be told apart (top -H, bench/record_bench.mjs);
     * libvpx's own threads started from it inherit the name. */
    pthread_setname_np(s->thread, "gb-video");
    return s;
}

enum video_stream_offer video_stream_offer(struct video_stream *s, void *data,
                                           video_stream_render_fn render,
                                           video_stream_release_fn release, uint64_t at_ms)
{
    struct slot old = {0};
    enum video_stream_offer r = VIDEO_STREAM_QUEUED;
    pthread_mutex_lock(&s->lock);
    if (s->stopped || s->closing) {
        r = VIDEO_STREAM_STOPPED;
    } else if (!s->offered) {
        s->offered = true;
        s->first = (struct slot){data, render, release, at_ms};
        pthread_cond_signal(&s->wake);
    } else {
        if (s->next.data) {
            old = s->next;
            s->dropped++;
            r = VIDEO_STREAM_DROPPED;
        }
        s->next = (struct slot){data, render, release, at_ms};
        pthread_cond_signal(&s->wake);
    }
    pthread_mutex_unlock(&s->lock);
    /* Freed outside the lock: the encoder never waits on a free. */
    if (r == VIDEO_STREAM_STOPPED)
        release(data);
    if (old.data)
        old.release(old.data);
    return r;
}

char *video_stream_stopped(struct video_stream *s, uint64_t *at_ms)
{
    char *reason = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->stopped) {
        reason = xstrdup(s->stopped_reason);
        *at_ms = s->stopped_ms;
    }
    pthread_mutex_unlock(&s->lock);
    return reason;
}

bool video_stream_finish(struct video_stream *s, uint64_t end_ms, struct video_stream_result *res,
                         char **err)
{
    pthread_mutex_lock(&s->lock);
    s->closing = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    /* The thread has ended: everything below is this thread's. */
    *res = (struct video_stream_result){.frames = s->frames, .dropped = s->dropped};
    bool ok = false;
    if (s->err) {
        *err = s->err;
        s->err = NULL;
        video_writer_abort(s->w);
    } else if (!s->w) {
        *err = xstrdup("no frame was recorded");
    } else if (video_writer_close(s->w, end_ms, err)) {
        struct stat st;
        res->bytes = stat(s->path, &st) == 0 ? (uint64_t)st.st_size : 0;
        ok = true;
    }
    if (s->dropped)
        log_info("video %s: %d frames encoded, %d dropped while the encoder was busy", s->path,
                 s->frames, s->dropped);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    free(s->stopped_reason);
    free(s->path);
    free(s);
    return ok;
}
