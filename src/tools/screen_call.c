#include "tools/screen_call.h"
#include "viewer/viewer.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/args.h"
#include "core/base64.h"
#include "core/check.h"
#include "core/xmalloc.h"
#include "mcp/server.h"
#include "session/session.h"
#include "tools/screen_guard.h"

#include <stdio.h>

#include <string.h>

/* The input calls in flight, with their session: a person's takeover stops
 * those on the session taken (screen_call_stop_input). */
struct input_call {
    struct tool_call *call;
    const struct session *s;
    struct input_call *next;
};

static struct input_call *input_calls;

void screen_call_track_input(struct tool_call *call, const struct session *s)
{
    struct input_call *ic = xcalloc(1, sizeof *ic);
    ic->call = call;
    ic->s = s;
    ic->next = input_calls;
    input_calls = ic;
}

void screen_call_untrack_input(struct tool_call *call)
{
    for (struct input_call **p = &input_calls; *p; p = &(*p)->next)
        if ((*p)->call == call) {
            struct input_call *ic = *p;
            *p = ic->next;
            free(ic);
            return;
        }
}

static bool on_session(const struct tool_call *call, void *ud)
{
    for (struct input_call *ic = input_calls; ic; ic = ic->next)
        if (ic->call == call && ic->s == ud)
            return true;
    return false;
}

int screen_call_stop_input(const struct session *s)
{
    char *why = xasprintf("a person has control of session %s (they took it in the live viewer): "
                          "this input was stopped; wait until they hand it back "
                          "(wait_for {\"control\": \"agent\"}).",
                          s->id);
    int n = mcp_abort_calls_if(on_session, (void *)s, why);
    free(why);
    return n;
}

static void finish(struct backend_call *bc, struct backend_result *r)
{
    struct tool_call *call = bc->owner;
    screen_call_untrack_input(call);
    CHECK(bc->session->in_use > 0);
    bc->session->in_use--;
    if (r->error) {
        tool_call_fail_code(call, r->code, "%s", r->error);
    } else {
        switch (r->kind) {
        case BACKEND_RESULT_IMAGE: {
            /* Base64 is ASCII: skip jansson's copy-and-check of a large string. */
            char *b64 = base64_encode(r->bytes, r->len);
            json_t *image = json_pack("{s:s, s:s}", "type", "image", "mimeType", r->mime);
            json_object_set_new(image, "data", json_stringn_nocheck(b64, strlen(b64)));
            free(b64);
            json_t *content = json_pack("[o, {s:s, s:s}]", image, "type", "text", "text", r->text);
            tool_call_done_content(call, content, r->data);
            break;
        }
        case BACKEND_RESULT_LINK: {
            /* A resource the client fetches (the screen, a recording): linked, not inlined. */
            json_t *content = json_pack("[{s:s, s:s, s:s, s:s}, {s:s, s:s}]", "type",
                                        "resource_link", "uri", r->uri, "name", r->name, "mimeType",
                                        r->mime, "type", "text", "text", r->text);
            tool_call_done_content(call, content, r->data);
            break;
        }
        case BACKEND_RESULT_TEXT:
            if (r->content)
                tool_call_done_content(call, json_incref(r->content), r->data);
            else
                tool_call_done(call, r->data, "%s", r->text ? r->text : "done");
            break;
        }
        r->data = NULL;
    }
    json_decref(r->data);
    free(r->bytes);
    free(r->text);
    free(r->error);
    free(r->uri);
    screen_guard_release(bc->guard);
    free(bc);
}

static void note(struct backend_call *bc, const char *key, json_t *value)
{
    tool_call_note(bc->owner, key, value);
}

struct screen_hold {
    struct backend_hold h; /* first */
    struct tool_call_hold *th;
};

static void release(struct backend_hold *h, json_t *notes)
{
    struct screen_hold *sh = (struct screen_hold *)h;
    tool_call_release(sh->th, notes);
    free(sh);
}

static struct backend_hold *hold(struct backend_call *bc, json_t *fallback)
{
    struct tool_call_hold *th = tool_call_hold(bc->owner, fallback);
    if (!th)
        return NULL;
    struct screen_hold *sh = xcalloc(1, sizeof *sh);
    sh->h.release = release;
    sh->th = th;
    return &sh->h;
}

static void progress(struct backend_call *bc, double done, double total, const char *message)
{
    tool_call_progress(bc->owner, done, total, message);
}

void screen_call_bind(struct backend_call *bc, struct tool_call *call,
                      const struct screen_guard *guard)
{
    bc->app = tool_call_app(call);
    /* What the policy decides now holds for the whole call, even if it
     * waits for the session or the policy is reloaded meanwhile. */
    bc->guard = guard;
    bc->owner = call;
    bc->caller = tool_call_owner(call);
    bc->note = note;
    bc->hold = hold;
    bc->progress = progress;
}

