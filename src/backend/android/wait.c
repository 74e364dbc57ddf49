/* wait_for on a phone: uiautomator dumps one after another (a phone takes
 * 0.5-2 s per dump, the fake none: at least WAIT_POLL_MS apart), each
 * parsed and matched on the worker pool (a client's regex never runs on
 * the loop), until the text, regex or element (ref) shows (or is gone),
 * the window hierarchy stays the same for stable_ms, the time is up, the
 * client cancels or the session ends. Text no node has may be in the
 * pixels (a game, a canvas, an image): then a screencap is read by OCR
 * too (below). The session keeps its waits in a list so that stopping it
 * answers them. */
#include "backend/android/internal.h"
#include "backend/android/perceive.h"
#include "backend/android/uixml.h"
#include "core/app.h"
#include "core/args.h"
#include "core/pattern.h"
#include "core/xmalloc.h"
#include "ocr/ocr.h"
#include "session/session.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_POLL_MS     250
#define WAIT_MATCH_LIMIT 1000000 /* PCRE2 steps per line */
/* Waiting for text to show while the window has text of its own, the
 * pixels are read every OCR_EVERY-th check only (a screencap and a
 * Tesseract pass: 0.3-2 s on a phone); with no text in the window, each. */
#define WAIT_OCR_EVERY  4
#define WAIT_OCR_MIN_MS 100 /* no OCR pass with less time than this left */

struct android_wait {
    struct android_wait *next; /* the session's list */
    struct backend_call *bc;
    struct android *a;
    uv_timer_t timer;
    uv_work_t work;
    char *text;
    struct pattern *re;
    struct android_ref ref; /* ref: the element waited for */
    bool has_ref;
    char *lang;  /* OCR's, or NULL: no OCR (not built, not installed, ref, stable_ms) */
    int checks;  /* dumps looked at */
    bool by_ocr; /* the latest check read the pixels (the answer's source) */
    bool blind;  /* the latest check saw neither a tree nor pixels: it proves nothing gone */
    bool gone;
    int stable_ms, timeout_ms;
    uint64_t started, stable_since;
    uint64_t last_hash; /* of the previous dump */
    bool have_hash;
    atomic_bool cancelled;
    bool answered;
    /* One dump on the worker pool. */
    uint8_t *xml;
    size_t xml_len;
    bool found;
    bool window_text; /* some node of the dump has text or a description */
    char *line;       /* what matched */
    uint64_t hash;
    char *err;
    enum error_code err_code; /* of err; tool_failed unless said */
    /* One OCR pass on the worker pool. */
    uint8_t *raw;
    size_t raw_len;
    int deadline_ms;
};

static void unlink_wait(struct android_wait *w)
{
    for (struct android_wait **p = &w->a->waits; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            return;
        }
}

static void wait_closed(uv_handle_t *h)
{
    struct android_wait *w = h->data;
    free(w->text);
    free(w->line);
    free(w->err);
    free(w->xml);
    free(w->raw);
    free(w->lang);
    if (w->has_ref)
        android_ref_finish(&w->ref);
    pattern_destroy(w->re);
    free(w);
}

static uint64_t elapsed(const struct android_wait *w)
{
    return uv_now(w->timer.loop) - w->started;
}

/* Close the timer; w is freed by its callback. A wait answers before its
 * session may end, so the server's final close of every handle never gets
 * there first; if it did, w stays (freeing a closing handle would be worse). */
static void close_timer(struct android_wait *w)
{
    if (!uv_is_closing((uv_handle_t *)&w->timer))
        uv_close((uv_handle_t *)&w->timer, wait_closed);
}

/* Answer once and let go; the timer's close frees w. */
static void answer(struct android_wait *w, bool matched, const char *reason)
{
    if (w->answered)
        return;
    w->answered = true;
    unlink_wait(w);
    struct backend_call *bc = w->bc;
    bc->cancel = NULL;
    backend_call_done_wait(bc, matched, elapsed(w), w->by_ocr ? "ocr" : "accessibility",
                           matched ? w->line : NULL, reason);
    close_timer(w);
}

