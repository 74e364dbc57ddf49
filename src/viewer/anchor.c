/* Refs to bounds (anchor.h): one inspect call at a time on the session,
 * made like a tool's but owned here; no policy gate (it only reads where an
 * element is, for the person's eyes) and nothing in the audit log. */
#include "viewer/anchor.h"

#include "backend/backend.h"
#include "core/check.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>

struct anchor {
    struct backend_call bc; /* reused for each ref */
    json_t *refs, *bounds, *args;
    size_t next;
    bool partial;
    anchor_fn done;
    void *ud;
};

static void finish_all(struct anchor *a, int failed, enum error_code code, const char *err)
{
    json_t *bounds = failed < 0 ? json_incref(a->bounds) : NULL;
    anchor_fn done = a->done;
    void *ud = a->ud;
    json_decref(a->refs);
    json_decref(a->bounds);
    json_decref(a->args);
    free(a);
    done(ud, bounds, failed, code, err);
}

static void step(struct anchor *a);

static void answered(struct backend_call *bc, struct backend_result *r)
{
    struct anchor *a = (struct anchor *)bc;
    CHECK(bc->session->in_use > 0);
    bc->session->in_use--;
    int index = (int)a->next;
    const char *ref = json_string_value(json_array_get(a->refs, a->next));
    json_t *b = r->error ? NULL : json_object_get(r->data, "bounds");
    if (a->partial) {
        json_array_append(a->bounds, json_is_object(b) ? b : json_null());
        a->next++;
        step(a);
    } else if (r->error)
        finish_all(a, index, r->code, r->error);
    else if (!json_is_object(b)) {
        char *why = xasprintf("%s has no position on the screen (not showing)", ref);
        finish_all(a, index, ERROR_NOT_FOUND, why);
        free(why);
    } else {
        json_array_append(a->bounds, b);
        a->next++;
        step(a);
    }
    json_decref(r->data);
    free(r->bytes);
    free(r->text);
    free(r->error);
    free(r->uri);
}

static void step(struct anchor *a)
{
    if (a->next >= json_array_size(a->refs)) {
        finish_all(a, -1, ERROR_TOOL_FAILED, NULL);
        return;
    }
    struct session *s = a->bc.session;
    if (s->state != SESSION_LIVE) {
        char *why = xasprintf("session %s is not live", s->id);
        finish_all(a, (int)a->next, ERROR_SESSION_EXPIRED, why);
        free(why);
        return;
    }
    if (!s->impl->inspect) {
        char *why =
            xasprintf("refs name elements of desktops; %s sessions have none", s->impl->kind);
        finish_all(a, (int)a->next, ERROR_NOT_SUPPORTED, why);
        free(why);
        return;
    }
    json_decref(a->args);
    a->args = json_pack("{s:s, s:O}", "session", s->id, "ref", json_array_get(a->refs, a->next));
    a->bc.args = a->args;
    a->bc.cancel = NULL;
    a->bc.backend_data = NULL;
    s->in_use++;
    s->impl->inspect(&a->bc);
}

void anchor_resolve(struct app *app, struct session *s, const json_t *refs, bool partial,
                    anchor_fn done, void *ud)
{
    struct anchor *a = xcalloc(1, sizeof *a);
    a->refs = json_deep_copy(refs);
    a->bounds = json_array();
    a->partial = partial;
    a->done = done;
    a->ud = ud;
    a->bc.session = s;
    a->bc.app = app;
    a->bc.guard = &screen_guard_none;
    a->bc.owner = a;
    a->bc.finish = answered;
    step(a);
}
