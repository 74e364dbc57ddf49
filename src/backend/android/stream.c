/* The session's screen stream: the device's own `screenrecord
 * --output-format=h264 … -` kept running over one adb connection (a
 * shell,v2 service: stdout is the H.264 Annex B stream, stderr its
 * complaints, the exit packet its end), decoded as it comes on a thread of
 * its own by libavcodec (h264.h), keeping the latest picture. A screenshot
 * then encodes that picture instead of moving a 10 MB screencap — when
 * may_serve() knows the picture shows the screen as it is after the
 * session's last action; otherwise screencap, as before (docs/android.md, "The screen
 * stream", has the rules and why).
 *
 * screenrecord stops itself after --time-limit (180 s at most), so another
 * starts STREAM_RENEW_S in and takes over once it has its first picture.
 * One that ends before its first picture (no --output-format before Android
 * 5, an encoder that refuses the size) is tried again, MAX_FAILS times in a
 * row at most; then the session stays on screencap, with a note in the log
 * and in session_list. */
#define LOG_MODULE "android"
#include "backend/android/h264.h"
#include "backend/android/internal.h"
#include "backend/frames.h"
#include "core/app.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAM_SIDE       1568    /* the long side asked for: what clients get by default */
#define STREAM_BIT_RATE   8000000 /* bits/s: sharp text; a still screen sends nothing */
#define STREAM_TIME_LIMIT 180     /* s: screenrecord's most */
#define STREAM_RENEW_MS   170000  /* when the next screenrecord starts */
#define STREAM_POLL_MS    10      /* a takeover looks again every 10 of these */
#define STREAM_TAIL_MS    8       /* no byte for this long: the NAL unit held back is whole … */
#define STREAM_TAIL_MAX   64      /* … or up to this, after a silence that came mid-picture */
#define STREAM_QUEUE_MAX  (32u << 20) /* bytes waiting for the decoder; more ends the feed */
#define STREAM_ERR_MAX    1024        /* bytes of screenrecord's stderr kept for the note */
#define MAX_FAILS         3
/* A screencap and a picture agree when no 8×8 block of the picture differs
 * in average brightness from the same part of the screencap by more than
 * CHECK_LIMIT levels (of 255): H.264's loss and the scaling stay well
 * under it; a changed word, a check mark or a cursor in a block shows far
 * over it. (A change of colour alone at the same brightness is not seen.) */
#define CHECK_BLOCK 8
#define CHECK_LIMIT 28

/* One screenrecord: its adb connection, its decoder thread and what it
 * decoded. Shared by the loop (the stream, the connection's callbacks),
 * its thread and screenshots on the worker pool; freed with the last
 * reference, on the loop thread. */
struct feed {
    struct android *a;
    struct android_stream *owner; /* NULL once dropped (loop thread) */
    struct adb_stream *adb;       /* until its done (loop thread) */
    int refs;                     /* loop thread */
    struct strbuf err;            /* screenrecord's stderr, the first STREAM_ERR_MAX bytes */
    pthread_t thread;
    struct h264_decoder *dec;
    /* The latest picture served, as RGBA: a still screen's next
     * screenshots copy it instead of converting the picture again. */
    pthread_mutex_t cache_lock;
    struct frame cache;    /* rgba NULL: none */
    uint64_t cache_serial; /* the picture it is */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* under lock */
    struct strbuf queue;        /* bytes for the decoder */
    bool closing;               /* the thread ends */
    char *error;                /* the decoder gave up */
    uv_async_t *wake;           /* told when it does; NULL once dropped */
    bool cut_short;             /* because a silence came mid-picture */
    int tail_ms;                /* the silence that ends a picture (STREAM_TAIL_MS…) */
    uint64_t first_ms, last_ms; /* when the first / latest picture was decoded (0: none) */
    int width, height;          /* of the latest picture */
    /* A screencap showed what no picture had shown yet: the stream is
     * behind the screen until a picture looks like it (target: its block
     * averages, see check_run), asked after action number target_act. */
    bool behind;
    double *target;
    int target_w, target_h; /* the size of the picture target was made for */
    uint64_t target_act;
    uint64_t caught_act; /* a picture caught up with the screencap after this action */
};

