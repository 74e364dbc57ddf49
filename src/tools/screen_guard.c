/* Guards from the policy's screen snapshot (policy/screen.h). Cheap per
 * call: the snapshot is made once per policy; a call takes a reference and,
 * only when the policy has rules for screens, one allocation. */
#include "tools/screen_guard.h"

#include "core/xmalloc.h"
#include "policy/screen.h"

#include <stdlib.h>

struct held_guard {
    struct screen_guard g; /* first: what the backend sees */
    struct policy_screen *snapshot;
    struct screen_rect rects[]; /* g.redact */
};

/* On the backend's input thread: the snapshot is immutable and held. */
static bool input_allowed(const struct screen_guard *g, const char *title, const char *app,
                          char **why)
{
    return policy_screen_input_allowed(g->data, title, app, why);
}

const struct screen_guard *screen_guard_for(struct policy *p)
{
    struct policy_screen *s = policy_screen_get(p);
    if (!s)
        return &screen_guard_none;
    size_t n;
    const struct policy_rect *r = policy_screen_redact(s, &n);
    struct held_guard *h = xcalloc(1, sizeof *h + n * sizeof h->rects[0]);
    for (size_t i = 0; i < n; i++)
        h->rects[i] = (struct screen_rect){r[i].x, r[i].y, r[i].width, r[i].height};
    h->snapshot = s;
    h->g.redact = n ? h->rects : NULL;
    h->g.n_redact = n;
    h->g.input_allowed = policy_screen_blocks_input(s) ? input_allowed : NULL;
    h->g.data = s;
    return &h->g;
}

void screen_guard_release(const struct screen_guard *g)
{
    if (!g || g == &screen_guard_none)
        return;
    struct held_guard *h = (struct held_guard *)g;
    policy_screen_unref(h->snapshot);
    free(h);
}
