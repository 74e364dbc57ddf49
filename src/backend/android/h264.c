/* H.264 Annex B → pictures through libavcodec (see h264.h). */
#include "backend/android/h264.h"

#include "core/xmalloc.h"
#include "image/frame.h"
#include "record/libav.h"

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of one NAL unit at most (a whole picture of a large screen at a
 * high bit rate is well under it): a stream without start codes is broken,
 * not a reason to grow without bound. */
#define MAX_NAL (16u << 20)

#define AV_FUNCS(X)                                                                                \
    X(LIBAV_UTIL, av_frame_alloc)                                                                  \
    X(LIBAV_UTIL, av_frame_free)                                                                   \
    X(LIBAV_UTIL, av_frame_unref)                                                                  \
    X(LIBAV_UTIL, av_frame_clone)                                                                  \
    X(LIBAV_UTIL, av_frame_move_ref)                                                               \
    X(LIBAV_UTIL, av_strerror)                                                                     \
    X(LIBAV_CODEC, avcodec_find_decoder)                                                           \
    X(LIBAV_CODEC, avcodec_alloc_context3)                                                         \
    X(LIBAV_CODEC, avcodec_open2)                                                                  \
    X(LIBAV_CODEC, avcodec_send_packet)                                                            \
    X(LIBAV_CODEC, avcodec_receive_frame)                                                          \
    X(LIBAV_CODEC, avcodec_free_context)                                                           \
    X(LIBAV_CODEC, av_packet_alloc)                                                                \
    X(LIBAV_CODEC, av_packet_free)

LIBAV_FUNCTION_TABLE(AV_FUNCS)

struct h264_decoder {
    AVCodecContext *ctx;
    AVPacket *pkt;
    AVFrame *out;
    uint8_t *buf; /* bytes not decoded yet: the access unit so far, then a NAL unit's start */
    size_t len, cap;
    size_t done;  /* bytes of buf that are whole NAL units */
    bool vcl;     /* they include a slice */
    bool guessed; /* the last access unit was decoded on a silence (see flush_tail) */
    bool tried;   /* flush_tail found nothing to decode since the last push */
    pthread_mutex_t lock;
    AVFrame *latest; /* under lock; NULL before the first picture */
    uint64_t serial; /* under lock: latest's number, from 1 */
};

struct h264_picture {
    AVFrame *f;
    uint64_t serial;
};

struct h264_decoder *h264_decoder_create(char **err)
{
    pthread_once(&load_once, load);
    if (load_error) {
        *err = xasprintf("cannot decode H.264: %s", load_error);
        return NULL;
    }
    const AVCodec *codec = av.avcodec_find_decoder(AV_CODEC_ID_H264);
    if (!codec) {
        *err = xstrdup("cannot decode H.264: this libavcodec has no H.264 decoder");
        return NULL;
    }
    struct h264_decoder *d = xcalloc(1, sizeof *d);
    d->ctx = av.avcodec_alloc_context3(codec);
    /* Each picture out as soon as its access unit is in: no frame threads
     * (each holds a picture back), no reordering delay. */
    d->ctx->thread_count = 1;
    d->ctx->flags |= AV_CODEC_FLAG_LOW_DELAY;
    int rc = av.avcodec_open2(d->ctx, codec, NULL);
    if (rc < 0) {
        char why[128];
        av.av_strerror(rc, why, sizeof why);
        *err = xasprintf("cannot open the H.264 decoder: %s", why);
        av.avcodec_free_context(&d->ctx);
        free(d);
        return NULL;
    }
    d->pkt = av.av_packet_alloc();
    d->out = av.av_frame_alloc();
    pthread_mutex_init(&d->lock, NULL);
    return d;
}

void h264_decoder_destroy(struct h264_decoder *d)
{
    if (!d)
        return;
    av.avcodec_free_context(&d->ctx);
    av.av_packet_free(&d->pkt);
    av.av_frame_free(&d->out);
    av.av_frame_free(&d->latest);
    pthread_mutex_destroy(&d->lock);
    free(d->buf);
    free(d);
}

/* The offset of the next start code (00 00 01) at or after from, or len. */
static size_t next_start(const uint8_t *p, size_t len, size_t from)
{
    for (size_t i = from; i + 3 <= len; i++) {
        if (p[i + 2] > 1) {
            i += 2;
            continue;
        }
        if (p[i] == 0 && p[i + 1] == 0 && p[i + 2] == 1)
            return i;
    }
    return len;
}