struct android_stream {
    struct android *a;
    struct feed *cur;  /* the one screenshots read, or NULL */
    struct feed *next; /* the one taking over, or NULL */
    uv_timer_t tick;   /* renewal, takeover, retries */
    uv_async_t wake;   /* a decoder thread gave up */
    int closed;        /* of the two handles */
    int fails;         /* screenrecords in a row that ended without a picture */
    bool off;          /* screencap only from now on */
    char *note;        /* why it is off */
    int width, height; /* asked of screenrecord */
    int rotation;      /* a->rotation when asked */
    /* The latest action (a->acts) whose screen the pictures are known to
     * have reached: a screencap taken after it agreed with the latest
     * picture, or a picture caught up with such a screencap. */
    uint64_t confirmed_act;
    int tail_ms;       /* for the next feeds' decoders */
    bool native;       /* no --size: the encoder refused the smaller one */
    uint64_t renew_ms; /* when the next screenrecord starts */
};

static size_t blocks_of(int w, int h);
static double *picture_means(const struct h264_picture *p);
static double worst_block(const double *a, const double *b, size_t n);

/* ---- the decoder thread ---------------------------------------------------- */

/* While the stream is behind the screen: whether the new latest picture
 * looks like the screencap that showed it (then it has caught up). */
static void catch_up(struct feed *f, uint64_t now)
{
    pthread_mutex_lock(&f->lock);
    bool behind = f->behind;
    pthread_mutex_unlock(&f->lock);
    if (!behind)
        return;
    struct h264_picture *p = h264_decoder_latest(f->dec);
    int w, h;
    h264_picture_size(p, &w, &h);
    double *means = picture_means(p);
    h264_picture_free(p);
    pthread_mutex_lock(&f->lock);
    /* A picture of another size (the stream's parameters changed) has
     * other blocks: no comparing it with the target, whose blocks are
     * fewer when the picture grew. */
    if (means && f->behind && f->target && w == f->target_w && h == f->target_h &&
        worst_block(means, f->target, blocks_of(w, h)) <= CHECK_LIMIT) {
        f->behind = false;
        f->caught_act = f->target_act;
        free(f->target);
        f->target = NULL;
    }
    pthread_mutex_unlock(&f->lock);
    free(means);
}

/* Pushes a swapped-out queue (up to STREAM_QUEUE_MAX) to the decoder a
 * slice at a time, stopping early once the feed is closing: feed_unref
 * joins this thread on the loop, which must not wait for megabytes of
 * pictures nobody will see. Pictures decoded, or the push's error. */
