/* Frames of a desktop for the live viewer (src/viewer/): an X connection
 * of the viewer's own (as recordings have), so a grab in flight on the
 * worker pool never races the desktop's teardown. The viewer shows a person
 * the screen as it is; it is never given to the agent. Its monitors (RandR)
 * are asked through one more connection of its own, opened at first use. */
#include "backend/desktop/internal.h"
#include "backend/desktop/monitors.h"
#include "backend/desktop/xgrab.h"
#include "backend/frames.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <stdlib.h>

struct view_source {
    struct xgrab *grab;
    char *display;
    xcb_connection_t *c; /* for monitors; NULL until asked */
    xcb_window_t root;
};

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    struct view_source *v = ud;
    return xgrab_screen(v->grab, &out->frame, err);
}

static json_t *monitors(void *ud, char **err)
{
    struct view_source *v = ud;
    if (v->c && xcb_connection_has_error(v->c)) {
        xcb_disconnect(v->c);
        v->c = NULL;
    }
    if (!v->c) {
        int screen = 0;
        v->c = xcb_connect(v->display, &screen);
        if (xcb_connection_has_error(v->c)) {
            xcb_disconnect(v->c);
            v->c = NULL;
            *err = xasprintf("cannot connect to X display %s", v->display);
            return NULL;
        }
        xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(v->c));
        for (int i = 0; i < screen && it.rem; i++)
            xcb_screen_next(&it);
        v->root = it.data->root;
    }
    return desktop_monitors(v->c, v->root, err);
}

static void release(void *ud)
{
    struct view_source *v = ud;
    xgrab_destroy(v->grab);
    if (v->c)
        xcb_disconnect(v->c);
    free(v->display);
    free(v);
}

bool desktop_view_frames(struct session *s, struct frame_source *out, char **err)
{
    (void)err;
    struct desktop *d = desktop_of(s);
    struct view_source *v = xcalloc(1, sizeof *v);
    v->grab = xgrab_create(d->display);
    v->display = xstrdup(d->display);
    *out = (struct frame_source){.produce = produce,
                                 .release = release,
                                 .monitors = monitors,
                                 .ud = v,
                                 .failure = "cannot read the desktop"};
    return true;
}
