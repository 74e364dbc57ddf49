/* computer: a model's computer-use action, exactly as it emits it, run on
 * any session with pixels and answered with a fresh screenshot in the
 * model's coordinate space (docs/computer.md). Each action passes the
 * policy of the named tool that does the same (acts_as); its steps are
 * the backends' ordinary operations (computer_plan.c). */
#include "computer.schema.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/base64.h"
#include "core/xmalloc.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "tools/computer.h"
#include "tools/screen_call.h"
#include "tools/screen_guard.h"
#include "tools/tools.h"
#include "viewer/viewer.h"

#include <stddef.h>
#include <string.h>
#include <uv.h>

struct run {
    struct tool_call *call;
    struct session *s;
    const struct screen_guard *guard;
    struct computer_plan plan;
    struct computer_space sp;
    bool has_space;
    size_t next;
    char *err;
    enum error_code code;
    bool cancelled;
    struct backend_call *inflight;
    uv_timer_t timer;
    bool waiting;
    bool have_cursor;
    int cx, cy;      /* the pointer, screen pixels */
    char *main_text; /* what the action's own step said */
    uint8_t *bytes;  /* the screenshot */
    size_t len;
    const char *mime;
    json_t *shot; /* its data */
    /* Settling (docs/computer.md): the screen's changes are counted from
     * before the action's first step. */
    struct backend_change_watch watch;
    bool watching;                /* watch is added to the session's backend */
    bool watched;                 /* changes could be seen: "changed" is known */
    bool settling;                /* the settle step is in progress, on timer */
    unsigned changes;             /* seen since the action began */
    uint64_t settle_t0;           /* uv_hrtime when the settle step began */
    uint64_t deadline;            /* uv_now ms: the settle step's end at the latest */
    int settled_ms;               /* how long it took */
    struct computer_cache *cache; /* the session's last screenshot; NULL */
    char *cache_key;              /* of the screenshot being made */
};

struct step_call {
    struct backend_call bc; /* first */
    struct run *run;
    size_t step;
};

static void next_step(struct run *r);

static void on_timer_pause(uv_timer_t *t)
{
    struct run *r = t->data;
    r->waiting = false;
    next_step(r);
}

static void unwatch(struct run *r)
{
    if (!r->watching)
        return;
    r->watching = false;
    r->s->impl->watch_changes(r->s, &r->watch, false);
}

static void end_settle(struct run *r)
{
    r->settling = false;
    r->waiting = false;
    r->settled_ms = (int)((uv_hrtime() - r->settle_t0 + 500000) / 1000000);
    unwatch(r);
}

static void on_settled(uv_timer_t *t)
{
    struct run *r = t->data;
    end_settle(r);
    next_step(r);
}

/* The screenshot follows once the screen has been still for the gap, and
 * at the deadline at the latest. */
static void wait_gap(struct run *r)
{
    uint64_t now = uv_now(tool_call_app(r->call)->loop);
    uint64_t left = r->deadline > now ? r->deadline - now : 0;
    uv_timer_start(&r->timer, on_settled,
                   left < COMPUTER_SETTLE_GAP_MS ? left : COMPUTER_SETTLE_GAP_MS, 0);
}

static void screen_changed(struct backend_change_watch *w)
{
    struct run *r = (struct run *)((char *)w - offsetof(struct run, watch));
    r->changes++;
    if (r->settling)
        wait_gap(r);
}

/* Starts the settle step: false when there is nothing to wait for. */
static bool begin_settle(struct run *r, const struct computer_step *st)
{
    const struct computer_plan *p = &r->plan;
    r->settle_t0 = uv_hrtime();
    if (!r->watching) {
        /* No change can be seen: a fixed pause, as long as a screen that
         * does not change would make the action wait. */
        int ms = p->quiet_ms;
        r->settled_ms = ms;
        if (ms <= 0)
            return false;
        r->waiting = true;
        r->timer.data = r;
        uv_timer_start(&r->timer, on_timer_pause, (uint64_t)ms, 0);
        return true;
    }
    /* Changes that have come but not been read yet count (a desktop's
     * events waiting on its connection). */
    r->s->impl->watch_changes(r->s, &r->watch, true);
    if (r->changes == 0 && p->quiet_ms <= 0) {
        end_settle(r);
        return false;
    }
    uv_loop_t *loop = tool_call_app(r->call)->loop;
    uv_update_time(loop);
    r->deadline = uv_now(loop) + (uint64_t)st->wait_ms;
    r->settling = true;
    r->waiting = true;
    r->timer.data = r;
    if (r->changes)
        wait_gap(r);
    else
        uv_timer_start(&r->timer, on_settled, (uint64_t)p->quiet_ms, 0);
    return true;
}