/* Decodes the first n bytes of the buffer as one access unit (a picture
 * with its parameter sets), and drops them. guessed: taken as whole on a
 * silence. A picture the decoder had to patch up (missing or damaged
 * slices, concealed) ends the stream: later pictures are predicted from
 * it, so none could be trusted until the next keyframe, which a still
 * screen may not send for a long time — a new screenrecord starts with
 * one. */
static int send_au(struct h264_decoder *d, size_t n, bool guessed, char **err)
{
    d->pkt->data = d->buf;
    d->pkt->size = (int)n;
    int rc = av.avcodec_send_packet(d->ctx, d->pkt);
    d->pkt->data = NULL;
    d->pkt->size = 0;
    memmove(d->buf, d->buf + n, d->len - n);
    d->len -= n;
    d->done -= n;
    d->vcl = false;
    /* A damaged access unit is reported and skipped; the next picture that
     * decodes whole replaces the latest. */
    if (rc < 0) {
        char why[128];
        av.av_strerror(rc, why, sizeof why);
        *err = xasprintf("the H.264 decoder failed: %s", why);
        return guessed && rc == AVERROR_INVALIDDATA ? H264_CUT_SHORT : -1;
    }
    int pictures = 0;
    while (av.avcodec_receive_frame(d->ctx, d->out) == 0) {
        if (d->out->decode_error_flags || (d->out->flags & AV_FRAME_FLAG_CORRUPT)) {
            av.av_frame_unref(d->out);
            *err = xstrdup(guessed ? "a silence came in the middle of an H.264 picture"
                                   : "an H.264 picture was damaged");
            return guessed ? H264_CUT_SHORT : -1;
        }
        pthread_mutex_lock(&d->lock);
        if (!d->latest)
            d->latest = av.av_frame_alloc();
        av.av_frame_unref(d->latest);
        av.av_frame_move_ref(d->latest, d->out);
        d->serial++;
        pthread_mutex_unlock(&d->lock);
        pictures++;
    }
    return pictures;
}

/* The NAL unit whose start code is at s: a slice (*slice), and whether it
 * begins an access unit — parameter sets, SEI and delimiters do, and so
 * does a slice whose first macroblock is 0 (ue(v) 0 is a single 1 bit). */
static bool begins_au(const uint8_t *p, size_t len, size_t s, bool *slice, bool *first)
{
    int type = s + 3 < len ? p[s + 3] & 31 : 0;
    *slice = type == 1 || type == 5;
    *first = s + 4 < len && (p[s + 4] & 0x80);
    return (type >= 6 && type <= 9) || (*slice && *first);
}

int h264_decoder_push(struct h264_decoder *d, const uint8_t *data, size_t len, char **err)
{
    if (d->len + len > d->cap) {
        d->cap = (d->len + len) * 2;
        d->buf = xrealloc(d->buf, d->cap);
    }
    memcpy(d->buf + d->len, data, len);
    d->len += len;
    d->tried = false;
    int pictures = 0;
    /* Each whole NAL unit (the next start code is in): a new access unit
     * sends the one before to the decoder, which then has all its slices. */
    for (;;) {
        size_t s = next_start(d->buf, d->len, d->done);
        if (d->guessed) {
            /* The last access unit was taken as whole on a silence: what
             * follows must start a new one, not continue it. */
            if (d->len < 5)
                break;
            bool slice, first;
            bool ok = s == 0 || (s == 1 && d->buf[0] == 0);
            if (!ok || (!begins_au(d->buf, d->len, s, &slice, &first) && slice)) {
                *err = xstrdup("the H.264 stream went on after a silence mid-picture");
                return H264_CUT_SHORT;
            }
            d->guessed = false;
        }
        size_t e = s < d->len ? next_start(d->buf, d->len, s + 3) : d->len;
        if (e == d->len)
            break;
        bool slice, first;
        if (begins_au(d->buf, d->len, s, &slice, &first) && d->vcl) {
            int n = send_au(d, s, false, err);
            if (n < 0)
                return -1;
            pictures += n;
            e -= s;
        }
        d->vcl |= slice;
        d->done = e;
    }
    if (d->len > MAX_NAL) {
        *err = xstrdup("the H.264 stream has an access unit larger than 16 MB");
        return -1;
    }
    return pictures;
}

