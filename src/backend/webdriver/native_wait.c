/* wait_for on native apps (Appium): no script runs in an app, so the page
 * source (GET …/source) is looked at every POLL_MS until a line of its text
 * (the elements' names and values, as read_text gives them) holds the text
 * or matches the regex, or the element of a ref shows — or, with gone, no
 * longer — or the time runs out. A ref names an element of the latest
 * snapshot or find by its role, name and resource id, so it is found again
 * in a later source wherever it moved. The refs themselves are left as
 * they are: looking is not a snapshot. */
#include "backend/webdriver/internal.h"
#include "backend/webdriver/native_tree.h"

#include "core/app.h"
#include "core/clock.h"
#include "core/pattern.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* Between two looks at the source (each one is a request to the device). */
#define POLL_MS 250

struct nwait {
    struct backend_call *bc; /* NULL once answered */
    char *text, *key;        /* key: the ref's element (wd_native_key) */
    struct pattern *re;
    bool gone;
    uint64_t start_ms;
    int timeout_ms;
    uv_timer_t timer;
    bool asking; /* a request for the source is in flight */
};

static void closed(uv_handle_t *h)
{
    struct nwait *nw = h->data;
    free(nw->text);
    free(nw->key);
    pattern_destroy(nw->re);
    free(nw);
}

static void finish(struct nwait *nw)
{
    uv_close((uv_handle_t *)&nw->timer, closed);
}

static void answer(struct nwait *nw, bool matched, const char *line, const char *reason)
{
    struct backend_call *bc = nw->bc;
    nw->bc = NULL;
    bc->cancel = NULL;
    backend_call_done_wait(bc, matched, clock_now_ms() - nw->start_ms, "page source", line, reason);
}

static bool line_matches(struct nwait *nw, const char *line)
{
    if (nw->text)
        return strstr(line, nw->text) != NULL;
    char *err = NULL;
    bool hit = pattern_match(nw->re, line, strlen(line), 0, &err) == 1;
    free(err);
    return hit;
}

/* Whether what nw waits for is there in t; *line: the line that matched
 * (borrowed from t). */
static bool present(struct nwait *nw, const struct native_tree *t, const char **line)
{
    *line = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const struct native_el *e = &t->els[i];
        if (nw->key) {
            char *key = wd_native_key(e);
            bool same = strcmp(key, nw->key) == 0 && !e->hidden;
            free(key);
            if (same)
                return true;
            continue;
        }
        const char *fields[] = {e->name, e->value};
        for (size_t k = 0; k < 2; k++)
            if (fields[k] && *fields[k] && line_matches(nw, fields[k])) {
                *line = fields[k];
                return true;
            }
    }
    return false;
}

static void look(uv_timer_t *timer);

static void got(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct nwait *nw = ud;
    nw->asking = false;
    if (!nw->bc) {
        finish(nw); /* cancelled while the device answered */
        return;
    }
    if (err) {
        struct backend_call *bc = nw->bc;
        nw->bc = NULL;
        bc->cancel = NULL;
        backend_call_fail_code(bc, code, "cannot wait: %s", err);
        finish(nw);
        return;
    }
    struct native_tree t = {0};
    char *perr = NULL;
    bool parsed = json_is_string(value) &&
                  native_tree_parse(json_string_value(value), json_string_length(value), &t, &perr);
    free(perr);
    const char *line = NULL;
    if (parsed && present(nw, &t, &line) != nw->gone) {
        answer(nw, true, nw->gone ? NULL : line, NULL);
        native_tree_finish(&t);
        finish(nw);
        return;
    }
    native_tree_finish(&t);
    uint64_t spent = clock_now_ms() - nw->start_ms;
    if (spent >= (uint64_t)nw->timeout_ms) {
        answer(nw, false, NULL, "timed out");
        finish(nw);
        return;
    }
    uint64_t left = (uint64_t)nw->timeout_ms - spent;
    uv_timer_start(&nw->timer, look, left < POLL_MS ? left : POLL_MS, 0);
}

static void look(uv_timer_t *timer)
{
    struct nwait *nw = timer->data;
    nw->asking = true;
    wd_command(wd_of(nw->bc->session), "GET", "/source", NULL, got, nw);
}

static void cancel(struct backend_call *bc)
{
    struct nwait *nw = bc->backend_data;
    answer(nw, false, NULL, "cancelled");
    /* A request in flight frees nw when it comes back. */
    if (!nw->asking) {
        uv_timer_stop(&nw->timer);
        finish(nw);
    }
}

void wd_native_wait(struct backend_call *bc, const char *text, struct pattern *re, const char *ref,
                    bool gone, int timeout_ms)
{
    struct wd *w = wd_of(bc->session);
    char *key = NULL;
    if (ref) {
        size_t n = (size_t)strtoul(ref + (ref[0] == 'e'), NULL, 10);
        if (ref[0] != 'e' || n < 1 || n > w->n_native_refs) {
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "cannot wait: ref %s is gone: refs name the elements of the "
                                   "latest snapshot or find (take a new one)",
                                   ref);
            pattern_destroy(re);
            return;
        }
        key = xstrdup(w->native_ref_keys[n - 1]);
    }
    struct nwait *nw = xcalloc(1, sizeof *nw);
    nw->bc = bc;
    nw->text = text ? xstrdup(text) : NULL;
    nw->key = key;
    nw->re = re;
    nw->gone = gone;
    nw->timeout_ms = timeout_ms;
    nw->start_ms = clock_now_ms();
    uv_timer_init(w->app->loop, &nw->timer);
    nw->timer.data = nw;
    bc->cancel = cancel;
    bc->backend_data = nw;
    look(&nw->timer);
}