#define PUSH_SLICE (256u * 1024u)
static int push_slices(struct feed *f, const struct strbuf *q, char **err)
{
    int pictures = 0;
    for (size_t off = 0; off < q->len;) {
        size_t n = q->len - off < PUSH_SLICE ? q->len - off : PUSH_SLICE;
        int got = h264_decoder_push(f->dec, (const uint8_t *)q->data + off, n, err);
        if (got < 0)
            return got;
        pictures += got;
        off += n;
        pthread_mutex_lock(&f->lock);
        bool closing = f->closing;
        pthread_mutex_unlock(&f->lock);
        if (closing)
            break;
    }
    return pictures;
}
static void *decode_thread(void *arg)
{
    struct feed *f = arg;
    struct strbuf mine = {0};
    pthread_mutex_lock(&f->lock);
    while (!f->closing && !f->error) {
        if (!f->queue.len) {
            if (!h264_decoder_has_tail(f->dec)) {
                pthread_cond_wait(&f->cond, &f->lock);
                continue;
            }
            /* Bytes end in a NAL unit whose end no start code has shown
             * yet: a still screen sends nothing more, so a short silence
             * means it is whole (the picture is not held back). */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += f->tail_ms * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            if (pthread_cond_timedwait(&f->cond, &f->lock, &until) == 0 || f->queue.len ||
                f->closing)
                continue;
        }
        /* Swap the queue out: the loop appends while this decodes. */
        struct strbuf tmp = f->queue;
        f->queue = mine;
        mine = tmp;
        pthread_mutex_unlock(&f->lock);
        char *err = NULL;
        int n = mine.len ? push_slices(f, &mine, &err) : h264_decoder_flush_tail(f->dec, &err);
        mine.len = 0;
        int w = 0, h = 0;
        uint64_t now = clock_now_ms();
        if (n > 0) {
            struct h264_picture *p = h264_decoder_latest(f->dec);
            h264_picture_size(p, &w, &h);
            h264_picture_free(p);
            catch_up(f, now);
        }
        pthread_mutex_lock(&f->lock);
        if (n < 0) {
            f->error = err;
            f->cut_short = n == H264_CUT_SHORT;
            if (f->wake)
                uv_async_send(f->wake);
        } else if (n > 0) {
            if (!f->first_ms)
                f->first_ms = now;
            f->last_ms = now;
            f->width = w;
            f->height = h;
        }
    }
    pthread_mutex_unlock(&f->lock);
    strbuf_finish(&mine);
    return NULL;
}

/* ---- feeds --------------------------------------------------------------------- */

static void feed_unref(struct feed *f)
{
    if (--f->refs > 0)
        return;
    pthread_mutex_lock(&f->lock);
    f->closing = true;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
    pthread_join(f->thread, NULL);
    h264_decoder_destroy(f->dec);
    frame_finish(&f->cache);
    pthread_mutex_destroy(&f->cache_lock);
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->cond);
    strbuf_finish(&f->queue);
    strbuf_finish(&f->err);
    free(f->error);
    free(f->target);
    free(f);
}

/* A consistent look at f's pictures. */
struct feed_state {
    uint64_t first_ms, last_ms;
    int width, height;
    bool failed, behind;
};

static struct feed_state feed_state(struct feed *f)
{
    pthread_mutex_lock(&f->lock);
    struct feed_state s = {f->first_ms, f->last_ms,       f->width,
                           f->height,   f->error != NULL, f->behind};
    pthread_mutex_unlock(&f->lock);
    return s;
}

/* The action whose screencap a picture of f caught up with (0: none). */
static uint64_t caught_act(struct feed *f)
{
    pthread_mutex_lock(&f->lock);
    uint64_t act = f->caught_act;
    pthread_mutex_unlock(&f->lock);
    return act;
}

/* Stop f's screenrecord (its connection's done follows) and forget it. */
static void feed_drop(struct feed *f)
{
    if (!f)
        return;
    f->owner = NULL;
    pthread_mutex_lock(&f->lock);
    f->closing = true;
    f->wake = NULL;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
    if (f->adb)
        adb_stream_close(f->adb, ERROR_SESSION_EXPIRED, "the screen stream was stopped");
    feed_unref(f);
}

static void arm(struct android_stream *st, uint64_t ms);

/* The decoder gave up on f: end its screenrecord, so that its done starts
 * another (feed_ended says why). Loop thread. */
static void feed_stop_failed(struct feed *f)
{
    if (f->adb && f->owner)
        adb_stream_close(f->adb, ERROR_TOOL_FAILED, "the H.264 decoder gave up");
}