static void freed(uv_handle_t *h)
{
    free(h->data);
}

static json_t *image_content(struct run *r)
{
    /* Base64 is ASCII: skip jansson's copy-and-check of a large string. */
    char *b64 = base64_encode(r->bytes, r->len);
    json_t *image = json_pack("{s:s, s:s}", "type", "image", "mimeType", r->mime);
    json_object_set_new(image, "data", json_stringn_nocheck(b64, strlen(b64)));
    free(b64);
    return image;
}

static void answer(struct run *r)
{
    struct computer_plan *p = &r->plan;
    if (!r->err && !r->bytes)
        r->err = xstrdup(r->cancelled ? "cancelled" : "no screenshot was made");
    if (r->err) {
        tool_call_fail_code(r->call, r->code ? r->code : ERROR_TOOL_FAILED, "computer %s: %s",
                            p->asked, r->err);
        return;
    }
    double scale = r->has_space ? r->sp.scale : json_real_value(json_object_get(r->shot, "scale"));
    json_t *o = json_pack("{s:s, s:s, s:f, s:n}", "session", r->s->id, "action", p->action, "scale",
                          scale, "cursor");
    int mx = 0, my = 0;
    if (r->have_cursor && r->has_space) {
        computer_to_model(&r->sp, r->cx, r->cy, &mx, &my);
        json_object_set_new(o, "cursor", json_pack("{s:i, s:i}", "x", mx, "y", my));
        if (p->position)
            json_object_set_new(o, "position", json_pack("{s:i, s:i}", "x", mx, "y", my));
    }
    if (r->has_space)
        json_object_set_new(
            o, "display",
            json_pack("{s:i, s:i}", "width", r->sp.model_width, "height", r->sp.model_height));
    json_object_set_new(o, "image",
                        json_pack("{s:O, s:O, s:O}", "width", json_object_get(r->shot, "width"),
                                  "height", json_object_get(r->shot, "height"), "scale",
                                  json_object_get(r->shot, "scale")));
    json_object_set_new(o, "settled_ms", json_integer(r->settled_ms));
    json_object_set_new(o, "changed", r->watched ? json_boolean(r->changes > 0) : json_null());
    json_t *redacted = json_object_get(r->shot, "redacted");
    if (redacted)
        json_object_set(o, "redacted", redacted);
    char *text = p->position
                     ? xasprintf("X=%d,Y=%d", mx, my)
                     : xasprintf("%s; screenshot %" JSON_INTEGER_FORMAT "x%" JSON_INTEGER_FORMAT
                                 " (scale %.4g)",
                                 r->main_text ? r->main_text : p->action,
                                 json_integer_value(json_object_get(r->shot, "width")),
                                 json_integer_value(json_object_get(r->shot, "height")), scale);
    json_t *content = json_pack("[o, {s:s, s:s}]", image_content(r), "type", "text", "text", text);
    free(text);
    tool_call_done_content(r->call, content, o);
}

static void finish_run(struct run *r)
{
    screen_call_untrack_input(r->call);
    unwatch(r);
    answer(r);
    r->s->in_use--;
    screen_guard_release(r->guard);
    computer_plan_finish(&r->plan);
    free(r->err);
    free(r->main_text);
    free(r->cache_key);
    free(r->bytes);
    json_decref(r->shot);
    r->timer.data = r;
    uv_close((uv_handle_t *)&r->timer, freed);
}

static void step_done(struct backend_call *bc, struct backend_result *res)
{
    struct step_call *sc = (struct step_call *)bc;
    struct run *r = sc->run;
    const struct computer_step *st = &r->plan.steps[sc->step];
    r->inflight = NULL;
    if (res->error) {
        if (!r->err) {
            r->err = res->error;
            r->code = res->code;
            res->error = NULL;
        }
    } else {
        if (st->op == BACKEND_OP(pointer)) {
            r->have_cursor = true;
            r->cx = (int)json_integer_value(json_object_get(res->data, "x"));
            r->cy = (int)json_integer_value(json_object_get(res->data, "y"));
        }
        if (st->main && res->text) {
            free(r->main_text);
            r->main_text = xstrdup(res->text);
        }
        if (st->op == BACKEND_OP(screenshot) && res->kind == BACKEND_RESULT_IMAGE) {
            if (r->cache_key)
                computer_cache_store(r->cache, r->cache_key, res->bytes, res->len, res->mime,
                                     res->data);
            r->bytes = res->bytes;
            r->len = res->len;
            r->mime = res->mime;
            r->shot = json_incref(res->data);
            res->bytes = NULL;
        }
    }
    json_decref(res->data);
    free(res->bytes);
    free(res->text);
    free(res->error);
    free(res->uri);
    free(sc);
    next_step(r);
}

