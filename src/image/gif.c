#include "image/gif.h"

#include "core/xmalloc.h"

#include <cgif.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gif_writer {
    CGIF *gif;
    FILE *file; /* the temporary file, renamed over path on close */
    char *path, *tmp_path;
    int width, height;
    int frames;             /* handed to cgif */
    uint8_t *pending;       /* the newest frame, held back while identical ones follow */
    uint32_t pending_delay; /* hundredths of a second */
    bool write_failed;      /* set by the write callback; errno in write_errno */
    int write_errno;
    bool discard; /* aborting: cgif still flushes queued frames, drop them */
};

static int write_cb(void *ctx, const uint8_t *data, const size_t len)
{
    struct gif_writer *w = ctx;
    if (w->discard)
        return 0;
    if (fwrite(data, 1, len, w->file) != len) {
        w->write_failed = true;
        w->write_errno = errno;
        return -1;
    }
    return 0;
}

static void destroy(struct gif_writer *w)
{
    free(w->pending);
    free(w->path);
    free(w->tmp_path);
    free(w);
}

struct gif_writer *gif_writer_create(const char *path, int width, int height,
                                     const uint32_t *palette, int palette_len, char **err)
{
    if (width < 1 || height < 1 || width > 65535 || height > 65535) {
        *err = xasprintf("GIF size %dx%d is out of range (1..65535)", width, height);
        return NULL;
    }
    if (palette_len < 1 || palette_len > 256) {
        *err = xasprintf("GIF palette of %d colours is out of range (1..256)", palette_len);
        return NULL;
    }
    struct gif_writer *w = xcalloc(1, sizeof(*w));
    w->path = xstrdup(path);
    /* Same directory as path, so the final rename cannot cross filesystems. */
    w->tmp_path = xasprintf("%s.tmp-XXXXXX", path);
    w->width = width;
    w->height = height;
    int fd = mkstemp(w->tmp_path);
    if (fd < 0) {
        *err = xasprintf("cannot create %s: %s", w->tmp_path, strerror(errno));
        destroy(w);
        return NULL;
    }
    w->file = fdopen(fd, "wb");
    if (!w->file) {
        *err = xasprintf("cannot open %s: %s", w->tmp_path, strerror(errno));
        close(fd);
        unlink(w->tmp_path);
        destroy(w);
        return NULL;
    }
    uint8_t rgb[256 * 3];
    for (int i = 0; i < palette_len; i++) {
        rgb[i * 3] = (uint8_t)(palette[i] >> 16);
        rgb[i * 3 + 1] = (uint8_t)(palette[i] >> 8);
        rgb[i * 3 + 2] = (uint8_t)palette[i];
    }
    CGIF_Config cfg = {
        .pGlobalPalette = rgb, /* copied by cgif */
        .attrFlags = CGIF_ATTR_IS_ANIMATED,
        .width = (uint16_t)width,
        .height = (uint16_t)height,
        .numGlobalPaletteEntries = (uint16_t)palette_len,
        .numLoops = CGIF_INFINITE_LOOP,
        .pWriteFn = write_cb,
        .pContext = w,
    };
    w->gif = cgif_newgif(&cfg);
    if (!w->gif) {
        *err = w->write_failed
                   ? xasprintf("cannot write %s: %s", w->tmp_path, strerror(w->write_errno))
                   : xstrdup("GIF encoder could not be created");
        fclose(w->file);
        unlink(w->tmp_path);
        destroy(w);
        return NULL;
    }
    return w;
}

static bool flush_pending(struct gif_writer *w, char **err)
{
    if (!w->pending)
        return true;
    CGIF_FrameConfig fc = {
        .pImageData = w->pending, /* copied by cgif */
        /* Only encode the changed rectangle, and make unchanged pixels inside
         * it transparent: terminal recordings change a few cells per frame.
         * (cgif skips transparency when the palette has all 256 entries.) */
        .genFlags = CGIF_FRAME_GEN_USE_DIFF_WINDOW | CGIF_FRAME_GEN_USE_TRANSPARENCY,
        .delay = (uint16_t)w->pending_delay,
    };
    int rc = cgif_addframe(w->gif, &fc);
    if (rc != CGIF_OK) {
        *err = w->write_failed
                   ? xasprintf("cannot write %s: %s", w->tmp_path, strerror(w->write_errno))
                   : xasprintf("GIF frame could not be added (cgif error %d)", rc);
        return false;
    }
    w->frames++;
    return true;
}

bool gif_writer_add(struct gif_writer *w, const uint8_t *indices, int delay_cs, char **err)
{
    size_t n = (size_t)w->width * (size_t)w->height;
    uint32_t delay = delay_cs < 0 ? 0 : (uint32_t)delay_cs;
    /* An idle screen repeats frames; showing one frame longer is far smaller. */
    if (w->pending && w->pending_delay + delay <= UINT16_MAX &&
        memcmp(w->pending, indices, n) == 0) {
        w->pending_delay += delay;
        return true;
    }
    if (!flush_pending(w, err))
        return false;
    if (!w->pending)
        w->pending = xmalloc(n);
    memcpy(w->pending, indices, n);
    w->pending_delay = delay > UINT16_MAX ? UINT16_MAX : delay;
    return true;
}

bool gif_writer_close(struct gif_writer *w, char **err)
{
    if (!flush_pending(w, err)) {
        gif_writer_abort(w);
        return false;
    }
    if (w->frames == 0) {
        *err = xstrdup("a GIF needs at least one frame");
        gif_writer_abort(w);
        return false;
    }
    int rc = cgif_close(w->gif);
    w->gif = NULL;
    int saved = 0;
    if (rc != CGIF_OK)
        saved = w->write_failed ? w->write_errno : EIO;
    else if (fflush(w->file) != 0 || fsync(fileno(w->file)) != 0)
        saved = errno;
    if (fclose(w->file) != 0 && !saved)
        saved = errno;
    w->file = NULL;
    if (!saved && rename(w->tmp_path, w->path) != 0)
        saved = errno;
    if (saved) {
        *err = rc != CGIF_OK && !w->write_failed
                   ? xasprintf("GIF encoding failed (cgif error %d)", rc)
                   : xasprintf("cannot write %s: %s", w->path, strerror(saved));
        unlink(w->tmp_path);
        destroy(w);
        return false;
    }
    destroy(w);
    return true;
}

void gif_writer_abort(struct gif_writer *w)
{
    if (!w)
        return;
    if (w->gif) {
        w->discard = true;
        cgif_close(w->gif); /* only to free it; its output is discarded */
    }
    if (w->file)
        fclose(w->file);
    unlink(w->tmp_path);
    destroy(w);
}
