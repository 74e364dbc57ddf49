/* The frame pipeline: produce (the backend's), then crop, pointer,
 * redaction, scale and encode on the worker pool, and one typed answer. */
#include "backend/frames.h"

#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "image/pixel_budget.h"
#include "image/scale.h"
#include "session/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* Attempts at making an image over FRAMES_FIT_BYTES smaller. */
#define FIT_TRIES 4

struct job {
    uv_work_t work;
    struct backend_call *bc;
    struct frame_source src;
    enum image_format format;
    int quality, max_width;
    bool fit, cursor, link;
    bool has_region;
    struct screen_rect region;
    /* the guard's areas, copied: the call's guard lives until the answer,
     * but a copy keeps the worker off the loop's memory */
    struct screen_rect *redact;
    size_t n_redact;
    /* results */
    uint8_t *bytes;
    size_t len;
    uint32_t width, height;
    double scale;
    int redacted;
    char *err;
    enum error_code code; /* of err */
};

uint32_t frames_fit_width(uint32_t w, uint32_t h)
{
    uint32_t side = w > h ? w : h;
    if (side <= FRAMES_FIT_SIDE)
        return w;
    uint32_t fw = (uint32_t)((uint64_t)w * FRAMES_FIT_SIDE / side);
    return fw ? fw : 1;
}

/* The part of f inside the screen rectangle r (f's corner at x,y), as a new
 * frame in *out; false with *err when r reaches past f. */
static bool crop(const struct frame *f, int x, int y, double unit, const struct screen_rect *r,
                 struct frame *out, char **err)
{
    int fx = (int)lround((r->x - x) * unit), fy = (int)lround((r->y - y) * unit);
    int fw = (int)lround(r->width * unit), fh = (int)lround(r->height * unit);
    if (fx < 0 || fy < 0 || fw <= 0 || fh <= 0 || fx + fw > (int)f->width ||
        fy + fh > (int)f->height) {
        *err = xasprintf("region %dx%d at %d,%d is off the screen (%dx%d)", r->width, r->height,
                         r->x, r->y, (int)lround(f->width / unit), (int)lround(f->height / unit));
        return false;
    }
    frame_alloc(out, (uint32_t)fw, (uint32_t)fh);
    for (int row = 0; row < fh; row++)
        memcpy(out->rgba + (size_t)row * out->stride,
               f->rgba + (size_t)(fy + row) * f->stride + (size_t)fx * 4, (size_t)fw * 4);
    return true;
}

/* Premultiplied ARGB over the frame: each channel becomes
 * pointer + frame × (1 − alpha). The pointer keeps its size; its place
 * follows the frame's unit. */
static void draw_cursor(struct frame *f, const struct frame_cursor *c, int x0, int y0, double unit)
{
    long left = lround((c->x - x0) * unit), top = lround((c->y - y0) * unit);
    for (uint32_t y = 0; y < c->height; y++) {
        long fy = top + (long)y;
        if (fy < 0 || fy >= (long)f->height)
            continue;
        for (uint32_t x = 0; x < c->width; x++) {
            long fx = left + (long)x;
            if (fx < 0 || fx >= (long)f->width)
                continue;
            uint32_t p = c->argb[(size_t)y * c->width + x];
            uint32_t a = p >> 24;
            uint8_t *d = f->rgba + (size_t)fy * f->stride + (size_t)fx * 4;
            d[0] = (uint8_t)(((p >> 16) & 0xff) + d[0] * (255 - a) / 255);
            d[1] = (uint8_t)(((p >> 8) & 0xff) + d[1] * (255 - a) / 255);
            d[2] = (uint8_t)((p & 0xff) + d[2] * (255 - a) / 255);
        }
    }
}

bool frames_paint(struct frame *f, const struct screen_rect *r, int x0, int y0, double unit)
{
    long left = (long)floor((r->x - x0) * unit), top = (long)floor((r->y - y0) * unit);
    long right = (long)ceil(((double)r->x + r->width - x0) * unit);
    long bottom = (long)ceil(((double)r->y + r->height - y0) * unit);
    if (left < 0)
        left = 0;
    if (top < 0)
        top = 0;
    if (right > (long)f->width)
        right = f->width;
    if (bottom > (long)f->height)
        bottom = f->height;
    if (left >= right || top >= bottom)
        return false;
    for (long y = top; y < bottom; y++)
        for (long x = left; x < right; x++)
            memcpy(f->rgba + (size_t)y * f->stride + (size_t)x * 4, "\x60\x60\x60\xff", 4);
    return true;
}

/* Encodes src scaled to `width` (no scaling when it is src's); false with
 * j->err. */
static bool encode_at(struct job *j, const struct frame *src, uint32_t width)
{
    struct frame scaled, *out = (struct frame *)src;
    if (width < src->width) {
        image_downscale(src, width, &scaled);
        out = &scaled;
    }
    free(j->bytes);
    j->bytes = NULL;
    j->width = out->width;
    j->height = out->height;
    bool ok = image_encode(out, j->format, j->quality, &j->bytes, &j->len, &j->err);
    if (out == &scaled)
        frame_finish(&scaled);
    return ok;
}

