/* The gate's half of struct screen_guard (backend/backend.h): for each
 * screen call, what the policy decided — the windows input must keep away
 * from, the rectangles to paint over — taken from the policy when the call
 * arrives and kept, unchanged, until it is answered, whatever reloads in
 * between. */
#pragma once
#include "backend/backend.h"

struct policy;

/* The guard for one call under p (NULL: no policy): &screen_guard_none when
 * p restricts nothing, else a new guard holding a reference to p's
 * snapshot. Loop thread. Release it with screen_guard_release. */
const struct screen_guard *screen_guard_for(struct policy *p);
/* After the call is answered; any guard screen_guard_for returned, or NULL. */
void screen_guard_release(const struct screen_guard *g);