static void on_packet(void *ud, int id, const uint8_t *data, size_t len)
{
    struct feed *f = ud;
    if (id == 2) {
        size_t room = STREAM_ERR_MAX - f->err.len;
        if (room)
            strbuf_append(&f->err, data, len < room ? len : room);
        return;
    }
    pthread_mutex_lock(&f->lock);
    bool over = f->queue.len + len > STREAM_QUEUE_MAX, failed = f->error != NULL;
    if (!over && !failed && !f->closing) {
        strbuf_append(&f->queue, data, len);
        pthread_cond_signal(&f->cond);
    }
    pthread_mutex_unlock(&f->lock);
    if (failed)
        feed_stop_failed(f);
    else if (over && f->adb && !f->closing)
        adb_stream_close(f->adb, ERROR_TOOL_FAILED,
                         "the H.264 decoder fell 32 MB behind the screen stream");
}

/* f's screenrecord ended by itself (its time limit, a failure, the device
 * leaving): take it out and decide what follows. */
static void feed_ended(struct android_stream *st, struct feed *f, const struct adb_reply *r)
{
    struct feed_state s = feed_state(f);
    pthread_mutex_lock(&f->lock);
    char *why = f->error     ? xstrdup(f->error)
                : !r->ok     ? xstrdup(r->error)
                : f->err.len ? xasprintf("screenrecord exited with status %d: %.*s", r->exit_code,
                                         (int)(f->err.len > 300 ? 300 : f->err.len), f->err.data)
                             : xasprintf("screenrecord exited with status %d", r->exit_code);
    /* The bytes of a picture came with a gap (a loaded machine, a busy
     * link): wait longer for the rest before taking a picture as whole. */
    bool longer = f->cut_short && st->tail_ms < STREAM_TAIL_MAX;
    if (longer)
        st->tail_ms *= 2;
    pthread_mutex_unlock(&f->lock);
    if (st->cur == f)
        st->cur = NULL;
    if (st->next == f)
        st->next = NULL;
    f->owner = NULL;
    pthread_mutex_lock(&f->lock);
    f->wake = NULL;
    pthread_mutex_unlock(&f->lock);
    feed_unref(f); /* the stream's reference */
    /* An encoder may refuse a size of ours (some want multiples of 16):
     * screenrecord's own choice, the screen's size, is the next try (the
     * pipeline scales its pictures then). */
    bool refused = !s.first_ms && !longer && !st->native && r->ok && r->exit_code != 0 &&
                   !strstr(why, "unrecognized option") && !strstr(why, "not found");
    if (refused)
        st->native = true;
    if (s.first_ms)
        st->fails = 0;
    else if (r->device_lost || (!longer && ++st->fails >= MAX_FAILS)) {
        st->off = true;
        free(st->note);
        st->note = xasprintf("no screen stream, screenshots by screencap: %s", why);
        log_warn("%s: %s", st->a->serial, st->note);
        free(why);
        feed_drop(st->cur); /* a renewal failed: the current one goes too */
        feed_drop(st->next);
        st->cur = st->next = NULL;
        return;
    }
    log_info("%s: the screen stream ended (%s); another starts", st->a->serial, why);
    free(why);
    if (!st->cur && !st->next)
        arm(st, st->fails ? 1000u * (uint64_t)st->fails : 0);
}

static void on_done(void *ud, const struct adb_reply *r)
{
    struct feed *f = ud;
    struct android *a = f->a;
    f->adb = NULL;
    if (f->owner)
        feed_ended(f->owner, f, r);
    feed_unref(f); /* the connection's reference */
    android_release(a);
}

/* The size to ask for: the screen's, its long side at most STREAM_SIDE,
 * both even (encoders want that), the aspect kept exactly when a nearby
 * even size allows it (so one scale maps both axes). */
static void stream_size(int w, int h, int *ow, int *oh)
{
    int side = w > h ? w : h, other = w > h ? h : w;
    int ls = side, ss = other;
    if (side <= STREAM_SIDE) {
        ls = side & ~1;
        ss = other & ~1;
    } else {
        ls = STREAM_SIDE;
        ss = (int)((long)other * STREAM_SIDE / side) & ~1;
        for (int l = STREAM_SIDE; l > STREAM_SIDE - 64; l -= 2) {
            long num = (long)other * l;
            if (num % side == 0 && (num / side) % 2 == 0) {
                ls = l;
                ss = (int)(num / side);
                break;
            }
        }
    }
    *ow = w > h ? ls : ss;
    *oh = w > h ? ss : ls;
}

