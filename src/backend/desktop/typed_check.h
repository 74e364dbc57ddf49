/* Whether text typed without a ref went into a password field, found out
 * after it was typed and off the call's path. type_text answers as soon as
 * the keys are sent; the call's audit record stays open (backend_call_hold)
 * while a thread of the desktop's own asks accessibility what has the focus,
 * and is completed with "redacted" when it is a password field or when that
 * cannot be told.
 *
 * The answer must describe the focus the keys went to. Typing plain text
 * does not move the focus, so only something that may move it could make
 * the check see another element: every such input (clicks, drags, scrolls,
 * key presses, typing with a ref, a window or control characters, window
 * operations) waits here until the checks of the text typed before it are
 * done; and plain typing waits for input that moves the focus outside the
 * input thread (an element pressed or focused through accessibility) to be
 * answered. Calls keep their order: once one waits, those after it wait too.
 * On the loop thread. */
#pragma once
#include "backend/backend.h"

#include <stdbool.h>

struct desktop;

enum typed_fence {
    /* Plain text: never moves the focus. */
    FENCE_TYPE,
    /* Moves the focus, on the input thread in the order of the queue. */
    FENCE_MOVE,
    /* Moves the focus outside the input thread (accessibility actions):
     * typing after it waits for its answer. */
    FENCE_MOVE_ELSEWHERE,
};

/* Runs op(bc) now or, to keep the guarantee above, later. */
void typed_check_run(struct desktop *d, struct backend_call *bc, backend_op op,
                     enum typed_fence kind);
/* A type_text job was queued on the input thread. */
void typed_check_typing(struct desktop *d);
/* That job is done (answered or about to be): h (may be NULL: nothing to
 * find out) is the call's audit record, released once the focus was asked
 * about — a password field or no answer: with {"redacted": true}. settle_ms
 * as perceive_focus_is_secret's. */
void typed_check_typed(struct desktop *d, struct backend_hold *h, int settle_ms);
/* The session ended: waiting calls fail, unchecked records are released as
 * redacted; a check under way finishes. */
void typed_check_close(struct desktop *d);
/* Before perception goes (free_desktop): waits for a check under way, then
 * releases everything left as redacted. */
void typed_check_destroy(struct desktop *d);
