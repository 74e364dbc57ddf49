/* WebM/VP9 through dlopen'ed libavformat/libavcodec (see video.h). The
 * headers give the types; the functions are looked up when the first video
 * is written. */
#include "record/video.h"

#include "core/xmalloc.h"
#include "image/frame.h"
#include "record/anim_writer.h"
#include "record/libav.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libvpx settings for screen content, encoded while it is recorded:
 * - deadline "realtime" with cpu-used 8: the fastest real-time speed. A
 *   recording must keep up with the screen on the machine it drives
 *   (8–34 ms a 1280×800 frame on a loaded 2-core machine, from a few
 *   columns to the whole screen changing: docs/BENCHMARKS.md); the slower
 *   "good" deadline costs several times that for little gain on screens,
 *   which are mostly still and sharp-edged.
 * - lag-in-frames 0: no look-ahead. Each frame comes out as it goes in, so
 *   the encoder holds no queue of pictures (flat memory) and the flush at
 *   record_stop has nothing to catch up on.
 * - tune-content "screen": libvpx's mode for desktops and text (palette-
 *   like blocks, no film grain assumptions).
 * - CRF 32 (constant quality, 0–63, lower is better; b:v 0): text stays
 *   legible, and a still screen costs next to nothing — a bitrate target
 *   would instead spend bytes on frames that did not change.
 * - row-mt with up to VP9_THREADS threads: uses more than one core for a
 *   large screen without taking the machine.
 * - a keyframe at least every VP9_KEYFRAME_S seconds of frames: where a
 *   player can seek to (each is in the cues), at the price of a full
 *   picture (tens of KiB for a screen). */
#define VP9_CRF         "32"
#define VP9_CPU_USED    "8"
#define VP9_THREADS     4
#define VP9_KEYFRAME_S  10
#define VP9_DEFAULT_FPS 5
/* For max_bytes: what the file spends beside the frames' data — a block
 * header per frame, a cue per keyframe, and the index and seek head
 * written at the end (generous: the limit must hold). */
#define MKV_BLOCK_COST   32
#define MKV_CUE_COST     48
#define MKV_TRAILER_COST 4096

#define AV_FUNCS(X)                                                                                \
    X(LIBAV_UTIL, av_frame_alloc)                                                                  \
    X(LIBAV_UTIL, av_frame_free)                                                                   \
    X(LIBAV_UTIL, av_frame_get_buffer)                                                             \
    X(LIBAV_UTIL, av_frame_make_writable)                                                          \
    X(LIBAV_UTIL, av_opt_set)                                                                      \
    X(LIBAV_UTIL, av_strerror)                                                                     \
    X(LIBAV_CODEC, avcodec_find_encoder_by_name)                                                   \
    X(LIBAV_CODEC, avcodec_alloc_context3)                                                         \
    X(LIBAV_CODEC, avcodec_open2)                                                                  \
    X(LIBAV_CODEC, avcodec_parameters_from_context)                                                \
    X(LIBAV_CODEC, avcodec_send_frame)                                                             \
    X(LIBAV_CODEC, avcodec_receive_packet)                                                         \
    X(LIBAV_CODEC, avcodec_free_context)                                                           \
    X(LIBAV_CODEC, av_packet_alloc)                                                                \
    X(LIBAV_CODEC, av_packet_free)                                                                 \
    X(LIBAV_CODEC, av_packet_rescale_ts)                                                           \
    X(LIBAV_CODEC, av_packet_unref)                                                                \
    X(LIBAV_FORMAT, avformat_alloc_output_context2)                                                \
    X(LIBAV_FORMAT, avformat_new_stream)                                                           \
    X(LIBAV_FORMAT, avio_open)                                                                     \
    X(LIBAV_FORMAT, avio_closep)                                                                   \
    X(LIBAV_FORMAT, avio_seek)                                                                     \
    X(LIBAV_FORMAT, avformat_write_header)                                                         \
    X(LIBAV_FORMAT, av_interleaved_write_frame)                                                    \
    X(LIBAV_FORMAT, av_write_trailer)                                                              \
    X(LIBAV_FORMAT, avformat_free_context)

LIBAV_FUNCTION_TABLE(AV_FUNCS)

struct video_writer {
    AVFormatContext *oc;
    AVCodecContext *ctx;
    AVStream *st;
    AVFrame *yuv;
    AVPacket *pkt;
    int width, height;         /* of the frames given; the video's are even */
    int64_t last_pts;          /* -1 before the first frame */
    uint64_t max_bytes, bytes; /* the limit (0: none); the file so far */
    bool full;                 /* a frame did not fit: no more are written */
    bool wrote;                /* a frame is in the file */
    char *path, *tmp;
    int fd;
    bool header_written;
};

static char *av_error(const char *what, int rc)
{
    char buf[128];
    if (av.av_strerror(rc, buf, sizeof buf) < 0)
        snprintf(buf, sizeof buf, "error %d", rc);
    return xasprintf("%s: %s", what, buf);
}

