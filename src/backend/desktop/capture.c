/* Pixels of a desktop: the root window through xgrab (MIT-SHM), on the worker
 * pool, cropped to a region, scaled down by
 * area averaging and encoded. */
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/xgrab.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "image/frame.h"
#include "image/scale.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

bool desktop_capture(void *ud, struct frame *out, char **err)
{
    struct desktop *d = ud;
    return xgrab_screen(d->grab, out, err);
}

struct shot {
    uv_work_t work;
    struct backend_call *bc;
    struct desktop *d;
    enum image_format format;
    int quality, max_width;
    int rx, ry, rw, rh; /* region; rw == 0 for the whole screen */
    bool cursor;        /* draw the mouse pointer */
    int redacted;       /* password fields and the guard's areas painted over */
    uint8_t *bytes;
    size_t len;
    uint32_t width, height, source_width;
    char *err;
};

/* Password fields the accessibility tree has shown, and the areas the
 * call's guard names (the policy's), are painted over before the pixels
 * leave the server. f's top-left corner is the screen's x0,y0. Returns how
 * many areas were painted (those that overlap f). */
static int redact_secrets(struct desktop *d, const struct screen_guard *guard, struct frame *f,
                          int x0, int y0)
{
    struct perceive_rect r[PERCEIVE_MAX_SECRETS + 64];
    int n = perceive_secret_rects(d->perceive, r, PERCEIVE_MAX_SECRETS);
    for (size_t k = 0; k < guard->n_redact && n < (int)(sizeof r / sizeof r[0]); k++) {
        const struct screen_rect *g = &guard->redact[k];
        r[n++] = (struct perceive_rect){g->x, g->y, g->width, g->height};
    }
    int painted = 0;
    for (int i = 0; i < n; i++) {
        int left = r[i].x - x0, top = r[i].y - y0;
        int fx0 = left < 0 ? 0 : left, fy0 = top < 0 ? 0 : top;
        int fx1 = left + r[i].w, fy1 = top + r[i].h;
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
    struct frame captured;
    /* A region is read on its own: the X server copies only those pixels. */
    if (!(sh->rw ? xgrab_area(sh->d->grab, sh->rx, sh->ry, sh->rw, sh->rh, &captured, &sh->err)
                 : desktop_capture(sh->d, &captured, &sh->err)))
        return;
    if (sh->cursor && !xgrab_draw_cursor(sh->d->grab, &captured, sh->rx, sh->ry, &sh->err)) {
        frame_finish(&captured);
        return;
    }
    sh->redacted = redact_secrets(sh->d, sh->bc->guard, &captured, sh->rx, sh->ry);
    struct frame *src = &captured, scaled;
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
    frame_finish(&captured);
}

static void shot_done(uv_work_t *work, int status)
{
    (void)status;
    struct shot *sh = work->data;
    struct backend_call *bc = sh->bc;
    if (sh->err || !sh->bytes) {
        backend_call_fail_code(
            bc, bc->session->state == SESSION_ENDED ? ERROR_SESSION_EXPIRED : ERROR_TOOL_FAILED,
            "cannot take a screenshot: %s", sh->err ? sh->err : "cancelled");
    } else {
        /* Coordinates in the image divided by scale, plus the region's
         * origin, are screen coordinates. */
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
    free(sh->bytes);
    free(sh->err);
    free(sh);
}

void desktop_screenshot_op(struct backend_call *bc)
{
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->bc = bc;
    sh->d = desktop_of(bc->session);
    if (!image_format_parse(args_string(bc->args, "format", "png"), &sh->format))
        sh->format = IMAGE_PNG;
    sh->quality = (int)args_int(bc->args, "quality", 85);
    sh->max_width = (int)args_int(bc->args, "max_width", 0);
    sh->cursor = args_bool(bc->args, "cursor", false);
    const json_t *r = json_object_get(bc->args, "region");
    if (json_is_object(r)) {
        sh->rx = (int)args_int(r, "x", 0);
        sh->ry = (int)args_int(r, "y", 0);
        sh->rw = (int)args_int(r, "width", 0);
        sh->rh = (int)args_int(r, "height", 0);
    }
    sh->work.data = sh;
    uv_queue_work(bc->app->loop, &sh->work, shot_run, shot_done);
}
