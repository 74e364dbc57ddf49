/* wait_for {control: "agent"}: answers at once when the agent has control
 * of the session, else when the person who took it in the live viewer
 * hands it back (with their note), else a timeout error. */
#include "tools/wait_control.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "tools/screen_call.h"
#include "viewer/viewer.h"

#include <uv.h>

struct wait_control {
    struct tool_call *call;
    struct session *s;
    uv_timer_t timer;
    uint64_t t0;
};

static void closed(uv_handle_t *h)
{
    free(h->data);
}

static void end(struct wait_control *w)
{
    w->s->in_use--;
    uv_close((uv_handle_t *)&w->timer, closed);
}

static void answer(struct tool_call *call, struct session *s, uint64_t elapsed_ms, const char *note)
{
    json_t *data =
        json_pack("{s:s, s:b, s:I, s:s, s:s?}", "session", s->id, "matched", 1, "elapsed_ms",
                  (json_int_t)elapsed_ms, "control", "agent", "note", note);
    if (note)
        tool_call_done(call, data, "the agent has control of %s again; the person's note: %s",
                       s->id, note);
    else
        tool_call_done(call, data, "the agent has control of %s", s->id);
}

static void handed_back(void *ud, const char *note)
{
    struct wait_control *w = ud;
    uv_timer_stop(&w->timer);
    uint64_t elapsed = uv_now(w->timer.loop) - w->t0;
    if (w->s->state != SESSION_LIVE)
        tool_call_fail_code(w->call, ERROR_SESSION_EXPIRED,
                            "session %s ended while a person had control (%s)", w->s->id,
                            w->s->end_reason ? w->s->end_reason : "stopped");
    else
        answer(w->call, w->s, elapsed, note);
    end(w);
}

static void timed_out(uv_timer_t *t)
{
    struct wait_control *w = t->data;
    viewer_control_forget_waiter(w);
    tool_call_fail_code(w->call, ERROR_TIMEOUT,
                        "a person still has control of session %s after %llu ms (timeout_ms); "
                        "wait again, or ask them to hand it back",
                        w->s->id, (unsigned long long)(uv_now(t->loop) - w->t0));
    end(w);
}

static void cancel(struct tool_call *call)
{
    struct wait_control *w = tool_call_data(call);
    uv_timer_stop(&w->timer);
    viewer_control_forget_waiter(w);
    tool_call_fail(call, "cancelled while waiting for %s to be handed back", w->s->id);
    end(w);
}

void wait_control_run(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    static const char *const others[] = {"text", "regex", "ref",       "stable_ms",
                                         "exit", "gone",  "at_cursor", "pid"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (json_object_get(a, others[i])) {
            tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                                "\"control\" waits alone: leave out \"%s\" (wait for it in "
                                "another call)",
                                others[i]);
            return;
        }
    char *err = NULL;
    struct session *s = screen_call_resolve(call, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return;
    }
    if (!viewer_person_has_control(s)) {
        answer(call, s, 0, NULL);
        return;
    }
    struct app *app = tool_call_app(call);
    struct wait_control *w = xcalloc(1, sizeof *w);
    w->call = call;
    w->s = s;
    w->t0 = uv_now(app->loop);
    s->in_use++;
    uv_timer_init(app->loop, &w->timer);
    w->timer.data = w;
    uv_timer_start(&w->timer, timed_out, (uint64_t)args_int(a, "timeout_ms", 10000), 0);
    tool_call_set_data(call, w);
    tool_call_on_cancel(call, cancel);
    viewer_control_when_agent(s, handed_back, w);
}