static void destroy(struct video_writer *v)
{
    if (v->oc && v->oc->pb)
        av.avio_closep(&v->oc->pb);
    if (v->oc)
        av.avformat_free_context(v->oc);
    av.avcodec_free_context(&v->ctx);
    av.av_frame_free(&v->yuv);
    av.av_packet_free(&v->pkt);
    if (v->fd >= 0) {
        close(v->fd);
        unlink(v->tmp);
    }
    free(v->path);
    free(v->tmp);
    free(v);
}

static const AVCodec *find_codec(char **err)
{
    pthread_once(&load_once, load);
    if (load_error) {
        *err = xasprintf("cannot write WebM: %s", load_error);
        return NULL;
    }
    const AVCodec *codec = av.avcodec_find_encoder_by_name("libvpx-vp9");
    if (!codec)
        *err = xstrdup("cannot write WebM: this libavcodec has no libvpx-vp9 encoder");
    return codec;
}

bool video_available(char **err)
{
    return find_codec(err) != NULL;
}

struct video_writer *video_writer_create(const char *path, int width, int height, int fps,
                                         uint64_t max_bytes, char **err)
{
    const AVCodec *codec = find_codec(err);
    if (!codec)
        return NULL;
    struct video_writer *v = xcalloc(1, sizeof *v);
    v->fd = -1;
    v->last_pts = -1;
    v->width = width;
    v->height = height;
    v->max_bytes = max_bytes;
    v->path = xstrdup(path);
    v->fd = anim_tmp_open(path, &v->tmp, err);
    if (v->fd < 0) {
        destroy(v);
        return NULL;
    }
    int rc = av.avformat_alloc_output_context2(&v->oc, NULL, "webm", v->tmp);
    if (rc < 0 || !v->oc) {
        *err = av_error("cannot make a WebM file", rc);
        destroy(v);
        return NULL;
    }
    v->st = av.avformat_new_stream(v->oc, NULL);
    v->ctx = av.avcodec_alloc_context3(codec);
    v->yuv = av.av_frame_alloc();
    v->pkt = av.av_packet_alloc();
    if (!v->st || !v->ctx || !v->yuv || !v->pkt) {
        *err = xstrdup("cannot write WebM: out of memory");
        destroy(v);
        return NULL;
    }
    /* 4:2:0 halves the chroma planes: the video's sides are even. */
    v->ctx->width = (width + 1) & ~1;
    v->ctx->height = (height + 1) & ~1;
    v->ctx->pix_fmt = AV_PIX_FMT_YUV420P;
    v->ctx->time_base = (AVRational){1, 1000};
    v->ctx->framerate = (AVRational){0, 1}; /* variable: frames only on change */
    v->ctx->gop_size = (fps > 0 ? fps : VP9_DEFAULT_FPS) * VP9_KEYFRAME_S;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    v->ctx->thread_count = cores < 1 ? 1 : cores > VP9_THREADS ? VP9_THREADS : (int)cores;
    v->ctx->bit_rate = 0;
    v->ctx->color_range = AVCOL_RANGE_MPEG;
    v->ctx->colorspace = AVCOL_SPC_SMPTE170M;
    if (v->oc->oformat->flags & AVFMT_GLOBALHEADER)
        v->ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av.av_opt_set(v->ctx->priv_data, "crf", VP9_CRF, 0);
    av.av_opt_set(v->ctx->priv_data, "deadline", "realtime", 0);
    av.av_opt_set(v->ctx->priv_data, "cpu-used", VP9_CPU_USED, 0);
    av.av_opt_set(v->ctx->priv_data, "row-mt", "1", 0);
    av.av_opt_set(v->ctx->priv_data, "lag-in-frames", "0", 0);
    av.av_opt_set(v->ctx->priv_data, "tune-content", "screen", 0);
    if ((rc = av.avcodec_open2(v->ctx, codec, NULL)) < 0) {
        *err = av_error("cannot open the VP9 encoder", rc);
        destroy(v);
        return NULL;
    }
    v->st->time_base = v->ctx->time_base;
    av.avcodec_parameters_from_context(v->st->codecpar, v->ctx);
    v->yuv->format = AV_PIX_FMT_YUV420P;
    v->yuv->width = v->ctx->width;
    v->yuv->height = v->ctx->height;
    if ((rc = av.av_frame_get_buffer(v->yuv, 0)) < 0 ||
        (rc = av.avio_open(&v->oc->pb, v->tmp, AVIO_FLAG_WRITE)) < 0 ||
        (rc = av.avformat_write_header(v->oc, NULL)) < 0) {
        *err = av_error("cannot start the WebM file", rc);
        destroy(v);
        return NULL;
    }
    v->header_written = true;
    int64_t at = av.avio_seek(v->oc->pb, 0, SEEK_CUR);
    v->bytes = (at > 0 ? (uint64_t)at : 0) + MKV_TRAILER_COST;
    return v;
}

bool video_writer_full(const struct video_writer *v)
{
    return v->full;
}

uint64_t video_writer_bytes(const struct video_writer *v)
{
    return v->bytes;
}