/* Starts a screenrecord: the current feed when there is none, else the
 * next (which takes over once it has a picture). */
static void feed_start(struct android_stream *st)
{
    struct android *a = st->a;
    char *err = NULL;
    struct h264_decoder *dec = h264_decoder_create(&err);
    if (!dec) {
        st->off = true;
        free(st->note);
        st->note = xasprintf("no screen stream, screenshots by screencap: %s", err);
        log_info("%s: %s", a->serial, st->note);
        free(err);
        return;
    }
    struct feed *f = xcalloc(1, sizeof *f);
    f->a = a;
    f->dec = dec;
    pthread_mutex_init(&f->lock, NULL);
    pthread_mutex_init(&f->cache_lock, NULL);
    pthread_cond_init(&f->cond, NULL);
    f->refs = 2; /* the stream's and the connection's */
    f->owner = st;
    f->tail_ms = st->tail_ms;
    f->wake = &st->wake;
    if (pthread_create(&f->thread, NULL, decode_thread, f) != 0)
        abort();
    st->rotation = a->rotation;
    char size[48] = "";
    if (st->native) { /* the screen's own size: screenrecord's default */
        st->width = a->width;
        st->height = a->height;
    } else {
        stream_size(a->width, a->height, &st->width, &st->height);
        snprintf(size, sizeof size, " --size %dx%d", st->width, st->height);
    }
    char *req = xasprintf("shell,v2,raw:screenrecord --output-format=h264%s --bit-rate %d "
                          "--time-limit %d -",
                          size, STREAM_BIT_RATE, STREAM_TIME_LIMIT);
    *(st->cur ? &st->next : &st->cur) = f;
    android_hold(a); /* released by the connection's done */
    f->adb = adb_stream_open(a->app->loop, &a->srv, a->serial, req, ANDROID_TIMEOUT_MS, on_packet,
                             on_done, f);
    free(req);
}

/* A decoder thread gave up: end its screenrecord now (the next starts as
 * its done comes), not at the next screenshot. */
static void on_wake(uv_async_t *h)
{
    struct android_stream *st = h->data;
    struct feed *feeds[2] = {st->cur, st->next};
    for (int i = 0; i < 2; i++)
        if (feeds[i] && feed_state(feeds[i]).failed)
            feed_stop_failed(feeds[i]);
}

static void on_tick(uv_timer_t *t)
{
    struct android_stream *st = t->data;
    if (st->off)
        return;
    if (st->next) { /* taking over: once it has a picture */
        struct feed_state s = feed_state(st->next);
        if (!s.first_ms) {
            arm(st, STREAM_POLL_MS * 10);
            return;
        }
        struct feed *old = st->cur;
        st->cur = st->next;
        st->next = NULL;
        st->confirmed_act = 0; /* it spoke of the old feed's picture */
        feed_drop(old);
        arm(st, st->renew_ms);
        return;
    }
    feed_start(st); /* the first, a retry, or the next before the time limit */
    if (!st->off)
        arm(st, st->next ? STREAM_POLL_MS * 10 : st->renew_ms);
}

static void arm(struct android_stream *st, uint64_t ms)
{
    uv_timer_start(&st->tick, on_tick, ms, 0);
}

/* ---- the session's side ----------------------------------------------------------- */

void android_stream_start(struct android *a)
{
    struct android_stream *st = xcalloc(1, sizeof *st);
    st->a = a;
    st->tail_ms = STREAM_TAIL_MS;
    /* Tests take over sooner than a real time limit asks
     * (tests/e2e/tests/android-stream.test.mjs). */
    const char *renew = getenv("GLOVEBOX_ANDROID_STREAM_RENEW_MS");
    st->renew_ms = renew && atoll(renew) >= 1000 ? (uint64_t)atoll(renew) : STREAM_RENEW_MS;
    uv_timer_init(a->app->loop, &st->tick);
    st->tick.data = st;
    uv_async_init(a->app->loop, &st->wake, on_wake);
    st->wake.data = st;
    android_hold(a); /* released when both handles are closed */
    android_hold(a);
    a->stream = st;
    feed_start(st);
    if (!st->off)
        arm(st, st->renew_ms);
}

