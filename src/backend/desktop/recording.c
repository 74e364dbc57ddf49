/* record_start/record_stop on a desktop, through the frame recorder every
 * kind shares (backend/frame_recording.h). Samples are grabbed through an X
 * connection of the recording's own, so a grab in flight on the worker pool
 * never races the desktop's teardown; the password fields known when a
 * sample is asked for are handed over as the frame's secrets and painted
 * over with the policy's areas, as in screenshots. */
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/xgrab.h"
#include "backend/frame_recording.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>

/* Outlives the desktop while its last sample is in flight: the recorder's
 * slot lives here, not in struct desktop. */
struct desktop_rec {
    struct frame_recording_slot slot;
    struct xgrab *grab;
    struct desktop *d; /* NULL once the session has ended */
    /* The sample in flight's secrets (one sample at a time). */
    struct perceive_rect secrets[PERCEIVE_MAX_SECRETS];
    int n_secrets;
};

/* Worker pool. */
static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    struct desktop_rec *dr = ud;
    if (!xgrab_screen(dr->grab, &out->frame, err))
        return false;
    for (int i = 0; i < dr->n_secrets && out->n_secrets < FRAMES_MAX_SECRETS; i++) {
        const struct perceive_rect *r = &dr->secrets[i];
        out->secrets[out->n_secrets++] = (struct screen_rect){r->x, r->y, r->w, r->h};
    }
    return true;
}

static void sample(void *ud, struct frame_recording *fr)
{
    struct desktop_rec *dr = ud;
    dr->n_secrets = dr->d && dr->d->perceive
                        ? perceive_secret_rects(dr->d->perceive, dr->secrets, PERCEIVE_MAX_SECRETS)
                        : 0;
    frame_recording_sampled(fr, &(struct frame_source){.produce = produce, .ud = dr});
}

static const struct frame_recording_kind recording = {
    .kind = "desktop", .default_fps = 5, .max_fps = 30, .sample = sample};

void desktop_record_start_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    if (!d->rec) {
        d->rec = xcalloc(1, sizeof *d->rec);
        d->rec->grab = xgrab_create(d->display);
        d->rec->d = d;
    }
    frame_recording_start(&d->rec->slot, bc, &recording, d->rec);
}

void desktop_record_stop_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    if (d->rec) {
        frame_recording_stop(&d->rec->slot, bc);
    } else if (d->last_recording[0]) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "%s is not being recorded; its recording %s was written when the "
                               "session ended (glovebox://recording/%s)",
                               bc->session->id, d->last_recording, d->last_recording);
    } else {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "%s is not being recorded; call record_start first",
                               bc->session->id);
    }
}

static void idle(void *ud)
{
    struct desktop_rec *dr = ud;
    xgrab_destroy(dr->grab);
    free(dr);
}

void desktop_record_end(struct desktop *d)
{
    struct desktop_rec *dr = d->rec;
    if (!dr)
        return;
    const char *id = frame_recording_active_id(&dr->slot);
    if (id)
        snprintf(d->last_recording, sizeof d->last_recording, "%s", id);
    d->rec = NULL;
    dr->d = NULL;
    frame_recording_end(&dr->slot, idle, dr);
}
