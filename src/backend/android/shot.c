/* Screenshots of a device: `exec:screencap` (raw pixels, no PNG encode on
 * the phone) read over adb, then on the worker pool: the raw header, the
 * region, the guard's redactions, scaling and encoding, as desktops do. */
#include "backend/android/internal.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "image/frame.h"
#include "image/scale.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

struct shot {
    uv_work_t work;
    struct backend_call *bc;
    uint8_t *raw;
    size_t raw_len;
    enum image_format format;
    int quality, max_width;
    int rx, ry, rw, rh; /* region; rw == 0: the whole screen */
    int redacted;
    uint8_t *bytes;
    size_t len;
    uint32_t width, height, source_width;
    char *err;
};

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* screencap's raw output: width, height, format (+ colour space on Android
 * 9+: a 16-byte header, else 12), then the pixels. */
static bool decode_raw(const uint8_t *raw, size_t len, struct frame *f, char **err)
{
    if (len < 12) {
        *err = xasprintf("screencap wrote %zu bytes, less than its header", len);
        return false;
    }
    uint32_t w = le32(raw), h = le32(raw + 4), fmt = le32(raw + 8);
    size_t bpp = fmt == 4 ? 2 : fmt == 3 ? 3 : 4;
    if (w == 0 || h == 0 || w > 16384 || h > 16384) {
        *err = xasprintf("screencap reported a %ux%u screen", w, h);
        return false;
    }
    size_t pixels = (size_t)w * h * bpp;
    size_t header = len == 16 + pixels ? 16 : len == 12 + pixels ? 12 : 0;
    if (!header) {
        *err = xasprintf("screencap wrote %zu bytes for a %ux%u screen (format %u); expected "
                         "%zu after its header",
                         len, w, h, fmt, pixels);
        return false;
    }
    if (fmt != 1 && fmt != 2 && fmt != 3 && fmt != 4 && fmt != 5) {
        *err = xasprintf("screencap's pixel format %u is not supported (expected RGBA_8888, "
                         "RGBX_8888, RGB_888, RGB_565 or BGRA_8888)",
                         fmt);
        return false;
    }
    frame_alloc(f, w, h);
    const uint8_t *src = raw + header;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *d = f->rgba + (size_t)y * f->stride;
        const uint8_t *s = src + (size_t)y * w * bpp;
        if (fmt == 1) {
            memcpy(d, s, (size_t)w * 4);
            for (uint32_t x = 0; x < w; x++)
                d[x * 4 + 3] = 255;
            continue;
        }
        for (uint32_t x = 0; x < w; x++, d += 4) {
            if (fmt == 4) {
                uint16_t v = (uint16_t)(s[x * 2] | s[x * 2 + 1] << 8);
                d[0] = (uint8_t)((v >> 11) * 255 / 31);
                d[1] = (uint8_t)(((v >> 5) & 63) * 255 / 63);
                d[2] = (uint8_t)((v & 31) * 255 / 31);
            } else if (fmt == 3) {
                memcpy(d, s + x * 3, 3);
            } else if (fmt == 5) {
                d[0] = s[x * 4 + 2];
                d[1] = s[x * 4 + 1];
                d[2] = s[x * 4];
            } else {
                memcpy(d, s + x * 4, 3);
            }
            d[3] = 255;
        }
    }
    return true;
}

static bool crop(struct frame *f, int x, int y, int w, int h, char **err)
{
    if (x >= (int)f->width || y >= (int)f->height) {
        *err = xasprintf("region: (%d,%d) is outside the %ux%u screen", x, y, f->width, f->height);
        return false;
    }
    if (x + w > (int)f->width)
        w = (int)f->width - x;
    if (y + h > (int)f->height)
        h = (int)f->height - y;
    struct frame out;
    frame_alloc(&out, (uint32_t)w, (uint32_t)h);
    for (int row = 0; row < h; row++)
        memcpy(out.rgba + (size_t)row * out.stride,
               f->rgba + (size_t)(y + row) * f->stride + (size_t)x * 4, (size_t)w * 4);
    frame_finish(f);
    *f = out;
    return true;
}

