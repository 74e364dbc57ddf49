/* Frames of a desktop for the live viewer (src/viewer/): an X connection
 * of the viewer's own (as recordings have), so a grab in flight on the
 * worker pool never races the desktop's teardown. The viewer shows a person
 * the screen as it is; it is never given to the agent. */
#include "backend/desktop/internal.h"
#include "backend/desktop/xgrab.h"
#include "backend/frames.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    return xgrab_screen(ud, &out->frame, err);
}

static void release(void *ud)
{
    xgrab_destroy(ud);
}

bool desktop_view_frames(struct session *s, struct frame_source *out, char **err)
{
    (void)err;
    struct desktop *d = desktop_of(s);
    *out = (struct frame_source){.produce = produce,
                                 .release = release,
                                 .ud = xgrab_create(d->display),
                                 .failure = "cannot read the desktop"};
    return true;
}
