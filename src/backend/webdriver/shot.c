/* screenshot on webdriver sessions: password fields' places (one script),
 * then the endpoint's PNG of the viewport, decoded, cropped, painted over,
 * scaled and encoded on the worker pool like desktop captures. */
#include "backend/webdriver/internal.h"

#include "core/app.h"
#include "core/args.h"
#include "core/base64.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "image/frame.h"
#include "image/scale.h"
#include "session/session.h"

#include <spng.h>
#include <string.h>

/* Password fields painted over: at most this many. */
#define MAX_SECRETS 64
/* Pixels a decoded screenshot may have (a 16k x 16k page). */
#define MAX_PIXELS (16384u * 16384u)

/* The viewport rectangles of visible password fields, in device pixels. */
static const char SECRETS_SCRIPT[] =
    "var r=[],d=window.devicePixelRatio||1;"
    "document.querySelectorAll('input[type=password]').forEach(function(e){"
    "var b=e.getBoundingClientRect();if(b.width>0&&b.height>0&&r.length<64)"
    "r.push([Math.floor(b.left*d),Math.floor(b.top*d),Math.ceil(b.width*d)+1,"
    "Math.ceil(b.height*d)+1]);});return r;";

struct shot {
    uv_work_t work;
    struct backend_call *bc;
    char *b64; /* the endpoint's PNG */
    enum image_format format;
    int quality, max_width;
    struct screen_rect region; /* width 0: all */
    struct screen_rect secrets[MAX_SECRETS + 64];
    int n_secrets, redacted;
    uint8_t *bytes;
    size_t len;
    uint32_t width, height, source_width;
    char *err;
};

static bool decode_png(const uint8_t *png, size_t len, struct frame *f, char **err)
{
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr ihdr;
    size_t size;
    int rc = spng_set_png_buffer(ctx, png, len);
    if (!rc)
        rc = spng_get_ihdr(ctx, &ihdr);
    if (!rc && (uint64_t)ihdr.width * ihdr.height > MAX_PIXELS) {
        spng_ctx_free(ctx);
        *err = xasprintf("the screenshot is too large (%ux%u)", ihdr.width, ihdr.height);
        return false;
    }
    if (!rc)
        rc = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &size);
    if (rc) {
        spng_ctx_free(ctx);
        *err = xasprintf("the endpoint's screenshot is not a PNG: %s", spng_strerror(rc));
        return false;
    }
    frame_alloc(f, ihdr.width, ihdr.height);
    rc = spng_decode_image(ctx, f->rgba, (size_t)f->stride * f->height, SPNG_FMT_RGBA8,
                           SPNG_DECODE_TRNS);
    spng_ctx_free(ctx);
    if (rc) {
        frame_finish(f);
        *err = xasprintf("the endpoint's screenshot is not a PNG: %s", spng_strerror(rc));
        return false;
    }
    for (size_t i = 3; i < (size_t)f->stride * f->height; i += 4)
        f->rgba[i] = 0xff;
    return true;
}

/* A copy of the part of f inside r (clipped); false when they do not meet. */
static bool crop(const struct frame *f, struct screen_rect *r, struct frame *out)
{
    int x1 = r->x + r->width, y1 = r->y + r->height;
    if (x1 > (int)f->width)
        x1 = (int)f->width;
    if (y1 > (int)f->height)
        y1 = (int)f->height;
    if (r->x >= x1 || r->y >= y1)
        return false;
    r->width = x1 - r->x;
    r->height = y1 - r->y;
    frame_alloc(out, (uint32_t)r->width, (uint32_t)r->height);
    for (int y = 0; y < r->height; y++)
        memcpy(out->rgba + (size_t)y * out->stride,
               f->rgba + (size_t)(r->y + y) * f->stride + (size_t)r->x * 4, (size_t)r->width * 4);
    return true;
}