/* The guard's areas (the policy's redactions), in screen pixels. */
static int redact(const struct screen_guard *g, struct frame *f, int x0, int y0)
{
    int painted = 0;
    for (size_t k = 0; k < g->n_redact; k++) {
        const struct screen_rect *r = &g->redact[k];
        int fx0 = r->x - x0 < 0 ? 0 : r->x - x0, fy0 = r->y - y0 < 0 ? 0 : r->y - y0;
        int fx1 = r->x - x0 + r->width, fy1 = r->y - y0 + r->height;
        if (fx1 > (int)f->width)
            fx1 = (int)f->width;
        if (fy1 > (int)f->height)
            fy1 = (int)f->height;
        if (fx0 >= fx1 || fy0 >= fy1)
            continue;
        painted++;
        for (int y = fy0; y < fy1; y++)
            for (int x = fx0; x < fx1; x++)
                memcpy(f->rgba + (size_t)y * f->stride + (size_t)x * 4, "\x60\x60\x60\xff", 4);
    }
    return painted;
}

static void shot_run(uv_work_t *work)
{
    struct shot *sh = work->data;
    struct frame f;
    if (!decode_raw(sh->raw, sh->raw_len, &f, &sh->err))
        return;
    free(sh->raw);
    sh->raw = NULL;
    if (sh->rw && !crop(&f, sh->rx, sh->ry, sh->rw, sh->rh, &sh->err)) {
        frame_finish(&f);
        return;
    }
    sh->redacted = redact(sh->bc->guard, &f, sh->rx, sh->ry);
    sh->source_width = f.width;
    struct frame *out = &f, scaled;
    if (sh->max_width > 0 && (uint32_t)sh->max_width < f.width) {
        image_downscale(&f, (uint32_t)sh->max_width, &scaled);
        out = &scaled;
    }
    sh->width = out->width;
    sh->height = out->height;
    image_encode(out, sh->format, sh->quality, &sh->bytes, &sh->len, &sh->err);
    if (out == &scaled)
        frame_finish(&scaled);
    frame_finish(&f);
}

static void shot_done(uv_work_t *work, int status)
{
    (void)status;
    struct shot *sh = work->data;
    struct backend_call *bc = sh->bc;
    if (sh->err || !sh->bytes) {
        backend_call_fail(bc, "cannot take a screenshot: %s", sh->err ? sh->err : "cancelled");
    } else {
        json_t *extra = NULL;
        if (sh->rw)
            extra = json_pack("{s:{s:i, s:i, s:i, s:i}}", "region", "x", sh->rx, "y", sh->ry,
                              "width", sh->rw, "height", sh->rh);
        if (sh->redacted) {
            if (!extra)
                extra = json_object();
            json_object_set_new(extra, "redacted", json_integer(sh->redacted));
        }
        backend_call_done_screenshot(bc, sh->bytes, sh->len, sh->format, sh->width, sh->height,
                                     (double)sh->width / (double)sh->source_width, extra);
        sh->bytes = NULL;
    }
    free(sh->raw);
    free(sh->bytes);
    free(sh->err);
    free(sh);
}

static void captured(struct backend_call *bc, const struct adb_reply *r)
{
    struct shot *sh = bc->backend_data;
    if (!r->ok) {
        backend_call_fail_code(bc, r->code, "cannot take a screenshot: %s", r->error);
        free(sh);
        return;
    }
    sh->raw = adb_reply_take_out(r, &sh->raw_len);
    sh->work.data = sh;
    uv_queue_work(bc->app->loop, &sh->work, shot_run, shot_done);
}

void android_screenshot_op(struct backend_call *bc)
{
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->bc = bc;
    if (!image_format_parse(args_string(bc->args, "format", "png"), &sh->format))
        sh->format = IMAGE_PNG;
    sh->quality = (int)args_int(bc->args, "quality", 85);
    sh->max_width = (int)args_int(bc->args, "max_width", 0);
    const json_t *r = json_object_get(bc->args, "region");
    if (json_is_object(r)) {
        sh->rx = (int)args_int(r, "x", 0);
        sh->ry = (int)args_int(r, "y", 0);
        sh->rw = (int)args_int(r, "width", 0);
        sh->rh = (int)args_int(r, "height", 0);
    }
    bc->backend_data = sh;
    android_run(bc, ADB_EXEC, "screencap", ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT, captured);
}