static void run(uv_work_t *work)
{
    struct job *j = work->data;
    struct frame_shot shot = {.unit = 1};
    struct frame_request rq = {.region = j->has_region ? &j->region : NULL, .cursor = j->cursor};
    if (!j->src.produce(j->src.ud, &rq, &shot, &j->err)) {
        j->code = shot.fail_code;
        image_budget_release(shot.budget_pixels);
        free(shot.cursor.argb);
        return;
    }
    struct frame *f = &shot.frame, cropped;
    int x0 = shot.x, y0 = shot.y;
    /* A source that could not grab just the region gave more: cut it out. */
    if (j->has_region && (f->width != (uint32_t)lround(j->region.width * shot.unit) ||
                          f->height != (uint32_t)lround(j->region.height * shot.unit) ||
                          x0 != j->region.x || y0 != j->region.y)) {
        if (!crop(f, x0, y0, shot.unit, &j->region, &cropped, &j->err))
            goto out;
        frame_finish(f);
        *f = cropped;
        x0 = j->region.x;
        y0 = j->region.y;
    }
    if (shot.cursor.argb)
        draw_cursor(f, &shot.cursor, x0, y0, shot.unit);
    /* After the pointer, so that not even it shows over a password. */
    for (size_t i = 0; i < j->n_redact; i++)
        j->redacted += frames_paint(f, &j->redact[i], x0, y0, shot.unit);
    for (int i = 0; i < shot.n_secrets; i++)
        j->redacted += frames_paint(f, &shot.secrets[i], x0, y0, shot.unit);

    uint32_t width = f->width;
    if (j->max_width > 0 && (uint32_t)j->max_width < width)
        width = (uint32_t)j->max_width;
    else if (j->max_width <= 0 && j->fit)
        width = frames_fit_width(f->width, f->height);
    bool ok = encode_at(j, f, width);
    /* Too many bytes for clients: smaller until it fits, by the ratio of
     * the sizes (bytes grow about with the pixels) and a margin. */
    for (int t = 0; ok && j->fit && j->max_width <= 0 && j->len > FRAMES_FIT_BYTES && t < FIT_TRIES;
         t++) {
        double k = sqrt((double)FRAMES_FIT_BYTES / (double)j->len) * 0.9;
        uint32_t w = (uint32_t)(j->width * k);
        if (w < 16 || w >= j->width)
            break;
        ok = encode_at(j, f, w);
    }
    /* Image pixels per screen coordinate: map image coordinates back by
     * dividing by it (click and the others take it as `scale`). */
    j->scale = (double)j->width / ((double)f->width / shot.unit);
    if (shot.unit == 1 && j->width == f->width)
        j->scale = 1;
out:
    frame_finish(f);
    free(shot.cursor.argb);
    image_budget_release(shot.budget_pixels);
}

static void done(uv_work_t *work, int status)
{
    (void)status;
    struct job *j = work->data;
    struct backend_call *bc = j->bc;
    if (j->src.release)
        j->src.release(j->src.ud);
    if (j->err || !j->bytes) {
        /* The screen went away under the capture: the session's end, not a fault. */
        backend_call_fail_code(
            bc, bc->session->state == SESSION_ENDED ? ERROR_SESSION_EXPIRED : j->code, "%s: %s",
            j->src.failure, j->err ? j->err : "cancelled");
    } else {
        /* The name the caller asked for ("jpeg"), not the extension ("jpg"). */
        const char *name = j->format == IMAGE_JPEG ? "jpeg" : image_format_extension(j->format);
        json_t *o = json_pack("{s:s, s:i, s:i, s:s, s:I, s:f}", "session", bc->session->id, "width",
                              (int)j->width, "height", (int)j->height, "format", name, "bytes",
                              (json_int_t)j->len, "scale", j->scale);
        /* Coordinates in the image divided by scale, plus the region's
         * origin, are screen coordinates. */
        if (j->has_region)
            json_object_set_new(o, "region",
                                json_pack("{s:i, s:i, s:i, s:i}", "x", j->region.x, "y",
                                          j->region.y, "width", j->region.width, "height",
                                          j->region.height));
        if (j->redacted)
            json_object_set_new(o, "redacted", json_integer(j->redacted));
        char caption[160];
        snprintf(caption, sizeof caption, "%s screenshot of %s, %ux%u px%s", name, bc->session->id,
                 j->width, j->height, j->scale < 1 ? " (scaled)" : "");
        if (j->link) {
            /* The screen resource renders the screen again when read. */
            char *uri = xasprintf("glovebox://session/%s/screen", bc->session->id);
            json_object_set_new(o, "uri", json_string(uri));
            backend_call_done_link(bc, o, uri, "screen", image_format_mime(j->format), "%s",
                                   caption);
            free(uri);
        } else {
            backend_call_done_image(bc, o, j->bytes, j->len, image_format_mime(j->format), caption);
            j->bytes = NULL;
        }
    }
    free(j->bytes);
    free(j->err);
    free(j->redact);
    free(j);
}

void frames_screenshot(struct backend_call *bc, const struct frame_source *src)
{
    struct job *j = xcalloc(1, sizeof *j);
    j->bc = bc;
    j->src = *src;
    if (!image_format_parse(args_string(bc->args, "format", "png"), &j->format))
        j->format = IMAGE_PNG;
    j->quality = (int)args_int(bc->args, "quality", 85);
    j->max_width = (int)args_int(bc->args, "max_width", 0);
    j->fit = args_bool(bc->args, "fit", true);
    j->cursor = args_bool(bc->args, "cursor", false);
    const char *as = args_string(bc->args, "as", "image");
    j->link = as && strcmp(as, "link") == 0;
    const json_t *r = json_object_get(bc->args, "region");
    if (json_is_object(r)) {
        j->has_region = true;
        j->region =
            (struct screen_rect){(int)args_int(r, "x", 0), (int)args_int(r, "y", 0),
                                 (int)args_int(r, "width", 0), (int)args_int(r, "height", 0)};
    }
    if (bc->guard && bc->guard->n_redact) {
        j->n_redact = bc->guard->n_redact;
        j->redact = xmalloc(j->n_redact * sizeof *j->redact);
        memcpy(j->redact, bc->guard->redact, j->n_redact * sizeof *j->redact);
    }
    j->work.data = j;
    uv_queue_work(bc->app->loop, &j->work, run, done);
}
