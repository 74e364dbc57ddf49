/* wait_for on desktops: poll the accessibility tree (OCR when it has no
 * answer) until text or an element appears or goes, or time runs out. Each
 * check is a worker job; between checks a timer, so nothing blocks. */
#include "backend/desktop/perceive/internal.h"

#include "backend/backend.h"
#include "backend/desktop/perceive/tree.h"
#include "core/app.h"
#include "core/args.h"
#include "core/pattern.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

#define POLL_MS        250
#define STABLE_POLL_MS 50 /* stable_ms: a screen capture and a hash, ~5 ms */
#define OCR_EVERY      4  /* with an accessible tree, OCR only every Nth check: it costs ~0.3 s */
/* Less time left than this: no new OCR pass (it could read nothing useful). */
#define OCR_MIN_MS 100
/* The first check always looks, with at least this long (timeout_ms 0 asks
 * "is it there now?"). */
#define FIRST_LOOK_MS 1000

struct waiter {
    struct perceive *p;
    struct backend_call *bc;
    uv_timer_t timer;
    uint64_t start_ms;
    uint64_t until_hr_ms; /* uv_hrtime in ms when timeout_ms is up: checks end by then */
    int timeout_ms;
    bool gone, cancelled, timer_running;
    struct pattern *re; /* the regex, or NULL; matched on the worker */
    char *re_error;     /* the regex went over its match limit */
    const char *text;
    char *ref_bus, *ref_path; /* the element a ref named, once resolved */
    int checks;
    /* stable_ms: the screen's hash, and since when it has not changed. */
    int stable_ms;
    bool have_hash, captured;
    uint64_t hash, new_hash, since_ms;
    /* The last check's verdict. */
    bool present;
    bool unsure; /* it could not look everywhere: not being seen proves nothing */
    char *line;
    const char *source;
};

static bool text_hit(struct waiter *w, const char *s)
{
    if (w->re) {
        if (w->re_error)
            return false;
        return pattern_match(w->re, s, strlen(s), 0, &w->re_error) == 1;
    }
    char role[] = "";
    struct atspi_node n = {.name = (char *)s, .role = role};
    return tree_matches(&n, w->text, false, NULL);
}

/* FNV-1a over 64-bit words: a changed pixel changes it. */
static uint64_t frame_hash(const struct frame *f)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t y = 0; y < f->height; y++) {
        const uint64_t *row = (const uint64_t *)(f->rgba + (size_t)y * f->stride);
        for (uint32_t x = 0; x < f->width / 2; x++)
            h = (h ^ row[x]) * 0x100000001b3ull;
        if (f->width % 2)
            h = (h ^ ((const uint32_t *)row)[f->width - 1]) * 0x100000001b3ull;
    }
    return h;
}

static void stable_run(struct waiter *w, struct job *j)
{
    struct frame f;
    char *err = NULL;
    w->captured = w->p->host.capture(w->p->host.ud, &f, &err);
    if (!w->captured) {
        job_fail_code(j, ERROR_DEVICE_UNAVAILABLE,
                      "cannot read the screen to see whether it is still: %s", err);
        free(err);
        return;
    }
    w->new_hash = frame_hash(&f);
    frame_finish(&f);
}

/* The monotonic clock in ms, readable from the worker (uv_now is the
 * loop's). */
static uint64_t hr_now_ms(void)
{
    return uv_hrtime() / 1000000;
}

/* When this check must be done by: when timeout_ms is up, or for the first
 * check at least FIRST_LOOK_MS from now. */
static uint64_t check_until(const struct waiter *w)
{
    uint64_t first = hr_now_ms() + FIRST_LOOK_MS;
    return w->checks == 0 && first > w->until_hr_ms ? first : w->until_hr_ms;
}

static int time_left_ms(uint64_t until)
{
    uint64_t now = hr_now_ms();
    return now >= until ? 0 : (int)(until - now);
}

static void look(struct waiter *w, struct job *j);

static void check_run(struct job *j)
{
    struct waiter *w = j->ud;
    look(w, j);
    if (w->re_error) {
        w->present = false;
        job_fail(j, "%s", w->re_error);
    }
}

static void look(struct waiter *w, struct job *j)
{
    if (w->stable_ms) {
        stable_run(w, j);
        return;
    }
    w->present = false;
    w->unsure = true;
    free(w->line);
    w->line = NULL;
    if (!w->ref_bus && args_string(j->args, "ref", NULL)) {
        const struct atspi_node *n = perceive_ref(j, args_string(j->args, "ref", NULL));
        if (!n)
            return;
        w->ref_bus = xstrdup(n->bus_name);
        w->ref_path = xstrdup(n->path);
    }
    struct atspi_walk_opts o = perceive_walk_opts(j->args);
    /* A check never outlasts the wait: an application slow to answer or an
     * OCR pass must not hold the answer past timeout_ms. */
    uint64_t until = check_until(w);
    int left = time_left_ms(until);
    if (left == 0)
        return;
    if (left < o.deadline_ms)
        o.deadline_ms = left;
    struct atspi_tree t;
    bool have_tree = perceive_walk(j, &o, &t);
    free(j->error); /* an unanswering bus is a reason to use OCR, not to stop */
    j->error = NULL;
    for (int i = 0; have_tree && i < t.count && !w->present; i++) {
        const struct atspi_node *n = &t.nodes[i];
        if (w->ref_bus)
            w->present = strcmp(n->bus_name, w->ref_bus) == 0 && strcmp(n->path, w->ref_path) == 0;
        else
            w->present = text_hit(w, n->name) || (n->value && text_hit(w, n->value));
        if (w->present)
            w->line = xstrdup(n->value && text_hit(w, n->value) ? n->value : n->name);
    }
    bool empty = !have_tree || t.count == 0;
    /* A tree without the answers of an application that is slow or gone
     * cannot say that something is not there. */
    w->unsure = !have_tree || t.unanswered;
    if (have_tree)
        atspi_tree_finish(&t);
    w->source = "accessibility";
    if (w->present || w->ref_bus)
        return;
    /* Accessibility first. Pixels when there is no tree, and now and then
     * when looking for text to appear (an application without one). */
    if (!empty && (w->gone || w->checks % OCR_EVERY != 0))
        return;
    left = time_left_ms(until);
    if (left < OCR_MIN_MS)
        return;
    struct ocr_result r;
    if (!perceive_ocr(j, 0, 0, 0, 0, args_string(j->args, "lang", "eng"), left, &r)) {
        free(j->error);
        j->error = NULL;
        return;
    }
    w->source = "ocr";
    /* A pass cut short by the deadline may have missed what it looks for. */
    w->unsure = time_left_ms(until) == 0;
    for (const char *p = r.text; *p && !w->present;) {
        size_t n = strcspn(p, "\n");
        char *line = xasprintf("%.*s", (int)n, p);
        if (text_hit(w, line)) {
            w->present = true;
            w->line = line;
        } else {
            free(line);
        }
        p += n + (p[n] == '\n');
    }
    ocr_result_finish(&r);
}