bool h264_decoder_has_tail(const struct h264_decoder *d)
{
    return d->len > 3 && !d->tried;
}

int h264_decoder_flush_tail(struct h264_decoder *d, char **err)
{
    d->tried = true;
    bool slice, first;
    size_t s = next_start(d->buf, d->len, d->done);
    if (s < d->len)
        begins_au(d->buf, d->len, s, &slice, &first);
    else
        slice = false;
    if (!d->vcl && !slice)
        return 0; /* parameter sets alone: their picture is still to come */
    d->done = d->len;
    d->guessed = true;
    return send_au(d, d->len, true, err);
}

struct h264_picture *h264_decoder_latest(struct h264_decoder *d)
{
    struct h264_picture *p = NULL;
    pthread_mutex_lock(&d->lock);
    if (d->latest) {
        p = xcalloc(1, sizeof *p);
        p->f = av.av_frame_clone(d->latest);
        p->serial = d->serial;
    }
    pthread_mutex_unlock(&d->lock);
    return p;
}

void h264_picture_size(const struct h264_picture *p, int *width, int *height)
{
    *width = p->f->width;
    *height = p->f->height;
}

bool h264_picture_luma(const struct h264_picture *p, const uint8_t **luma, int *stride, int *width,
                       int *height, bool *full)
{
    const AVFrame *f = p->f;
    if (f->format != AV_PIX_FMT_YUV420P && f->format != AV_PIX_FMT_YUVJ420P)
        return false;
    *luma = f->data[0];
    *stride = f->linesize[0];
    *width = f->width;
    *height = f->height;
    *full = f->format == AV_PIX_FMT_YUVJ420P || f->color_range == AVCOL_RANGE_JPEG;
    return true;
}

uint64_t h264_picture_serial(const struct h264_picture *p)
{
    return p->serial;
}

void h264_picture_free(struct h264_picture *p)
{
    if (!p)
        return;
    av.av_frame_free(&p->f);
    free(p);
}

static inline uint8_t clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

bool h264_picture_rgba(const struct h264_picture *p, struct frame *out, char **err)
{
    const AVFrame *f = p->f;
    if (f->format != AV_PIX_FMT_YUV420P && f->format != AV_PIX_FMT_YUVJ420P) {
        *err = xasprintf("the H.264 stream's pixel format %d is not 8-bit 4:2:0", f->format);
        return false;
    }
    /* Y'CbCr → R'G'B' in 8.8 fixed point: BT.709 when the stream says so,
     * else BT.601 (what phones' encoders and swscale use unmarked), in
     * the stream's range (limited 16-235 unless marked full). */
    bool full = f->format == AV_PIX_FMT_YUVJ420P || f->color_range == AVCOL_RANGE_JPEG;
    bool bt709 = f->colorspace == AVCOL_SPC_BT709;
    int ky = full ? 256 : 298, y0 = full ? 0 : 16;
    int rv, gu, gv, bu;
    if (bt709) {
        rv = full ? 403 : 459;
        gu = full ? 48 : 55;
        gv = full ? 120 : 136;
        bu = full ? 475 : 541;
    } else {
        rv = full ? 359 : 409;
        gu = full ? 88 : 100;
        gv = full ? 183 : 208;
        bu = full ? 454 : 516;
    }
    frame_alloc(out, (uint32_t)f->width, (uint32_t)f->height);
    for (int y = 0; y < f->height; y++) {
        const uint8_t *py = f->data[0] + (size_t)y * f->linesize[0];
        const uint8_t *pu = f->data[1] + (size_t)(y / 2) * f->linesize[1];
        const uint8_t *pv = f->data[2] + (size_t)(y / 2) * f->linesize[2];
        uint8_t *d = out->rgba + (size_t)y * out->stride;
        for (int x = 0; x < f->width; x++, d += 4) {
            int c = (py[x] - y0) * ky + 128, u = pu[x / 2] - 128, v = pv[x / 2] - 128;
            d[0] = clamp8((c + rv * v) >> 8);
            d[1] = clamp8((c - gu * u - gv * v) >> 8);
            d[2] = clamp8((c + bu * u) >> 8);
            d[3] = 255;
        }
    }
    return true;
}
