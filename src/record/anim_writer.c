#include "record/anim_writer.h"

#include "core/xmalloc.h"
#include "image/frame.h"
#include "image/gif.h"
#include "record/video.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <webp/encode.h>
#include <webp/mux.h>

/* WebP frames are lossy at this quality: screens compress well and text
 * stays legible. */
#define WEBP_QUALITY 80

struct anim_writer {
    enum rec_format format;
    int width, height;
    char *path;
    /* GIF: the newest frame, held until the next says how long it shows. */
    struct gif_writer *gif;
    uint8_t *pending;
    uint64_t pending_at;
    bool have_pending;
    /* WebP */
    WebPAnimEncoder *webp;
    /* WebM */
    struct video_writer *video;
};

int anim_tmp_open(const char *path, char **tmp, char **err)
{
    *tmp = xasprintf("%s.tmp-XXXXXX", path);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        *err = xasprintf("cannot create %s: %s", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
    }
    return fd;
}

bool anim_tmp_commit(int fd, const char *tmp, const char *path, char **err)
{
    bool ok = fsync(fd) == 0;
    if (!ok)
        *err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && ok) {
        *err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
        ok = false;
    }
    if (ok && rename(tmp, path) != 0) {
        *err = xasprintf("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(tmp);
    return ok;
}

/* GIF's fixed palette: a 6×6×6 colour cube and 40 greys, so any screen maps
 * without a pass over every frame first. */
static void gif_palette(uint32_t palette[256])
{
    int n = 0;
    for (int r = 0; r < 6; r++)
        for (int g = 0; g < 6; g++)
            for (int b = 0; b < 6; b++)
                palette[n++] =
                    (uint32_t)(r * 51) << 16 | (uint32_t)(g * 51) << 8 | (uint32_t)(b * 51);
    for (int i = 0; i < 40; i++) {
        uint32_t v = (uint32_t)(i * 255 / 39);
        palette[n++] = v << 16 | v << 8 | v;
    }
}

static uint8_t gif_index(const uint8_t *p)
{
    int r = p[0], g = p[1], b = p[2];
    int max = r > g ? (r > b ? r : b) : (g > b ? g : b);
    int min = r < g ? (r < b ? r : b) : (g < b ? g : b);
    /* Near-greys take the finer grey ramp. */
    if (max - min < 12)
        return (uint8_t)(216 + ((r + g + b) / 3 * 39 + 127) / 255);
    return (uint8_t)(((r + 25) / 51) * 36 + ((g + 25) / 51) * 6 + (b + 25) / 51);
}

static void gif_indices(const struct frame *f, uint8_t *out)
{
    for (uint32_t y = 0; y < f->height; y++) {
        const uint8_t *row = f->rgba + (size_t)y * f->stride;
        for (uint32_t x = 0; x < f->width; x++)
            out[(size_t)y * f->width + x] = gif_index(row + (size_t)x * 4);
    }
}

static bool gif_flush(struct anim_writer *w, uint64_t until, char **err)
{
    if (!w->have_pending)
        return true;
    uint64_t shown = until > w->pending_at ? until - w->pending_at : 0;
    int delay_cs = (int)(shown / 10);
    if (delay_cs < 2)
        delay_cs = 2;
    w->have_pending = false;
    return gif_writer_add(w->gif, w->pending, delay_cs, err);
}

struct anim_writer *anim_writer_create(enum rec_format format, const char *path, int width,
                                       int height, char **err)
{
    struct anim_writer *w = xcalloc(1, sizeof *w);
    w->format = format;
    w->width = width;
    w->height = height;
    w->path = xstrdup(path);
    switch (format) {
    case REC_GIF: {
        uint32_t palette[256];
        gif_palette(palette);
        w->gif = gif_writer_create(path, width, height, palette, 256, err);
        if (w->gif)
            w->pending = xmalloc((size_t)width * (size_t)height);
        break;
    }
    case REC_WEBP: {
        WebPAnimEncoderOptions opt;
        if (!WebPAnimEncoderOptionsInit(&opt)) {
            *err = xstrdup("libwebpmux does not match the headers glovebox was built with");
            break;
        }
        opt.allow_mixed = 0;
        w->webp = WebPAnimEncoderNew(width, height, &opt);
        if (!w->webp)
            *err = xasprintf("cannot make a %d×%d animated WebP (at most 16383 px a side)", width,
                             height);
        break;
    }
    case REC_WEBM:
        w->video = video_writer_create(path, width, height, 0, 0, err);
        break;
    }
    if (!w->gif && !w->webp && !w->video) {
        free(w->path);
        free(w);
        return NULL;
    }
    return w;
}

static bool webp_add(struct anim_writer *w, const struct frame *f, uint64_t at_ms, char **err)
{
    WebPConfig config;
    WebPPicture pic;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&pic)) {
        *err = xstrdup("libwebp does not match the headers glovebox was built with");
        return false;
    }
    config.quality = WEBP_QUALITY;
    config.method = 2; /* fast: recordings can be long */
    pic.width = (int)f->width;
    pic.height = (int)f->height;
    pic.use_argb = 1;
    if (!WebPPictureImportRGBX(&pic, f->rgba, (int)f->stride)) {
        *err = xstrdup("out of memory converting a frame to WebP");
        return false;
    }
    bool ok = WebPAnimEncoderAdd(w->webp, &pic, (int)at_ms, &config);
    if (!ok)
        *err = xasprintf("WebP encoding failed: %s", WebPAnimEncoderGetError(w->webp));
    WebPPictureFree(&pic);
    return ok;
}

