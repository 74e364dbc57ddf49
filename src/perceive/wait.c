/* wait_for on desktops: poll the accessibility tree (OCR when it has no
 * answer) until text or an element appears or goes, or time runs out. Each
 * check is a worker job; between checks a timer, so nothing blocks. */
#include "perceive/internal.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "perceive/tree.h"
#include "session/session.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define POLL_MS   250
#define OCR_EVERY 4 /* with an accessible tree, OCR only every Nth check: it costs ~0.3 s */

struct waiter {
    struct perceive *p;
    struct backend_call *bc;
    uv_timer_t timer;
    uint64_t start_ms;
    int timeout_ms;
    bool gone, cancelled, has_regex, timer_running;
    regex_t re;
    const char *text;
    char *ref_bus, *ref_path; /* the element a ref named, once resolved */
    int checks;
    /* The last check's verdict. */
    bool present;
    char *line;
    const char *source;
};

static bool text_hit(struct waiter *w, const char *s)
{
    if (w->has_regex)
        return regexec(&w->re, s, 0, NULL, 0) == 0;
    char role[] = "";
    struct atspi_node n = {.name = (char *)s, .role = role};
    return tree_matches(&n, w->text, false, NULL);
}

static void check_run(struct job *j)
{
    struct waiter *w = j->ud;
    w->present = false;
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
    if (have_tree)
        atspi_tree_finish(&t);
    w->source = "accessibility";
    if (w->present || w->ref_bus)
        return;
    /* Accessibility first. Pixels when there is no tree, and now and then
     * when looking for text to appear (an application without one). */
    if (!empty && (w->gone || w->checks % OCR_EVERY != 0))
        return;
    struct ocr_result r;
    if (!perceive_ocr(j, 0, 0, 0, 0, args_string(j->args, "lang", "eng"), &r)) {
        free(j->error);
        j->error = NULL;
        return;
    }
    w->source = "ocr";
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
    if (w->has_regex)
        regfree(&w->re);
    free(w->ref_bus);
    free(w->ref_path);
    free(w->line);
    free(w);
}

static void answer(struct waiter *w, bool matched, const char *reason)
{
    struct backend_call *bc = w->bc;
    uint64_t elapsed = uv_now(bc->app->loop) - w->start_ms;
    json_t *data = json_pack("{s:s, s:b, s:I, s:s}", "session", bc->session->id, "matched", matched,
                             "elapsed_ms", (json_int_t)elapsed, "source", w->source);
    json_object_set_new(data, "line", w->line ? json_string(w->line) : json_null());
    if (reason)
        json_object_set_new(data, "reason", json_string(reason));
    bc->cancel = NULL;
    backend_call_done(bc, data, "%s after %llu ms%s%s", matched ? "matched" : "not matched",
                      (unsigned long long)elapsed, reason ? ": " : "", reason ? reason : "");
    uv_close((uv_handle_t *)&w->timer, waiter_free);
}

static void check(uv_timer_t *t);

static void checked(struct job *j)
{
    struct waiter *w = j->ud;
    char *error = j->error;
    free(j->text);
    free(j);
    if (error) { /* a ref that is stale or unknown: no point waiting */
        w->bc->cancel = NULL;
        backend_call_fail(w->bc, "%s", error);
        free(error);
        uv_close((uv_handle_t *)&w->timer, waiter_free);
        return;
    }
    w->checks++;
    uint64_t elapsed = uv_now(w->bc->app->loop) - w->start_ms;
    if (w->present != w->gone)
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
        uv_timer_start(&w->timer, check, left < POLL_MS ? left : POLL_MS, 0);
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
    if (json_object_get(a, "stable_ms") || args_bool(a, "exit", false)) {
        backend_call_fail(bc, "wait_for on desktops waits for \"text\", \"regex\" or \"ref\"; "
                              "\"stable_ms\" and \"exit\" are for terminal sessions");
        return;
    }
    const char *regex = args_string(a, "regex", NULL);
    const char *text = args_string(a, "text", NULL);
    if (!regex && !text && !args_string(a, "ref", NULL)) {
        backend_call_fail(bc, "wait_for needs \"text\", \"regex\" or \"ref\"");
        return;
    }
    struct waiter *w = xcalloc(1, sizeof *w);
    if (regex) {
        int rc = regcomp(&w->re, regex, REG_EXTENDED | REG_NOSUB | REG_ICASE);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &w->re, msg, sizeof msg);
            backend_call_fail(bc, "\"regex\" is not a valid POSIX extended regular expression: %s",
                              msg);
            free(w);
            return;
        }
        w->has_regex = true;
    }
    w->p = p;
    w->bc = bc;
    w->text = text;
    w->gone = args_bool(a, "gone", false);
    w->timeout_ms = (int)args_int(a, "timeout_ms", 10000);
    w->start_ms = uv_now(bc->app->loop);
    w->source = "accessibility";
    uv_timer_init(bc->app->loop, &w->timer);
    w->timer.data = w;
    bc->cancel = cancel;
    bc->backend_data = w;
    check(&w->timer);
}
