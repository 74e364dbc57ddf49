/* How many pixels screenshots may have: one image, and all images being
 * rendered, scaled and encoded at once across the server (RGBA: 4 bytes a
 * pixel), so that no client can make the server allocate without bound. */
#pragma once
#include <stdint.h>

/* Largest image a screenshot renders (16 Mpx, e.g. 4096×4096). */
#define IMAGE_MAX_PIXELS (16u * 1024 * 1024)
/* Pixels in flight at once, all sessions together (256 MiB of RGBA). */
#define IMAGE_BUDGET_PIXELS (64u * 1024 * 1024)

/* Takes pixels (at most IMAGE_MAX_PIXELS) from the server's budget, waiting
 * until others give theirs back. Call from the worker pool, never the loop. */
void image_budget_acquire(uint64_t pixels);
/* Gives back what image_budget_acquire took. */
void image_budget_release(uint64_t pixels);