static int paint_over(struct frame *f, const struct screen_rect *r, int n, int x0, int y0)
{
    int painted = 0;
    for (int i = 0; i < n; i++) {
        int fx0 = r[i].x - x0, fy0 = r[i].y - y0;
        int fx1 = fx0 + r[i].width, fy1 = fy0 + r[i].height;
        fx0 = fx0 < 0 ? 0 : fx0;
        fy0 = fy0 < 0 ? 0 : fy0;
        fx1 = fx1 > (int)f->width ? (int)f->width : fx1;
        fy1 = fy1 > (int)f->height ? (int)f->height : fy1;
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
    size_t len;
    uint8_t *png = (uint8_t *)base64_decode(sh->b64, strlen(sh->b64), &len);
    if (!png) {
        sh->err = xstrdup("the endpoint's screenshot is not base64");
        return;
    }
    struct frame full, part, scaled, *src = &full;
    bool ok = decode_png(png, len, &full, &sh->err);
    free(png);
    if (!ok)
        return;
    if (sh->region.width) {
        if (!crop(&full, &sh->region, &part)) {
            sh->err = xasprintf("argument \"region\" lies outside the %ux%u viewport", full.width,
                                full.height);
            frame_finish(&full);
            return;
        }
        src = &part;
    }
    sh->redacted = paint_over(src, sh->secrets, sh->n_secrets, sh->region.x, sh->region.y);
    sh->source_width = src->width;
    struct frame *out = src;
    if (sh->max_width > 0 && (uint32_t)sh->max_width < src->width) {
        image_downscale(src, (uint32_t)sh->max_width, &scaled);
        out = &scaled;
    }
    sh->width = out->width;
    sh->height = out->height;
    image_encode(out, sh->format, sh->quality, &sh->bytes, &sh->len, &sh->err);
    if (out == &scaled)
        frame_finish(&scaled);
    if (src == &part)
        frame_finish(&part);
    frame_finish(&full);
}

static void shot_free(struct shot *sh)
{
    free(sh->b64);
    free(sh->bytes);
    free(sh->err);
    free(sh);
}

static void shot_done(uv_work_t *work, int status)
{
    (void)status;
    struct shot *sh = work->data;
    struct backend_call *bc = sh->bc;
    if (sh->err || !sh->bytes) {
        backend_call_fail_code(bc,
                               sh->err && strncmp(sh->err, "argument", 8) == 0
                                   ? ERROR_INVALID_ARGUMENT
                                   : ERROR_TOOL_FAILED,
                               "cannot take a screenshot: %s", sh->err ? sh->err : "cancelled");
    } else {
        json_t *extra = json_object();
        if (sh->region.width)
            json_object_set_new(extra, "region",
                                json_pack("{s:i, s:i, s:i, s:i}", "x", sh->region.x, "y",
                                          sh->region.y, "width", sh->region.width, "height",
                                          sh->region.height));
        if (sh->redacted)
            json_object_set_new(extra, "redacted", json_integer(sh->redacted));
        backend_call_done_screenshot(bc, sh->bytes, sh->len, sh->format, sh->width, sh->height,
                                     (double)sh->width / (double)sh->source_width, extra);
        sh->bytes = NULL;
    }
    shot_free(sh);
}

static void got_png(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct shot *sh = ud;
    if (err) {
        backend_call_fail_code(sh->bc, code, "cannot take a screenshot: %s", err);
        shot_free(sh);
        return;
    }
    if (!json_is_string(value)) {
        backend_call_fail(sh->bc, "cannot take a screenshot: %s sent no image", w->shown);
        shot_free(sh);
        return;
    }
    sh->b64 = xstrdup(json_string_value(value));
    sh->work.data = sh;
    uv_queue_work(w->app->loop, &sh->work, shot_run, shot_done);
}

static void got_secrets(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    struct shot *sh = ud;
    /* No script (a native app context): only the guard's areas. A device
     * that is gone fails here already. */
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED ||
                code == ERROR_TIMEOUT)) {
        backend_call_fail_code(sh->bc, code, "cannot take a screenshot: %s", err);
        shot_free(sh);
        return;
    }
    size_t i;
    json_t *r;
    json_array_foreach(value, i, r)
    {
        if (sh->n_secrets >= MAX_SECRETS)
            break;
        sh->secrets[sh->n_secrets++] =
            (struct screen_rect){(int)json_integer_value(json_array_get(r, 0)),
                                 (int)json_integer_value(json_array_get(r, 1)),
                                 (int)json_integer_value(json_array_get(r, 2)),
                                 (int)json_integer_value(json_array_get(r, 3))};
    }
    const struct screen_guard *g = sh->bc->guard;
    for (size_t k = 0;
         k < g->n_redact && sh->n_secrets < (int)(sizeof sh->secrets / sizeof sh->secrets[0]); k++)
        sh->secrets[sh->n_secrets++] = g->redact[k];
    wd_command(w, "GET", "/screenshot", NULL, got_png, sh);
}

void wd_screenshot_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->bc = bc;
    if (!image_format_parse(args_string(bc->args, "format", "png"), &sh->format))
        sh->format = IMAGE_PNG;
    sh->quality = (int)args_int(bc->args, "quality", 85);
    sh->max_width = (int)args_int(bc->args, "max_width", 0);
    const json_t *r = json_object_get(bc->args, "region");
    if (json_is_object(r))
        sh->region =
            (struct screen_rect){(int)args_int(r, "x", 0), (int)args_int(r, "y", 0),
                                 (int)args_int(r, "width", 0), (int)args_int(r, "height", 0)};
    wd_command(w, "POST", "/execute/sync",
               json_pack("{s:s, s:[]}", "script", SECRETS_SCRIPT, "args"), got_secrets, sh);
}