static void waiter_free(uv_handle_t *h)
{
    struct waiter *w = h->data;
    pattern_destroy(w->re);
    free(w->re_error);
    free(w->ref_bus);
    free(w->ref_path);
    free(w->line);
    free(w);
}

static void answer(struct waiter *w, bool matched, const char *reason)
{
    struct backend_call *bc = w->bc;
    bc->cancel = NULL;
    backend_call_done_wait(bc, matched, uv_now(bc->app->loop) - w->start_ms, w->source, w->line,
                           reason);
    uv_close((uv_handle_t *)&w->timer, waiter_free);
}

static void check(uv_timer_t *t);

static void checked(struct job *j)
{
    struct waiter *w = j->ud;
    char *error = j->error;
    enum error_code code = j->code;
    free(j->text);
    free(j);
    if (error) { /* a ref that is stale or unknown: no point waiting */
        w->bc->cancel = NULL;
        backend_call_fail_code(w->bc, code, "%s", error);
        free(error);
        uv_close((uv_handle_t *)&w->timer, waiter_free);
        return;
    }
    w->checks++;
    uint64_t now = uv_now(w->bc->app->loop);
    uint64_t elapsed = now - w->start_ms;
    if (w->stable_ms) {
        if (!w->have_hash || w->new_hash != w->hash) {
            w->hash = w->new_hash;
            w->since_ms = now;
            w->have_hash = true;
        }
        w->present = now - w->since_ms >= (uint64_t)w->stable_ms;
    }
    /* Gone only when the check could see everything there was to see. */
    if (w->present ? !w->gone : w->gone && !w->unsure)
        answer(w, true, NULL);
    else if (w->cancelled)
        answer(w, false, "cancelled");
    else if (w->bc->session->state != SESSION_LIVE)
        answer(w, false, "the session ended");
    else if (elapsed >= (uint64_t)w->timeout_ms)
        answer(w, false, "timeout");
    else {
        uint64_t left = (uint64_t)w->timeout_ms - elapsed;
        w->timer_running = true;
        uint64_t poll = w->stable_ms ? STABLE_POLL_MS : POLL_MS;
        uv_timer_start(&w->timer, check, left < poll ? left : poll, 0);
    }
}

static void check(uv_timer_t *t)
{
    struct waiter *w = t->data;
    w->timer_running = false;
    struct job *j = job_new(w->p, w->bc, check_run);
    j->ud = w;
    j->after = checked;
    job_queue(j);
}

static void cancel(struct backend_call *bc)
{
    struct waiter *w = bc->backend_data;
    w->cancelled = true;
    if (w->timer_running) {
        uv_timer_stop(&w->timer);
        answer(w, false, "cancelled");
    }
}

void perceive_wait_for(struct perceive *p, struct backend_call *bc)
{
    const json_t *a = bc->args;
    const char *regex = args_string(a, "regex", NULL);
    const char *text = args_string(a, "text", NULL);
    int stable_ms = (int)args_int(a, "stable_ms", 0);
    if (!regex && !text && !args_string(a, "ref", NULL) && !stable_ms) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "wait_for needs \"text\", \"regex\", \"ref\" or \"stable_ms\"");
        return;
    }
    if (stable_ms && (regex || text || args_string(a, "ref", NULL))) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "\"stable_ms\" waits for the screen to be still; give it alone, "
                               "not with \"text\", \"regex\" or \"ref\"");
        return;
    }
    struct waiter *w = xcalloc(1, sizeof *w);
    if (regex) {
        /* Bounded in length and compiled size: microseconds on the loop. */
        char *err = NULL;
        w->re = pattern_compile("regex", regex, true, &err);
        if (!w->re) {
            backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
            free(err);
            free(w);
            return;
        }
    }
    w->p = p;
    w->bc = bc;
    w->text = text;
    w->gone = args_bool(a, "gone", false) && !stable_ms;
    w->stable_ms = stable_ms;
    w->timeout_ms = (int)args_int(a, "timeout_ms", 10000);
    w->start_ms = uv_now(bc->app->loop);
    w->until_hr_ms = hr_now_ms() + (uint64_t)w->timeout_ms;
    w->source = stable_ms ? "pixels" : "accessibility";
    uv_timer_init(bc->app->loop, &w->timer);
    w->timer.data = w;
    bc->cancel = cancel;
    bc->backend_data = w;
    check(&w->timer);
}