static void handle_closed(uv_handle_t *h)
{
    struct android_stream *st = h->data;
    struct android *a = st->a;
    if (++st->closed == 2) {
        free(st->note);
        free(st);
    }
    android_release(a);
}

void android_stream_end(struct android *a)
{
    struct android_stream *st = a->stream;
    if (!st)
        return;
    a->stream = NULL;
    feed_drop(st->cur);
    feed_drop(st->next);
    st->cur = st->next = NULL;
    uv_close((uv_handle_t *)&st->tick, handle_closed);
    uv_close((uv_handle_t *)&st->wake, handle_closed);
}

void android_stream_acted(struct android *a)
{
    a->acts++;
}

const char *android_stream_state(const struct android *a, const char **note)
{
    const struct android_stream *st = a->stream;
    *note = st ? st->note : NULL;
    if (!st)
        return "off";
    if (st->off)
        return "failed";
    if (st->cur && feed_state(st->cur).first_ms)
        return "live";
    return "starting";
}

/* ---- which screenshots it serves ---------------------------------------------- */

/* Whether the latest picture may be served as the screen now. Nothing in
 * a picture says when it was composed, and a change can take any time to
 * reach a decoded picture (composition, encoding, adb, decoding; longer
 * on a loaded device or link), so after an action the pictures are not
 * trusted on timing: the first screenshot is a screencap, compared with
 * the latest picture (check_run). From the screencap that agrees with a
 * picture — or the picture that catches up with it — on, the stream is
 * known to have reached the screen the action made, and every later
 * picture is newer still: screenshots are served from it until the next
 * action. Before any action the latest picture is served. */
static bool may_serve(struct android_stream *st)
{
    if (st->off || !st->cur)
        return false;
    struct feed_state s = feed_state(st->cur);
    if (s.failed)
        feed_stop_failed(st->cur);
    if (!s.first_ms || s.failed || s.behind || s.width != st->width || s.height != st->height)
        return false;
    uint64_t caught = caught_act(st->cur);
    if (caught > st->confirmed_act)
        st->confirmed_act = caught;
    return st->confirmed_act == st->a->acts;
}

/* ---- a screencap compared with the picture ------------------------------------ */

struct android_check {
    struct feed *feed; /* a reference */
    struct h264_picture *picture;
    uint64_t asked_ms, act;
    bool alike; /* set by check_run */
};

static size_t blocks_of(int w, int h)
{
    return (((size_t)w + CHECK_BLOCK - 1) / CHECK_BLOCK) *
           (((size_t)h + CHECK_BLOCK - 1) / CHECK_BLOCK);
}

/* Average brightness (0-255) of each CHECK_BLOCK square of the picture, row
 * by row; NULL for a picture without an 8-bit luma plane. Any thread. */
static double *picture_means(const struct h264_picture *p)
{
    const uint8_t *luma;
    int stride, w, h;
    bool full;
    if (!h264_picture_luma(p, &luma, &stride, &w, &h, &full))
        return NULL;
    size_t bw = ((size_t)w + CHECK_BLOCK - 1) / CHECK_BLOCK, nb = blocks_of(w, h);
    double *sum = xcalloc(nb, sizeof *sum);
    uint32_t *n = xcalloc(nb, sizeof *n);
    for (int y = 0; y < h; y++) {
        const uint8_t *row = luma + (size_t)y * stride;
        size_t base = (size_t)(y / CHECK_BLOCK) * bw;
        for (int x = 0; x < w; x++) {
            sum[base + (size_t)x / CHECK_BLOCK] += row[x];
            n[base + (size_t)x / CHECK_BLOCK]++;
        }
    }
    for (size_t b = 0; b < nb; b++) {
        sum[b] /= n[b];
        if (!full) /* limited range: 16-235 */
            sum[b] = (sum[b] - 16) * 255.0 / 219.0;
    }
    free(n);
    return sum;
}

