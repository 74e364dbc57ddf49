/* The pointer a frame source shows apart from its frames (a VNC server's
 * own cursor, frame_source.cursor_apart), for the pages that watch it:
 * its image (PNG) when it changes, its position when it moves. */
#pragma once
#include "backend/frames.h"

#include <jansson.h>
#include <stdbool.h>

struct viewer_cursor {
    struct frame_cursor last; /* the last one seen; argb NULL: none shown */
    json_t *state;            /* the worker's copy of the whole state; NULL: none yet */
};

/* Worker (the feed's job): c (its argb taken; NULL: no pointer to show)
 * compared with the last: the message for the pages, or NULL when nothing
 * changed; *state then becomes the whole state for pages that join (a new
 * reference the caller owns; untouched when nothing changed). */
json_t *viewer_cursor_update(struct viewer_cursor *vc, const char *session, struct frame_cursor *c,
                             json_t **state);
/* Frees what vc holds. */
void viewer_cursor_finish(struct viewer_cursor *vc);