/* BT.601 limited range, the colours players assume for SD-style video. */
static void to_yuv(const struct frame *f, AVFrame *o)
{
    int w = o->width, h = o->height;
    for (int y = 0; y < h; y++) {
        const uint8_t *row =
            f->rgba + (size_t)(y < (int)f->height ? y : (int)f->height - 1) * f->stride;
        uint8_t *Y = o->data[0] + (size_t)y * (size_t)o->linesize[0];
        for (int x = 0; x < w; x++) {
            const uint8_t *p = row + (size_t)(x < (int)f->width ? x : (int)f->width - 1) * 4;
            Y[x] = (uint8_t)(((66 * p[0] + 129 * p[1] + 25 * p[2] + 128) >> 8) + 16);
        }
    }
    for (int y = 0; y < h / 2; y++) {
        uint8_t *U = o->data[1] + (size_t)y * (size_t)o->linesize[1];
        uint8_t *V = o->data[2] + (size_t)y * (size_t)o->linesize[2];
        for (int x = 0; x < w / 2; x++) {
            int r = 0, g = 0, b = 0;
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    int sy = 2 * y + dy, sx = 2 * x + dx;
                    if (sy >= (int)f->height)
                        sy = (int)f->height - 1;
                    if (sx >= (int)f->width)
                        sx = (int)f->width - 1;
                    const uint8_t *p = f->rgba + (size_t)sy * f->stride + (size_t)sx * 4;
                    r += p[0];
                    g += p[1];
                    b += p[2];
                }
            r /= 4;
            g /= 4;
            b /= 4;
            U[x] = (uint8_t)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
            V[x] = (uint8_t)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
        }
    }
}

static bool drain(struct video_writer *v, char **err)
{
    for (;;) {
        int rc = av.avcodec_receive_packet(v->ctx, v->pkt);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
            return true;
        if (rc < 0) {
            *err = av_error("VP9 encoding failed", rc);
            return false;
        }
        uint64_t cost = (uint64_t)v->pkt->size + MKV_BLOCK_COST +
                        ((v->pkt->flags & AV_PKT_FLAG_KEY) ? MKV_CUE_COST : 0);
        /* The first frame is always written, as gif and webp keep theirs:
         * a video of nothing is no use. */
        if (v->full || (v->wrote && v->max_bytes && v->bytes + cost > v->max_bytes)) {
            /* Over the limit: this frame and all after it are left out;
             * later frames would need this one to decode. */
            v->full = true;
            av.av_packet_unref(v->pkt);
            continue;
        }
        v->bytes += cost;
        v->wrote = true;
        av.av_packet_rescale_ts(v->pkt, v->ctx->time_base, v->st->time_base);
        v->pkt->stream_index = v->st->index;
        if ((rc = av.av_interleaved_write_frame(v->oc, v->pkt)) < 0) {
            *err = av_error("cannot write the WebM file", rc);
            return false;
        }
    }
}

static bool send(struct video_writer *v, const struct frame *f, int64_t pts, char **err)
{
    int rc = av.av_frame_make_writable(v->yuv);
    if (rc < 0) {
        *err = av_error("VP9 encoding failed", rc);
        return false;
    }
    to_yuv(f, v->yuv);
    /* Timestamps must rise; two frames in one millisecond share it. */
    if (pts <= v->last_pts)
        pts = v->last_pts + 1;
    v->yuv->pts = pts;
    v->last_pts = pts;
    if ((rc = av.avcodec_send_frame(v->ctx, v->yuv)) < 0) {
        *err = av_error("VP9 encoding failed", rc);
        return false;
    }
    return drain(v, err);
}

bool video_writer_add(struct video_writer *v, const struct frame *f, uint64_t at_ms, char **err)
{
    if (v->full)
        return true;
    return send(v, f, (int64_t)at_ms, err);
}

bool video_writer_close(struct video_writer *v, uint64_t end_ms, char **err)
{
    bool ok = true;
    /* The last picture again at the end, so players show it until then
     * (VP9 spends almost nothing on a repeat); the buffer still holds it. */
    if (!v->full && v->last_pts >= 0 && (int64_t)end_ms > v->last_pts + 1) {
        int rc = av.av_frame_make_writable(v->yuv);
        if (rc >= 0) {
            v->yuv->pts = (int64_t)end_ms;
            v->last_pts = (int64_t)end_ms;
            rc = av.avcodec_send_frame(v->ctx, v->yuv);
        }
        if (rc < 0) {
            *err = av_error("VP9 encoding failed", rc);
            ok = false;
        }
    }
    if (ok) {
        av.avcodec_send_frame(v->ctx, NULL); /* flush */
        ok = drain(v, err);
    }
    if (ok) {
        int rc = av.av_write_trailer(v->oc);
        if (rc < 0) {
            *err = av_error("cannot finish the WebM file", rc);
            ok = false;
        }
    }
    av.avio_closep(&v->oc->pb);
    if (ok) {
        ok = anim_tmp_commit(v->fd, v->tmp, v->path, err);
        v->fd = -1;
    }
    destroy(v);
    return ok;
}

void video_writer_abort(struct video_writer *v)
{
    if (v)
        destroy(v);
}