/* The same for the part of a screencap each block of a pw×ph picture
 * shows: one pass over it, no scaled copy. */
static double *screencap_means(const struct frame *shot, int pw, int ph)
{
    size_t bw = ((size_t)pw + CHECK_BLOCK - 1) / CHECK_BLOCK, nb = blocks_of(pw, ph);
    double *sum = xcalloc(nb, sizeof *sum);
    uint32_t *n = xcalloc(nb, sizeof *n);
    uint32_t *col = xmalloc(shot->width * sizeof *col);
    for (uint32_t x = 0; x < shot->width; x++)
        col[x] = (uint32_t)((uint64_t)x * (uint64_t)pw / shot->width) / CHECK_BLOCK;
    for (uint32_t y = 0; y < shot->height; y++) {
        const uint8_t *p = shot->rgba + (size_t)y * shot->stride;
        size_t base = (size_t)(((uint64_t)y * (uint64_t)ph / shot->height) / CHECK_BLOCK) * bw;
        for (uint32_t x = 0; x < shot->width; x++, p += 4) {
            sum[base + col[x]] += (77u * p[0] + 150u * p[1] + 29u * p[2]) >> 8;
            n[base + col[x]]++;
        }
    }
    for (size_t b = 0; b < nb; b++)
        sum[b] = n[b] ? sum[b] / n[b] : 0;
    free(n);
    free(col);
    return sum;
}

/* The largest difference between two blocks' averages. */
static double worst_block(const double *a, const double *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > worst)
            worst = fabs(a[i] - b[i]);
    return worst;
}

/* What a screencap asked now (and answering screenshot) can tell the
 * stream: whether the latest picture still shows the screen (see may_serve). */
static struct android_check *check_new(struct android_stream *st)
{
    if (!st->cur)
        return NULL;
    struct android_check *c = xcalloc(1, sizeof *c);
    c->picture = h264_decoder_latest(st->cur->dec);
    if (!c->picture) {
        free(c);
        return NULL;
    }
    c->feed = st->cur;
    c->feed->refs++;
    c->asked_ms = clock_now_ms();
    c->act = st->a->acts;
    return c;
}

void android_check_run(struct android_check *c, const struct frame *shot)
{
    if (!c)
        return;
    int pw, ph;
    h264_picture_size(c->picture, &pw, &ph);
    double *pic = picture_means(c->picture);
    if (!pic)
        return;
    double *cap = screencap_means(shot, pw, ph);
    double worst = worst_block(pic, cap, blocks_of(pw, ph));
    log_debug("check: the screencap and the picture differ by %.0f levels at most", worst);
    c->alike = worst <= CHECK_LIMIT;
    free(pic);
    if (c->alike) {
        free(cap);
        return;
    }
    /* The stream is behind the screen: no picture is trusted until one
     * looks like this screencap (decode_thread compares each). */
    struct feed *f = c->feed;
    pthread_mutex_lock(&f->lock);
    free(f->target);
    f->target = cap;
    f->target_w = pw;
    f->target_h = ph;
    f->target_act = c->act;
    f->behind = true;
    pthread_mutex_unlock(&f->lock);
}

void android_check_end(struct android *a, struct android_check *c)
{
    if (!c)
        return;
    struct android_stream *st = a->stream;
    if (st && st->cur == c->feed && c->alike) {
        struct feed *f = c->feed;
        pthread_mutex_lock(&f->lock);
        /* The picture compared was the screen then, and nothing newer has
         * come: the stream has caught up. */
        if (f->last_ms <= c->asked_ms) {
            f->behind = false;
            if (c->act > st->confirmed_act)
                st->confirmed_act = c->act;
        }
        pthread_mutex_unlock(&f->lock);
    }
    h264_picture_free(c->picture);
    feed_unref(c->feed);
    free(c);
}