static void fail_wait(struct android_wait *w, enum error_code code, const char *msg)
{
    if (w->answered)
        return;
    w->answered = true;
    unlink_wait(w);
    w->bc->cancel = NULL;
    backend_call_fail_code(w->bc, code, "cannot wait: %s", msg);
    close_timer(w);
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Worker pool: whether s (n bytes) has the text or matches the regex. */
static bool hit(struct android_wait *w, const char *s, size_t n)
{
    if (w->text)
        return memmem(s, n, w->text, strlen(w->text)) != NULL;
    return pattern_match(w->re, s, n, WAIT_MATCH_LIMIT, &w->err) > 0;
}

/* Worker pool: parse, then look for the element, or at every node's text
 * or description. */
static void match_run(uv_work_t *work)
{
    struct android_wait *w = work->data;
    w->hash = fnv(w->xml, w->xml_len);
    if (w->stable_ms)
        return;
    struct ui_tree t;
    if (!uixml_parse((const char *)w->xml, w->xml_len, &t, &w->err))
        return;
    for (size_t i = 0; i < t.n && !w->found && !w->err; i++) {
        const struct ui_node *u = &t.nodes[i];
        if (w->has_ref) {
            if (android_ref_is(&w->ref, u)) {
                w->found = true;
                w->line = xstrdup(android_node_name(u));
            }
            continue;
        }
        const char *s[2] = {u->text, u->desc};
        for (int k = 0; k < 2 && !w->found; k++) {
            if (!s[k][0])
                continue;
            w->window_text = true;
            if (hit(w, s[k], strlen(s[k]))) {
                w->found = true;
                w->line = xstrdup(s[k]);
            }
        }
    }
    uixml_free(&t);
}

/* Worker pool: the screencap read, line by line. */
static void ocr_run(uv_work_t *work)
{
    struct android_wait *w = work->data;
    uint8_t *raw = w->raw;
    w->raw = NULL;
    struct ocr_result r;
    if (!android_ocr_raw(raw, w->raw_len, w->bc->guard, 0, 0, 0, 0, w->lang, w->deadline_ms, &r,
                         &w->err_code, &w->err))
        return;
    w->by_ocr = true;
    w->line = pattern_first_line(r.text, w->text, w->re, WAIT_MATCH_LIMIT, &w->err);
    w->found = w->line != NULL;
    ocr_result_finish(&r);
}

static void poll_soon(struct android_wait *w);

/* The dump and its match are over: the session may end again. Before any
 * answer, which may let the session go. */
static bool released(struct android_wait *w)
{
    struct android *a = w->a;
    if (a->stopping) {
        /* Answer while still held: releasing may end the session and,
         * at shutdown, everything with it. */
        fail_wait(w, ERROR_SESSION_EXPIRED, "the session ended");
        android_release(a);
        return false;
    }
    android_release(a);
    return true;
}

static void ocr_done(uv_work_t *work, int status);

/* After a dump without the text: whether to read the pixels too. Text to
 * show: now and then while the window has text of its own (the tree is
 * where it usually shows), each time when it has none. Gone: every time
 * the tree lacks it, since it is gone only when the pixels lack it too. */
static bool wants_ocr(struct android_wait *w)
{
    if (!w->lang || w->found || w->err)
        return false;
    uint64_t t = elapsed(w);
    if (t + WAIT_OCR_MIN_MS > (uint64_t)w->timeout_ms && w->timeout_ms > 0)
        return false;
    if (w->gone || !w->window_text)
        return true;
    return (w->checks - 1) % WAIT_OCR_EVERY == 0;
}

static void captured(struct backend_call *bc, const struct adb_reply *r)
{
    struct android_wait *w = bc->backend_data;
    if (!r->ok) {
        if (released(w))
            fail_wait(w, r->code, r->error);
        return;
    }
    w->raw = adb_reply_take_out(r, &w->raw_len);
    /* A pass cut short may miss the text: never for gone, which would
     * then answer wrongly; else not past the wait's end. */
    uint64_t t = elapsed(w);
    w->deadline_ms = w->gone || w->timeout_ms == 0 ? 0
                     : (uint64_t)w->timeout_ms > t ? (int)((uint64_t)w->timeout_ms - t)
                                                   : 1;
    w->work.data = w;
    uv_queue_work(bc->app->loop, &w->work, ocr_run, ocr_done);
}

/* One check is over (the dump, and the pixels when they were read). */
static void checked(struct android_wait *w)
{
    if (!released(w))
        return;
    if (w->err) {
        fail_wait(w, w->err_code, w->err);
        return;
    }
    uint64_t now = elapsed(w);
    if (w->stable_ms) {
        if (!w->have_hash || w->hash != w->last_hash)
            w->stable_since = now;
        w->last_hash = w->hash;
        w->have_hash = true;
        if (now - w->stable_since >= (uint64_t)w->stable_ms) {
            answer(w, true, NULL);
            return;
        }
    } else if (w->found != w->gone && !(w->gone && w->blind)) {
        answer(w, true, NULL);
        return;
    }
    free(w->line);
    w->line = NULL;
    w->found = false;
    w->by_ocr = false;
    w->blind = false;
    w->window_text = false;
    poll_soon(w);
}

static void ocr_done(uv_work_t *work, int status)
{
    (void)status;
    checked(work->data);
}

static void match_done(uv_work_t *work, int status)
{
    (void)status;
    struct android_wait *w = work->data;
    free(w->xml);
    w->xml = NULL;
    w->checks++;
    if (!w->a->stopping && wants_ocr(w)) {
        /* Still held from the dump: the screencap is part of this check. */
        android_run(w->bc, ADB_EXEC, "screencap", ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT,
                    captured);
        return;
    }
    checked(w);
}

static void dumped(struct backend_call *bc, const struct adb_reply *r)
{
    struct android_wait *w = bc->backend_data;
    /* No hierarchy from a device that answered ("could not get idle
     * state" on an animating screen — a game —, a secure window): the
     * pixels alone, when they can be read. */
    if (android_no_hierarchy(r) && w->lang && !w->a->stopping && !w->has_ref && !w->stable_ms) {
        w->checks++;
        w->window_text = false;
        if (wants_ocr(w)) {
            android_run(bc, ADB_EXEC, "screencap", ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT,
                        captured);
            return;
        }
        w->blind = true;
        checked(w);
        return;
    }
    if (!r->ok || r->exit_code != 0) {
        char *msg = !r->ok ? xstrdup(r->error)
                           : xasprintf("uiautomator exited with status %d: %.300s", r->exit_code,
                                       r->err_len ? (const char *)r->err : (const char *)r->out);
        if (released(w))
            fail_wait(w, r->ok ? ERROR_TOOL_FAILED : r->code, msg);
        free(msg);
        return;
    }
    w->xml = adb_reply_take_out(r, &w->xml_len);
    w->work.data = w;
    uv_queue_work(bc->app->loop, &w->work, match_run, match_done);
}

static void poll_now(uv_timer_t *t)
{
    struct android_wait *w = t->data;
    if (atomic_load(&w->cancelled)) {
        answer(w, false, "cancelled");
        return;
    }
    /* Held from the dump to its match: a session that stops meanwhile
     * ends after, and this wait answers first. */
    android_hold(w->a);
    android_run(w->bc, ADB_SHELL_V2, "uiautomator dump /dev/tty", ANDROID_TIMEOUT_MS,
                ANDROID_MAX_TEXT, dumped);
}

static void poll_soon(struct android_wait *w)
{
    if (atomic_load(&w->cancelled)) {
        answer(w, false, "cancelled");
        return;
    }
    if (elapsed(w) >= (uint64_t)w->timeout_ms) {
        answer(w, false, "timeout");
        return;
    }
    uv_timer_start(&w->timer, poll_now, WAIT_POLL_MS, 0);
}

static void cancel(struct backend_call *bc)
{
    struct android_wait *w = bc->backend_data;
    atomic_store(&w->cancelled, true);
    /* Between dumps: answer now rather than at the next tick. */
    if (uv_is_active((uv_handle_t *)&w->timer)) {
        uv_timer_stop(&w->timer);
        answer(w, false, "cancelled");
    }
}

/* The OCR language of a text or regex wait, or NULL when the pixels
 * cannot be read (not built, no language data): the tree alone then. A
 * lang the client gave that is unusable is its mistake (*bad). */
static char *ocr_lang(struct backend_call *bc, bool *bad)
{
    enum error_code code;
    char *err = NULL;
    *bad = false;
    if (android_ocr_usable(bc, &code, &err))
        return xstrdup(args_string(bc->args, "lang", "eng"));
    if (json_object_get(bc->args, "lang")) {
        backend_call_fail_code(bc, code, "cannot wait: %s", err);
        *bad = true;
    }
    free(err);
    return NULL;
}

void android_wait_for_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    if (json_object_get(bc->args, "exit")) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "cannot wait: \"exit\" is not supported on android sessions "
                               "(wait for text, regex, ref or stable_ms)");
        return;
    }
    const char *text = args_string(bc->args, "text", NULL);
    const char *regex = args_string(bc->args, "regex", NULL);
    const char *ref = args_string(bc->args, "ref", NULL);
    int stable = (int)args_int(bc->args, "stable_ms", 0);
    if ((text != NULL) + (regex != NULL) + (ref != NULL) + (stable > 0) != 1) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot wait: give exactly one of \"text\", \"regex\", \"ref\" or "
                               "\"stable_ms\" on android sessions");
        return;
    }
    struct android_ref target;
    const struct android_ref *named = ref ? android_ref_lookup(bc, ref, "cannot wait: ") : NULL;
    if (ref && !named)
        return;
    if (named)
        android_ref_copy(&target, named);
    char *lang = NULL;
    bool bad = false;
    if ((text || regex) && !(lang = ocr_lang(bc, &bad)) && bad)
        return;
    struct pattern *re;
    if (!backend_wait_regex(bc, regex, &re)) {
        free(lang);
        return;
    }
    struct android_wait *w = xcalloc(1, sizeof *w);
    w->bc = bc;
    w->a = a;
    w->err_code = ERROR_TOOL_FAILED;
    w->lang = lang;
    if (ref) {
        w->ref = target;
        w->has_ref = true;
    }
    w->text = text ? xstrdup(text) : NULL;
    w->re = re;
    w->gone = args_bool(bc->args, "gone", false);
    w->stable_ms = stable;
    w->timeout_ms = (int)args_int(bc->args, "timeout_ms", 10000);
    uv_timer_init(bc->app->loop, &w->timer);
    w->timer.data = w;
    w->started = uv_now(bc->app->loop);
    w->next = a->waits;
    a->waits = w;
    bc->backend_data = w;
    bc->cancel = cancel;
    poll_now(&w->timer);
}

void android_waits_end(struct android *a, const char *why)
{
    while (a->waits) {
        struct android_wait *w = a->waits;
        if (uv_is_active((uv_handle_t *)&w->timer)) {
            /* Between dumps: nothing of it is on its way. */
            uv_timer_stop(&w->timer);
            fail_wait(w, ERROR_SESSION_EXPIRED, why);
        } else {
            /* A dump on its way holds the session; it answers when it is back. */
            unlink_wait(w);
            w->next = NULL;
        }
    }
}
