/* record_start/record_stop for every kind whose screenshots go through the
 * frame pipeline (frames.h): a timer samples the screen at fps through the
 * kind's frame_source — the same produce that makes its screenshots — on
 * the worker pool, paints over what screenshots paint over (the policy's
 * areas, copied at record_start, and the frame's secrets), and offers the
 * frame to the shared recorder (record/recorder.h), which keeps it only if
 * it changed. A sample still in flight when the next is due is skipped, so
 * a slow screen lowers the rate instead of queueing. Terminals have
 * recordings of their own (cells, with their own formats). */
#pragma once
#include "backend/frames.h"

#include <stdbool.h>

struct frame_recording;

/* A kind's way to sample its screen, on the loop: it answers exactly once,
 * now or later, with frame_recording_sampled (a source whose produce runs
 * on the worker pool) or frame_recording_failed. */
struct frame_recording_kind {
    const char *kind; /* "desktop", "vnc", "webdriver", "android" (messages) */
    int default_fps, max_fps;
    const char *fps_note; /* why max_fps, after it in the error (" (…)"), or NULL */
    void (*sample)(void *ud, struct frame_recording *fr);
};

/* What a session keeps: the recording under way (NULL: none) and the id
 * of the last one written when the session ended. */
struct frame_recording_slot {
    struct frame_recording *active;
    struct frame_recording *draining; /* stopped, its last sample in flight */
    char last[64];
};

void frame_recording_sampled(struct frame_recording *fr, const struct frame_source *src);
void frame_recording_failed(struct frame_recording *fr, const char *err);

/* record_start: answers bc (options from its arguments); ud is given to
 * kind->sample. */
void frame_recording_start(struct frame_recording_slot *slot, struct backend_call *bc,
                           const struct frame_recording_kind *kind, void *ud);
/* record_stop: one last sample (after the one in flight, if any), the file
 * written, bc answered with a link. */
void frame_recording_stop(struct frame_recording_slot *slot, struct backend_call *bc);
/* The session is ending: the recording is written and indexed; idle(ud)
 * is called (now, or once a sample in flight is back) when nothing of the
 * recording uses the kind's state any more. No recording: idle at once. */
void frame_recording_end(struct frame_recording_slot *slot, void (*idle)(void *ud), void *ud);
/* The id of the recording under way in slot, or NULL. */
const char *frame_recording_active_id(const struct frame_recording_slot *slot);
