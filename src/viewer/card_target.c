/* The marker of an approval card: where the call waiting for confirmation
 * acts, so the person sees it on the screen before answering. A point (x,
 * y; the computer tool's coordinate; drag's from), in screen pixels (a
 * scale argument undone), or an element ref, whose bounds are looked up
 * (anchor.h) and sent when known. */
#include "backend/backend.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "viewer/anchor.h"
#include "viewer/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool point_of(const json_t *args, double *x, double *y)
{
    const json_t *c = json_object_get(args, "coordinate");
    const json_t *from = json_object_get(args, "from");
    if (json_is_number(json_object_get(args, "x")) && json_is_number(json_object_get(args, "y"))) {
        *x = json_number_value(json_object_get(args, "x"));
        *y = json_number_value(json_object_get(args, "y"));
    } else if (json_is_array(c) && json_is_number(json_array_get(c, 0)) &&
               json_is_number(json_array_get(c, 1))) {
        *x = json_number_value(json_array_get(c, 0));
        *y = json_number_value(json_array_get(c, 1));
    } else if (json_is_object(from) && json_is_number(json_object_get(from, "x")) &&
               json_is_number(json_object_get(from, "y"))) {
        *x = json_number_value(json_object_get(from, "x"));
        *y = json_number_value(json_object_get(from, "y"));
    } else {
        return false;
    }
    double scale = args_number(args, "scale", 1.0);
    if (scale > 0) {
        *x /= scale;
        *y /= scale;
    }
    return isfinite(*x) && isfinite(*y);
}

json_t *viewer_card_target(struct viewer *v, const json_t *args, const char *caller)
{
    char *err = NULL;
    struct session *s =
        session_resolve(v->app->sessions, caller, args_string(args, "session", NULL), &err);
    free(err);
    if (!s || s->state != SESSION_LIVE)
        return NULL;
    const char *ref = args_string(args, "ref", NULL);
    double x, y;
    if (ref && s->impl->inspect)
        return json_pack("{s:s, s:s}", "session", s->id, "ref", ref);
    if (point_of(args, &x, &y))
        return json_pack("{s:s, s:i, s:i}", "session", s->id, "x", (int)lround(x), "y",
                         (int)lround(y));
    return NULL;
}

struct look {
    char card[16];
};

static void looked(void *ud, json_t *bounds, int failed, enum error_code code, const char *err)
{
    (void)failed, (void)code, (void)err;
    struct look *l = ud;
    /* A stale ref: the card says so without a marker; the call itself
     * will fail the same way if approved. */
    viewer_card_located(l->card, json_array_get(bounds, 0));
    json_decref(bounds);
    free(l);
}

void viewer_card_target_resolve(struct viewer *v, const char *card, const json_t *target)
{
    struct session *s =
        viewer_session_find(v, json_string_value(json_object_get(target, "session")));
    const char *ref = json_string_value(json_object_get(target, "ref"));
    if (!s || !ref)
        return;
    struct look *l = xcalloc(1, sizeof *l);
    snprintf(l->card, sizeof l->card, "%s", card);
    json_t *refs = json_pack("[s]", ref);
    anchor_resolve(v->app, s, refs, false, looked, l);
    json_decref(refs);
}