/* ---- screenshots from the picture -------------------------------------------- */

struct served {
    struct feed *feed; /* a reference */
    struct h264_picture *picture;
    int screen_width; /* coordinates */
};

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    struct served *sv = ud;
    struct feed *f = sv->feed;
    uint64_t serial = h264_picture_serial(sv->picture);
    pthread_mutex_lock(&f->cache_lock);
    if (!f->cache.rgba || f->cache_serial != serial) {
        frame_finish(&f->cache);
        if (!h264_picture_rgba(sv->picture, &f->cache, err)) {
            pthread_mutex_unlock(&f->cache_lock);
            return false;
        }
        f->cache_serial = serial;
    }
    /* The pipeline paints redactions on its frame: a copy. */
    frame_alloc(&out->frame, f->cache.width, f->cache.height);
    for (uint32_t y = 0; y < f->cache.height; y++)
        memcpy(out->frame.rgba + (size_t)y * out->frame.stride,
               f->cache.rgba + (size_t)y * f->cache.stride, (size_t)f->cache.width * 4);
    pthread_mutex_unlock(&f->cache_lock);
    out->unit = (double)out->frame.width / sv->screen_width;
    return true;
}

static void release(void *ud)
{
    struct served *sv = ud;
    h264_picture_free(sv->picture);
    feed_unref(sv->feed);
    free(sv);
}

static void serve(struct backend_call *bc, struct android_stream *st)
{
    struct served *sv = xcalloc(1, sizeof *sv);
    sv->picture = h264_decoder_latest(st->cur->dec);
    sv->feed = st->cur;
    sv->feed->refs++;
    sv->screen_width = st->a->width;
    struct frame_source src = {
        .produce = produce, .release = release, .ud = sv, .failure = "cannot take a screenshot"};
    frames_screenshot(bc, &src);
}

/* The screen turned: the picture has the old orientation's size, so the
 * stream starts again. */
static void follow_rotation(struct android_stream *st, const struct android *a)
{
    if (st && !st->off && st->rotation != a->rotation) {
        feed_drop(st->cur);
        feed_drop(st->next);
        st->cur = st->next = NULL;
        arm(st, 0);
    }
}

static void decide(struct backend_call *bc, struct android *a)
{
    struct android_stream *st = a->stream;
    follow_rotation(st, a);
    bool stream = st && may_serve(st);
    if (st && st->cur)
        log_debug("%s: screenshot %s (action %llu, the pictures confirmed to action %llu)",
                  a->serial, stream ? "from the stream" : "by screencap",
                  (unsigned long long)a->acts, (unsigned long long)st->confirmed_act);
    if (stream)
        serve(bc, st);
    else
        android_screencap_shot(bc, st ? check_new(st) : NULL);
}

void android_stream_screenshot(struct backend_call *bc)
{
    decide(bc, android_of(bc->session));
}

void android_stream_sample(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    struct android_stream *st = a->stream;
    follow_rotation(st, a);
    if (!st || st->off) {
        android_screencap_shot(bc, NULL);
        return;
    }
    struct feed_state fs = st->cur ? feed_state(st->cur) : (struct feed_state){0};
    if (!fs.first_ms || fs.failed || fs.width != st->width || fs.height != st->height) {
        backend_call_fail(bc, "no picture from the screen stream yet");
        return;
    }
    serve(bc, st);
}

bool android_stream_fits(const struct android *a, int max_width, bool fit, bool region)
{
    const struct android_stream *st = a->stream;
    if (!st || st->off || region)
        return false;
    /* The picture is what the default fit gives; a larger image needs the
     * screen's own pixels. */
    if (max_width > 0)
        return max_width <= st->width;
    return fit;
}