bool anim_writer_add(struct anim_writer *w, const struct frame *f, uint64_t at_ms, char **err)
{
    if ((int)f->width != w->width || (int)f->height != w->height) {
        *err = xasprintf("a frame of %u×%u in a %d×%d recording", f->width, f->height, w->width,
                         w->height);
        return false;
    }
    switch (w->format) {
    case REC_GIF:
        if (!gif_flush(w, at_ms, err))
            return false;
        gif_indices(f, w->pending);
        w->pending_at = at_ms;
        w->have_pending = true;
        return true;
    case REC_WEBP:
        return webp_add(w, f, at_ms, err);
    case REC_WEBM:
        return video_writer_add(w->video, f, at_ms, err);
    }
    return false;
}

static bool webp_close(struct anim_writer *w, uint64_t end_ms, char **err)
{
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAdd(w->webp, NULL, (int)end_ms, NULL) ||
        !WebPAnimEncoderAssemble(w->webp, &data)) {
        *err = xasprintf("WebP encoding failed: %s", WebPAnimEncoderGetError(w->webp));
        return false;
    }
    char *tmp;
    int fd = anim_tmp_open(w->path, &tmp, err);
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < data.size;) {
        ssize_t n = write(fd, data.bytes + off, data.size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            ok = false;
            break;
        }
        off += (size_t)n;
    }
    if (ok)
        ok = anim_tmp_commit(fd, tmp, w->path, err);
    free(tmp);
    WebPDataClear(&data);
    return ok;
}

static void destroy(struct anim_writer *w)
{
    if (w->webp)
        WebPAnimEncoderDelete(w->webp);
    free(w->pending);
    free(w->path);
    free(w);
}

bool anim_writer_close(struct anim_writer *w, uint64_t end_ms, char **err)
{
    bool ok = false;
    switch (w->format) {
    case REC_GIF:
        ok = gif_flush(w, end_ms, err);
        if (ok)
            ok = gif_writer_close(w->gif, err);
        else
            gif_writer_abort(w->gif);
        break;
    case REC_WEBP:
        ok = webp_close(w, end_ms, err);
        break;
    case REC_WEBM:
        ok = video_writer_close(w->video, end_ms, err);
        break;
    }
    destroy(w);
    return ok;
}

void anim_writer_abort(struct anim_writer *w)
{
    if (!w)
        return;
    gif_writer_abort(w->gif);
    video_writer_abort(w->video);
    destroy(w);
}