static void next_step(struct run *r)
{
    while (r->next < r->plan.n) {
        size_t i = r->next++;
        struct computer_step *st = &r->plan.steps[i];
        bool stopped = r->err || r->cancelled;
        if (stopped && !st->cleanup)
            continue;
        if (st->settle) {
            if (begin_settle(r, st))
                return;
            continue;
        }
        if (!st->op) {
            r->waiting = true;
            r->timer.data = r;
            uv_timer_start(&r->timer, on_timer_pause, (uint64_t)st->wait_ms, 0);
            return;
        }
        if (st->op == BACKEND_OP(screenshot) && r->cache && !stopped) {
            char *key = computer_cache_key(st->args, r->sp.width, r->sp.height, r->guard);
            json_t *data;
            if (computer_cache_take(r->cache, key, &r->bytes, &r->len, &r->mime, &data)) {
                r->shot = data;
                free(key);
                continue;
            }
            computer_cache_begin(r->cache);
            free(r->cache_key);
            r->cache_key = key;
        }
        if (st->at_pointer) {
            json_object_set_new(st->args, "x", json_integer(r->cx));
            json_object_set_new(st->args, "y", json_integer(r->cy));
        }
        backend_op op = *(const backend_op *)((const char *)r->s->impl + st->op);
        struct step_call *sc = xcalloc(1, sizeof *sc);
        screen_call_bind(&sc->bc, r->call, r->guard);
        sc->bc.session = r->s;
        sc->bc.args = st->args;
        sc->bc.finish = step_done;
        sc->run = r;
        sc->step = i;
        r->inflight = &sc->bc;
        op(&sc->bc);
        return;
    }
    finish_run(r);
}

static void cancel(struct tool_call *call)
{
    struct run *r = tool_call_data(call);
    r->cancelled = true;
    if (r->inflight && r->inflight->cancel)
        r->inflight->cancel(r->inflight);
    if (r->waiting) {
        uv_timer_stop(&r->timer);
        if (r->settling)
            end_settle(r);
        r->waiting = false;
        next_step(r);
    }
}

/* Whether a step gives input (refused, and stopped, while a person has
 * control): asking where the pointer is does not. */
static bool acts(const struct computer_step *st)
{
    if (!st->op || !screen_call_is_input(st->op))
        return false;
    const char *action = json_string_value(json_object_get(st->args, "action"));
    return !(st->op == BACKEND_OP(pointer) && action && strcmp(action, "where") == 0);
}

void computer_run(struct tool_call *call, struct session *s, struct computer_plan *plan,
                  const struct computer_space *sp)
{
    struct run *r = xcalloc(1, sizeof *r);
    r->call = call;
    r->s = s;
    r->plan = *plan;
    if (sp) {
        r->sp = *sp;
        r->has_space = true;
    }
    r->guard = screen_guard_for(tool_call_app(call)->policy);
    uv_timer_init(tool_call_app(call)->loop, &r->timer);
    /* Before the action: a copy of the screen kept from now on is valid
     * until a change comes. */
    r->cache = computer_cache_of(s);
    /* Before the first input: a change the action causes at once is seen. */
    if (r->plan.settle_ms > 0 && s->impl->watch_changes) {
        r->watch.changed = screen_changed;
        r->watching = s->impl->watch_changes(s, &r->watch, true);
        r->watched = r->watching;
    }
    s->in_use++;
    tool_call_set_data(call, r);
    tool_call_on_cancel(call, cancel);
    for (size_t i = 0; i < r->plan.n; i++)
        if (acts(&r->plan.steps[i])) {
            screen_call_track_input(call, s);
            break;
        }
    next_step(r);
}

/* The steps every action ends with: a moment for the screen to follow,
 * where the pointer is, and the screenshot. */
static void add_tail(struct computer_plan *p, const struct backend_impl *impl,
                     const struct computer_space *sp)
{
    size_t need = p->n + 3;
    if (need > p->cap) {
        p->cap = need;
        p->steps = xrealloc(p->steps, p->cap * sizeof *p->steps);
    }
    /* An action ending with the pointer alone has just been told where it
     * is: no second round trip to ask. */
    bool told = p->n > 0 && p->steps[p->n - 1].op == BACKEND_OP(pointer);
    if (p->settle_ms > 0)
        p->steps[p->n++] = (struct computer_step){.wait_ms = p->settle_ms, .settle = true};
    if (impl->pointer && sp && !told)
        p->steps[p->n++] = (struct computer_step){.op = BACKEND_OP(pointer),
                                                  .args = json_pack("{s:s}", "action", "where")};
    json_t *shot = json_object();
    if (p->zoom) {
        json_object_set_new(shot, "region",
                            json_pack("{s:i, s:i, s:i, s:i}", "x", p->region[0], "y", p->region[1],
                                      "width", p->region[2], "height", p->region[3]));
    } else if (sp) {
        /* Exactly the model's space, whatever the bytes. */
        json_object_set_new(shot, "fit", json_false());
        if (sp->model_width < sp->width)
            json_object_set_new(shot, "max_width", json_integer(sp->model_width));
    }
    p->steps[p->n++] = (struct computer_step){.op = BACKEND_OP(screenshot), .args = shot};
}

