/* Pixels of a desktop for the frame pipeline: the root window (or only the
 * region) through xgrab (MIT-SHM), the pointer from XFixes, and the password
 * fields the accessibility tree has shown, on the worker pool. */
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/xgrab.h"
#include "backend/frames.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

bool desktop_capture(void *ud, struct frame *out, char **err)
{
    struct desktop *d = ud;
    return xgrab_screen(d->grab, out, err);
}

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    struct desktop *d = ud;
    const struct screen_rect *r = rq->region;
    /* A region is read on its own: the X server copies only those pixels. */
    if (!(r ? xgrab_area(d->grab, r->x, r->y, r->width, r->height, &out->frame, err)
            : desktop_capture(d, &out->frame, err)))
        return false;
    if (r) {
        out->x = r->x;
        out->y = r->y;
    }
    if (rq->cursor && !xgrab_cursor(d->grab, &out->cursor, err)) {
        frame_finish(&out->frame);
        return false;
    }
    struct perceive_rect secrets[PERCEIVE_MAX_SECRETS];
    int n = perceive_secret_rects(d->perceive, secrets, PERCEIVE_MAX_SECRETS);
    for (int i = 0; i < n && i < FRAMES_MAX_SECRETS; i++)
        out->secrets[out->n_secrets++] =
            (struct screen_rect){secrets[i].x, secrets[i].y, secrets[i].w, secrets[i].h};
    return true;
}

void desktop_screenshot_op(struct backend_call *bc)
{
    frames_screenshot(bc, &(struct frame_source){.produce = produce,
                                                 .ud = desktop_of(bc->session),
                                                 .failure = "cannot take a screenshot"});
}