static void cancel(struct tool_call *call)
{
    struct backend_call *bc = tool_call_data(call);
    if (bc && bc->cancel)
        bc->cancel(bc);
}

struct session *screen_call_resolve(struct tool_call *call, char **err)
{
    struct app *app = tool_call_app(call);
    return session_resolve(app->sessions, tool_call_owner(call),
                           args_string(tool_call_args(call), "session", NULL), err);
}

struct session_client screen_call_client(struct tool_call *call)
{
    return (struct session_client){
        .owner = tool_call_owner(call),
        .shared = args_bool(tool_call_args(call), "shared", false),
    };
}

bool screen_call_admit(struct tool_call *call, struct session_client *who)
{
    *who = screen_call_client(call);
    char *err = NULL;
    if (session_registry_admit(tool_call_app(call)->sessions, who->owner, &err))
        return true;
    tool_call_fail_code(call, ERROR_DENIED, "%s", err);
    free(err);
    return false;
}

/* A call on its way to the backend; it may first wait for the session to
 * finish starting. */
struct screen_call {
    struct backend_call bc; /* first: the backend frees the call as a backend_call */
    backend_op op;
    const char *verb;
};

static void begin(struct session *s, void *ud)
{
    struct screen_call *sc = ud;
    struct tool_call *call = sc->bc.owner;
    /* Reached from SESSION_STARTING only at set_live or at the end of a start
     * that failed; screen_call_run has checked the rest. */
    if (!s->was_live) {
        screen_call_untrack_input(call);
        tool_call_fail_code(call, ERROR_SESSION_EXPIRED, "cannot %s: session %s did not start (%s)",
                            sc->verb, s->id, s->end_reason ? s->end_reason : "stopped");
        screen_guard_release(sc->bc.guard);
        free(sc);
        return;
    }
    tool_call_on_cancel(call, cancel);
    s->in_use++;
    sc->op(&sc->bc);
}

/* Cancelled while the session was still starting: nothing reached the backend. */
static void cancel_waiting(struct tool_call *call)
{
    struct screen_call *sc = tool_call_data(call);
    session_forget_live_waiter(sc->bc.session, sc);
    screen_call_untrack_input(call);
    tool_call_fail(call, "cancelled while session %s was starting", sc->bc.session->id);
    screen_guard_release(sc->bc.guard);
    free(sc);
}

/* The operations that send input: refused while a person holds control of
 * the session in the live viewer. */
bool screen_call_is_input(size_t off)
{
    return off == BACKEND_OP(type_text) || off == BACKEND_OP(press_key) ||
           off == BACKEND_OP(click) || off == BACKEND_OP(drag) || off == BACKEND_OP(scroll) ||
           off == BACKEND_OP(pointer) || off == BACKEND_OP(key_hold) || off == BACKEND_OP(hover);
}

void screen_call_run(struct tool_call *call, size_t op_offset, const char *verb, bool needs_live)
{
    struct app *app = tool_call_app(call);
    const json_t *args = tool_call_args(call);
    char *err = NULL;
    struct session *s = screen_call_resolve(call, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return;
    }
    if (screen_call_is_input(op_offset) && viewer_person_has_control(s)) {
        tool_call_fail_code(call, ERROR_DENIED,
                            "cannot %s: a person has control of session %s (in the live viewer); "
                            "wait until they hand it back (wait_for {\"control\": \"agent\"})",
                            verb, s->id);
        return;
    }
    backend_op op = *(const backend_op *)((const char *)s->impl + op_offset);
    if (!op) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED, "cannot %s: not supported by %s sessions",
                            verb, s->impl->kind);
        return;
    }
    /* A session that never went live has no backend to read, even ended. */
    if (s->state == SESSION_STOPPING || (s->state == SESSION_ENDED && !s->was_live) ||
        (needs_live && s->state == SESSION_ENDED)) {
        tool_call_fail_code(call, ERROR_SESSION_EXPIRED, "cannot %s: session %s %s (%s)", verb,
                            s->id, s->was_live ? "has ended" : "did not start",
                            s->end_reason ? s->end_reason : "stopped");
        return;
    }
    struct screen_call *sc = xcalloc(1, sizeof *sc);
    sc->op = op;
    sc->verb = verb;
    screen_call_bind(&sc->bc, call, screen_guard_for(app->policy));
    sc->bc.session = s;
    sc->bc.args = args;
    sc->bc.finish = finish;
    tool_call_set_data(call, sc);
    if (screen_call_is_input(op_offset))
        screen_call_track_input(call, s);
    if (s->state == SESSION_STARTING) {
        /* Sent right after desktop_start (pipelined): wait for the backend,
         * at most as long as the start itself may take. */
        tool_call_on_cancel(call, cancel_waiting);
        session_when_live(s, begin, sc);
        return;
    }
    begin(s, sc);
}
