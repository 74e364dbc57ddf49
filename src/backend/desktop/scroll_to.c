/* scroll_to: look (perceive_locate), and while the element does not show,
 * turn the wheel over the scrollable area and look again, until it shows,
 * the area stops moving (its end), or max_scrolls is spent. */
#define LOG_MODULE "desktop"
#include "backend/desktop/internal.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/typed_check.h"
#include "core/app.h"
#include "core/args.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

#define WHEEL_CLICKS 3
#define MAX_CLICKS   30
/* Each turn moves the content by about this part of the area, so nothing
 * passes by unseen between looks. */
#define TURN_SHARE 0.8
/* A toolkit redraws after a wheel turn on its next frame; one look at an
 * unchanged list is taken again after this, before calling it the end. */
#define SETTLE_MS       40
#define SETTLE_AGAIN_MS 250

struct scroll_to {
    struct backend_call *bc;
    struct perceive *perceive;
    struct perceive_located look;
    uv_timer_t timer;
    const char *direction;
    int scrolls, max_scrolls;
    int clicks; /* per turn: 3, then what moves the content TURN_SHARE of the area */
    uint64_t last_signature;
    bool looked_again; /* the list seemed still once: looked again after a pause */
    bool stop;         /* cancelled */
};

static void step(struct scroll_to *s);

static void closed(uv_handle_t *h)
{
    free(h->data);
}

/* After the answer (bc is gone then): s goes once its timer has closed. */
static void finish(struct scroll_to *s)
{
    uv_close((uv_handle_t *)&s->timer, closed);
}

static void disown(struct backend_call *bc)
{
    bc->cancel = NULL;
    bc->backend_data = NULL;
}

static void cancel(struct backend_call *bc)
{
    struct scroll_to *s = bc->backend_data;
    s->stop = true;
}

static void own_cancel(struct scroll_to *s)
{
    s->bc->backend_data = s;
    s->bc->cancel = cancel;
}

static const char *what(const struct backend_call *bc)
{
    const char *t = args_string(bc->args, "text", NULL);
    return t ? t : args_string(bc->args, "ref", args_string(bc->args, "role", "the element"));
}

static void timer_fired(uv_timer_t *t)
{
    step(t->data);
}

static void wheeled(void *ud, const char *err)
{
    struct scroll_to *s = ud;
    if (err) {
        disown(s->bc);
        backend_call_fail(s->bc, "cannot scroll: %s", err);
        finish(s);
        return;
    }
    own_cancel(s);
    s->scrolls++;
    uv_timer_start(&s->timer, timer_fired, SETTLE_MS, 0);
}

static void answer_found(struct scroll_to *s)
{
    struct perceive_located *l = &s->look;
    json_t *data = json_pack("{s:s, s:s, s:o, s:i, s:s}", "session", s->bc->session->id, "ref",
                             l->ref, "bounds",
                             json_pack("{s:i, s:i, s:i, s:i}", "x", l->bounds.x, "y", l->bounds.y,
                                       "width", l->bounds.w, "height", l->bounds.h),
                             "scrolls", s->scrolls, "direction", s->direction);
    if (l->role[0])
        json_object_set_new(data, "role", json_string(l->role));
    if (l->name[0])
        json_object_set_new(data, "name", json_string(l->name));
    backend_call_done(s->bc, data, "%s %s%s%s%s shows at %d,%d %dx%d after %d scroll%s", l->ref,
                      l->role, l->name[0] ? " \"" : "", l->name, l->name[0] ? "\"" : "",
                      l->bounds.x, l->bounds.y, l->bounds.w, l->bounds.h, s->scrolls,
                      s->scrolls == 1 ? "" : "s");
}

static void looked(struct backend_call *bc, struct perceive_located *l)
{
    struct scroll_to *s = bc->backend_data;
    /* Answered below, or owned again before going on. */
    disown(bc);
    if (l->error) {
        backend_call_fail_code(bc, l->code, "%s", l->error);
        finish(s);
        return;
    }
    if (l->found) {
        answer_found(s);
        finish(s);
        return;
    }
    if (s->stop) {
        backend_call_fail(bc, "stopped before it was done: scrolled %d times without seeing %s",
                          s->scrolls, what(bc));
        finish(s);
        return;
    }
    if (!l->have_pane) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "%s does not show, and nothing on the screen scrolls (no scroll "
                               "pane, list or table in the accessibility tree)",
                               what(bc));
        finish(s);
        return;
    }
    bool still = s->scrolls > 0 && l->signature == s->last_signature;
    if (still && !s->looked_again) {
        /* Maybe only slow to redraw: one more look after a pause. */
        s->looked_again = true;
        own_cancel(s);
        uv_timer_start(&s->timer, timer_fired, SETTLE_AGAIN_MS, 0);
        return;
    }
    if (still) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "reached the %s end of the %d,%d %dx%d scrollable area after %d "
                               "scroll%s without seeing %s",
                               strcmp(s->direction, "up") == 0     ? "top"
                               : strcmp(s->direction, "down") == 0 ? "bottom"
                                                                   : s->direction,
                               l->pane.x, l->pane.y, l->pane.w, l->pane.h, s->scrolls,
                               s->scrolls == 1 ? "" : "s", what(bc));
        finish(s);
        return;
    }
    if (s->scrolls >= s->max_scrolls) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "%s still does not show after %d scroll%s (max_scrolls)", what(bc),
                               s->scrolls, s->scrolls == 1 ? "" : "s");
        finish(s);
        return;
    }
    s->looked_again = false;
    s->last_signature = l->signature;
    log_debug("scroll_to: look %d: moved %d by %d px, %d clicks, anchor %s y %d", s->scrolls,
              l->moved, l->moved_px, s->clicks, l->anchor_path, l->anchor_y);
    /* Learn the toolkit's step from the last turn. */
    if (l->moved && l->moved_px > 0 && s->scrolls > 0) {
        double per_click = (double)l->moved_px / s->clicks;
        int want = (int)(TURN_SHARE * l->pane.h / per_click);
        s->clicks = want < 1 ? 1 : want > MAX_CLICKS ? MAX_CLICKS : want;
    }
    /* A ref seen before says which way it lies. */
    if (!json_object_get(bc->args, "direction") && l->was_y >= 0 && s->scrolls == 0)
        s->direction = l->was_y < l->pane.y ? "up" : "down";
    desktop_wheel(bc, l->pane.x + l->pane.w / 2, l->pane.y + l->pane.h / 2, s->direction, s->clicks,
                  wheeled, s);
}

static void step(struct scroll_to *s)
{
    perceive_locate(s->perceive, s->bc, &s->look, looked);
}

static void scroll_to_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    if (!json_object_get(bc->args, "text") && !json_object_get(bc->args, "ref") &&
        !json_object_get(bc->args, "role")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "scroll_to needs \"text\", \"ref\" or \"role\": what to bring "
                               "into view");
        return;
    }
    struct scroll_to *s = xcalloc(1, sizeof *s);
    s->bc = bc;
    s->perceive = d->perceive;
    s->direction = args_string(bc->args, "direction", "down");
    s->max_scrolls = (int)args_int(bc->args, "max_scrolls", 50);
    s->clicks = WHEEL_CLICKS;
    uv_timer_init(d->app->loop, &s->timer);
    s->timer.data = s;
    own_cancel(s);
    step(s);
}

/* The wheel may move the focus no more than a scroll does, but text typed
 * before it is checked first, as for scroll. */
void desktop_scroll_to_op(struct backend_call *bc)
{
    typed_check_run(desktop_of(bc->session), bc, scroll_to_op, FENCE_MOVE);
}