static void start(struct tool_call *call, struct session *s)
{
    if (!s->was_live || s->state != SESSION_LIVE) {
        tool_call_fail_code(call, ERROR_SESSION_EXPIRED, "computer: session %s %s (%s)", s->id,
                            s->was_live ? "has ended" : "did not start",
                            s->end_reason ? s->end_reason : "stopped");
        return;
    }
    const json_t *args = tool_call_args(call);
    struct computer_space space, *sp = NULL;
    json_t *d = s->impl->describe ? s->impl->describe(s) : NULL;
    json_int_t w = json_integer_value(json_object_get(d, "width"));
    json_int_t h = json_integer_value(json_object_get(d, "height"));
    json_decref(d);
    if (w > 0 && h > 0) {
        computer_space_of((int)w, (int)h, &space);
        sp = &space;
    }
    struct computer_plan plan;
    int code = ERROR_INVALID_ARGUMENT;
    char *err = NULL;
    if (!computer_plan_make(args, sp, s->impl, &plan, &code, &err)) {
        tool_call_fail_code(call, (enum error_code)code, "computer: %s", err);
        free(err);
        return;
    }
    tool_call_note(call, "action", json_string(plan.action));
    for (size_t i = 0; i < plan.n; i++)
        if (acts(&plan.steps[i]) && viewer_person_has_control(s)) {
            tool_call_fail_code(call, ERROR_DENIED,
                                "computer %s: a person has control of session %s (in the live "
                                "viewer); wait until they hand it back (wait_for {\"control\": "
                                "\"agent\"})",
                                plan.asked, s->id);
            computer_plan_finish(&plan);
            return;
        }
    add_tail(&plan, s->impl, sp);
    computer_run(call, s, &plan, sp);
}

static void when_live(struct session *s, void *ud)
{
    start(ud, s);
}

static void cancel_waiting(struct tool_call *call)
{
    struct session *s = tool_call_data(call);
    session_forget_live_waiter(s, call);
    tool_call_fail(call, "cancelled while session %s was starting", s->id);
}

static void handle(struct tool_call *call)
{
    char *err = NULL;
    struct session *s = screen_call_resolve(call, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return;
    }
    if (s->state == SESSION_STARTING) {
        tool_call_set_data(call, s);
        tool_call_on_cancel(call, cancel_waiting);
        session_when_live(s, when_live, call);
        return;
    }
    start(call, s);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *action = json_object_get(args, "action");
    const char *name = json_string_value(action ? action : json_object_get(args, "type"));
    if (!name)
        return false;
    const json_t *text = json_object_get(args, "text");
    if (!strcmp(name, "type") && json_is_string(text)) {
        strbuf_puts(q, "type ");
        confirm_quote_json(q, text, CONFIRM_QUOTE_MAX);
    } else if ((!strcmp(name, "key") || !strcmp(name, "hold_key")) && json_is_string(text)) {
        strbuf_puts(q, !strcmp(name, "key") ? "press " : "hold ");
        confirm_quote_json(q, text, 64);
    } else {
        confirm_quote(q, name, strlen(name), 64);
        const json_t *at = json_object_get(args, "coordinate");
        if (at) {
            strbuf_puts(q, " at ");
            confirm_quote_value(q, at);
        } else if (json_object_get(args, "x")) {
            strbuf_printf(q, " at %g,%g", json_number_value(json_object_get(args, "x")),
                          json_number_value(json_object_get(args, "y")));
        } else if (json_object_get(args, "keys")) {
            strbuf_puts(q, " ");
            confirm_quote_value(q, json_object_get(args, "keys"));
        }
    }
    confirm_session_phrase(q, args, "in");
    return true;
}

const struct tool tool_computer = {
    .name = "computer",
    .group = "computer_use",
    .title = "Computer use",
    .description = "Runs one action of a model's computer-use tool as the model emits it "
                   "(Anthropic computer_20251124 action, or OpenAI type) and answers with a fresh "
                   "screenshot, in the model's coordinates. Each action is allowed and confirmed "
                   "as the glovebox tool doing the same.",
    .input_schema = tool_computer_input_schema,
    .output_schema = tool_computer_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
    .acts_as = computer_policy_as,
};
