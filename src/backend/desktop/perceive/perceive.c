#include "backend/desktop/perceive/atspi_element.h"
#include "backend/desktop/perceive/internal.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/args.h"
#define LOG_MODULE "perceive"
#include "backend/desktop/perceive/tree.h"
#include "backend/mirror.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct perceive *perceive_create(const char *session_bus_address, const struct perceive_host *host)
{
    struct perceive *p = xcalloc(1, sizeof *p);
    p->bus_address = xstrdup(session_bus_address);
    p->host = *host;
    p->next_ref = 1;
    uv_mutex_init(&p->lock);
    uv_mutex_init(&p->secrets_lock);
    uv_mutex_init(&p->focus_lock);
    return p;
}

void perceive_destroy(struct perceive *p)
{
    if (!p)
        return;
    atspi_destroy(p->atspi);
    atspi_destroy(p->focus_atspi);
    uv_mutex_destroy(&p->focus_lock);
    atspi_tree_finish(&p->last);
    ocr_cache_finish(p);
    atspi_hint_destroy(p->element_hint);
    uv_mutex_destroy(&p->lock);
    uv_mutex_destroy(&p->secrets_lock);
    free(p->bus_address);
    free(p);
}

void job_fail(struct job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(j->error);
    j->error = xvasprintf(fmt, ap);
    j->code = ERROR_TOOL_FAILED;
    va_end(ap);
}

void job_fail_code(struct job *j, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(j->error);
    j->error = xvasprintf(fmt, ap);
    j->code = code;
    va_end(ap);
}

static void work(uv_work_t *w)
{
    struct job *j = w->data;
    uv_mutex_lock(&j->p->lock);
    j->run(j);
    uv_mutex_unlock(&j->p->lock);
}

static void after_work(uv_work_t *w, int status)
{
    struct job *j = w->data;
    if (j->after) {
        j->after(j); /* takes over the job */
        return;
    }
    struct backend_call *bc = j->bc;
    if (j->error) {
        backend_call_fail_code(bc, j->code, "%s", j->error);
        json_decref(j->data);
    } else if (j->has_target) {
        j->target.ref = j->target_ref[0] ? j->target_ref : NULL;
        j->then(bc, &j->target);
        json_decref(j->data);
    } else {
        backend_call_done(bc, j->data, "%s", j->text ? j->text : "done");
    }
    free(j->error);
    free(j->text);
    free(j);
}

struct job *job_new(struct perceive *p, struct backend_call *bc, job_fn run)
{
    struct job *j = xcalloc(1, sizeof *j);
    j->work.data = j;
    j->p = p;
    j->bc = bc;
    j->args = bc->args;
    j->run = run;
    snprintf(j->session, sizeof j->session, "%s", bc->session ? bc->session->id : "");
    return j;
}

void job_queue(struct job *j)
{
    uv_queue_work(j->bc->app->loop, &j->work, work, after_work);
}

void job_start(struct perceive *p, struct backend_call *bc, job_fn run, perceive_then then)
{
    struct job *j = job_new(p, bc, run);
    j->then = then;
    job_queue(j);
}

struct atspi_walk_opts perceive_walk_opts(const json_t *args)
{
    return (struct atspi_walk_opts){
        .app = args_string(args, "app", NULL),
        .window = args_string(args, "window", NULL),
        .max_depth = (int)args_int(args, "depth", 30),
        /* max_elements is the same budget by the name browsers use. */
        .max_nodes = (int)args_int(args, "max_elements", args_int(args, "max_nodes", 500)),
        .deadline_ms = WALK_DEADLINE_MS,
        .include_hidden = args_bool(args, "include_hidden", false),
    };
}

/* A walk of the whole desktop replaces what is known of password fields;
 * a walk of one application or window adds to it. */
static void note_secrets(struct perceive *p, const struct atspi_walk_opts *o,
                         const struct atspi_tree *t)
{
    uv_mutex_lock(&p->secrets_lock);
    if (!o->app && !o->window)
        p->n_secrets = 0;
    for (int i = 0; i < t->count && p->n_secrets < PERCEIVE_MAX_SECRETS; i++) {
        const struct atspi_node *n = &t->nodes[i];
        if (strcmp(n->role, "password text") != 0 || n->w <= 0 || n->h <= 0)
            continue;
        struct perceive_rect r = {n->x, n->y, n->w, n->h};
        bool known = false;
        for (int k = 0; k < p->n_secrets && !known; k++)
            known = memcmp(&p->secrets[k], &r, sizeof r) == 0;
        if (!known)
            p->secrets[p->n_secrets++] = r;
    }
    uv_mutex_unlock(&p->secrets_lock);
}

/* The focus check's time: an application that does not answer costs at most
 * this per call; the fallback walk at most FOCUS_WALK_MS. */
#define FOCUS_CALL_MS  1000
#define FOCUS_WALK_MS  1500
#define FOCUS_RETRY_MS 10000
#define FOCUS_AGAIN_MS 25

static bool focused_password_in(const struct atspi_tree *t)
{
    for (int i = 0; i < t->count; i++)
        if (ATSPI_HAS(t->nodes[i].states, ATSPI_STATE_FOCUSED) &&
            strcmp(t->nodes[i].role, "password text") == 0)
            return true;
    return false;
}

static bool focus_is_secret(struct perceive *p);

bool perceive_focus_is_secret(struct perceive *p, int settle_ms)
{
    if (!p)
        return false;
    uint64_t until = uv_hrtime() / 1000000 + (uint64_t)settle_ms;
    bool secret;
    /* A "no" may be a program that has not yet handled the focus it was
     * just given: ask again for a moment. A "yes" is final. */
    while (!(secret = focus_is_secret(p)) && uv_hrtime() / 1000000 + FOCUS_AGAIN_MS < until)
        uv_sleep(FOCUS_AGAIN_MS);
    return secret;
}

static bool focus_is_secret(struct perceive *p)
{
    uv_mutex_lock(&p->focus_lock);
    char *err = NULL;
    uint64_t now = uv_hrtime() / 1000000;
    if (!p->focus_atspi && now >= p->focus_retry_ms) {
        p->focus_atspi = atspi_connect(p->bus_address, CONNECT_TIMEOUT_MS, &err);
        if (!p->focus_atspi) {
            /* No accessibility bus: no application says what it shows, as
             * for screenshots' painting over; not asked again for a while
             * so typing does not wait on it each time. */
            log_debug("no accessibility bus to ask about the focus: %s", err);
            free(err);
            p->focus_retry_ms = now + FOCUS_RETRY_MS;
            uv_mutex_unlock(&p->focus_lock);
            return false;
        }
    }
    if (!p->focus_atspi) {
        uv_mutex_unlock(&p->focus_lock);
        return false;
    }
    int verdict = atspi_focused_secret(p->focus_atspi, FOCUS_CALL_MS, &err);
    if (verdict < 0) {
        /* A toolkit without Collection: look at the whole tree instead. */
        struct atspi_walk_opts o = {
            .max_depth = 30, .max_nodes = 2000, .deadline_ms = FOCUS_WALK_MS};
        struct atspi_tree t;
        free(err);
        err = NULL;
        if (atspi_walk(p->focus_atspi, &o, &t, &err)) {
            verdict = focused_password_in(&t) ? 1 : t.unanswered ? -1 : 0;
            atspi_tree_finish(&t);
        }
    }
    if (verdict < 0) {
        /* Cannot tell: the typed text is treated as a secret (fail closed),
         * and the connection is made again next time. */
        log_info("cannot tell whether the focus is a password field; the typed text is kept "
                 "out of the audit log: %s",
                 err ? err : "an application did not answer");
        atspi_destroy(p->focus_atspi);
        p->focus_atspi = NULL;
    }
    free(err);
    uv_mutex_unlock(&p->focus_lock);
    return verdict != 0;
}

int perceive_secret_rects(struct perceive *p, struct perceive_rect *out, int max)
{
    if (!p)
        return 0;
    uv_mutex_lock(&p->secrets_lock);
    int n = p->n_secrets < max ? p->n_secrets : max;
    memcpy(out, p->secrets, (size_t)n * sizeof *out);
    uv_mutex_unlock(&p->secrets_lock);
    return n;
}

struct atspi *perceive_atspi(struct job *j)
{
    struct perceive *p = j->p;
    char *err = NULL;
    if (!p->atspi)
        p->atspi = atspi_connect(p->bus_address, CONNECT_TIMEOUT_MS, &err);
    if (!p->atspi) {
        job_fail(j, "%s", err);
        free(err);
    }
    return p->atspi;
}

bool perceive_walk(struct job *j, const struct atspi_walk_opts *o, struct atspi_tree *out)
{
    struct perceive *p = j->p;
    char *err = NULL;
    if (!p->atspi)
        p->atspi = atspi_connect(p->bus_address, CONNECT_TIMEOUT_MS, &err);
    if (p->atspi && atspi_walk(p->atspi, o, out, &err)) {
        note_secrets(p, o, out);
        return true;
    }
    /* Reconnect next time: the bus may have been restarted. */
    atspi_destroy(p->atspi);
    p->atspi = NULL;
    job_fail(j, "%s", err);
    free(err);
    return false;
}

void perceive_adopt(struct perceive *p, struct atspi_tree *tree)
{
    atspi_tree_finish(&p->last);
    p->last = *tree;
    memset(tree, 0, sizeof *tree);
    p->first_ref = p->next_ref;
    /* At least one number per snapshot, so even an empty one retires the
     * refs before it. */
    p->next_ref += p->last.count > 0 ? p->last.count : 1;
    p->have_snapshot = true;
}

const struct atspi_node *perceive_ref(struct job *j, const char *ref)
{
    struct perceive *p = j->p;
    int num;
    if (!tree_parse_ref(ref, &num)) {
        job_fail_code(j, ERROR_INVALID_ARGUMENT,
                      "\"ref\" must look like \"e12\" (from snapshot or find); got \"%s\"", ref);
        return NULL;
    }
    if (!p->have_snapshot) {
        job_fail_code(j, ERROR_NOT_FOUND,
                      "ref %s is unknown: no snapshot has been taken of session %s yet; take a "
                      "snapshot first",
                      ref, j->session);
        return NULL;
    }
    if (num < p->first_ref) {
        job_fail_code(j, ERROR_NOT_FOUND, "ref %s is from an older snapshot; take a new snapshot",
                      ref);
        return NULL;
    }
    if (num >= p->first_ref + p->last.count) {
        if (p->last.count == 0)
            job_fail_code(j, ERROR_NOT_FOUND,
                          "ref %s is unknown: the latest snapshot has no elements", ref);
        else
            job_fail_code(j, ERROR_NOT_FOUND,
                          "ref %s is unknown: the latest snapshot has e%d to e%d", ref,
                          p->first_ref, p->first_ref + p->last.count - 1);
        return NULL;
    }
    return &p->last.nodes[num - p->first_ref];
}

json_t *perceive_bounds_json(int x, int y, int w, int h)
{
    return json_pack("{s:i, s:i, s:i, s:i}", "x", x, "y", y, "width", w, "height", h);
}

bool perceive_ocr(struct job *j, int x, int y, int w, int h, const char *lang, int deadline_ms,
                  struct ocr_result *out)
{
    struct perceive *p = j->p;
    char *err = NULL;
    if (!ocr_in_build(&err)) {
        job_fail_code(j, ERROR_NOT_SUPPORTED, "%s", err);
        free(err);
        return false;
    }
    if (!p->host.capture) {
        job_fail_code(j, ERROR_NOT_SUPPORTED,
                      "OCR is not available: this session cannot capture its screen");
        return false;
    }
    struct frame f = {0};
    if (!p->host.capture(p->host.ud, &f, &err)) {
        job_fail_code(j, ERROR_DEVICE_UNAVAILABLE, "cannot capture the screen for OCR: %s", err);
        free(err);
        return false;
    }
    if (ocr_cache_get(p, &f, x, y, w, h, lang, out)) {
        frame_finish(&f);
        return true;
    }
    bool ok = ocr_recognize(&f, x, y, w, h, lang, deadline_ms, out, &err);
    /* A recognition cut short by its deadline is not the whole answer. */
    if (ok && deadline_ms <= 0)
        ocr_cache_put(p, &f, x, y, w, h, lang, out);
    frame_finish(&f);
    if (!ok) {
        job_fail(j, "%s", err);
        free(err);
    }
    return ok;
}

/* snapshot ----------------------------------------------------------------- */

static void snapshot_run(struct job *j)
{
    struct atspi_walk_opts o = perceive_walk_opts(j->args);
    struct atspi_tree t;
    if (!perceive_walk(j, &o, &t)) {
        char *why = j->error;
        j->error = NULL;
        job_fail(j,
                 "cannot take an accessibility snapshot: %s (read_text and find fall back to "
                 "OCR; screenshot still works)",
                 why);
        free(why);
        return;
    }
    perceive_adopt(j->p, &t);
    const struct atspi_tree *last = &j->p->last;
    char *outline = tree_outline(last, j->p->first_ref);
    j->data = json_pack("{s:s, s:s, s:s, s:i, s:b}", "session", j->session, "kind", "desktop",
                        "outline", outline, "count", last->count, "truncated", last->truncated);
    json_object_set_new(j->data, "elements", tree_elements_json(last, j->p->first_ref));
    if (last->truncation)
        json_object_set_new(j->data, "truncation", json_string(last->truncation));
    if (last->count == 0)
        json_object_set_new(j->data, "note",
                            json_string("no application on this desktop exposes an "
                                        "accessibility tree; use read_text (OCR) or screenshot"));
    j->text = outline;
}

void perceive_snapshot(struct perceive *p, struct backend_call *bc)
{
    job_start(p, bc, snapshot_run, NULL);
}

/* find --------------------------------------------------------------------- */

static void find_run(struct job *j)
{
    const char *text = args_string(j->args, "text", NULL);
    const char *role = args_string(j->args, "role", NULL);
    bool exact = args_bool(j->args, "exact", false);
    int limit = (int)args_int(j->args, "limit", 20);
    const char *lang = args_string(j->args, "lang", "eng");
    char *ocr_err = NULL;
    if (!ocr_lang_check(lang, &ocr_err)) {
        job_fail(j, "%s", ocr_err);
        free(ocr_err);
        return;
    }
    struct atspi_walk_opts o = perceive_walk_opts(j->args);
    struct atspi_tree t;
    char *tree_err = NULL;
    json_t *matches = json_array();
    if (perceive_walk(j, &o, &t)) {
        perceive_adopt(j->p, &t);
        const struct atspi_tree *last = &j->p->last;
        for (int i = 0; i < last->count && (int)json_array_size(matches) < limit; i++)
            if (tree_matches(&last->nodes[i], text, exact, role)) {
                json_t *e = tree_element_json(last, i, j->p->first_ref);
                json_object_set_new(e, "source", json_string("accessibility"));
                json_array_append_new(matches, e);
            }
    } else {
        tree_err = j->error;
        j->error = NULL;
    }
    const char *source = "accessibility";
    char *note = NULL;
    if (json_array_size(matches) == 0 && text && !role) {
        /* Nothing accessible says it: look at the pixels. */
        struct ocr_result r;
        if (perceive_ocr(j, 0, 0, 0, 0, lang, 0, &r)) {
            json_decref(matches);
            matches = perceive_ocr_matches(&r, text, exact, limit);
            ocr_result_finish(&r);
            source = "ocr";
        } else {
            char *ocr_fail = j->error;
            j->error = NULL;
            if (tree_err)
                job_fail(j, "cannot search: %s; and OCR failed: %s", tree_err, ocr_fail);
            else /* the tree answered: no match is the answer, OCR's trouble a note */
                note = xasprintf("no accessible element matches; OCR failed: %s", ocr_fail);
            free(ocr_fail);
        }
    } else if (tree_err) {
        job_fail(j, "cannot search the accessibility tree: %s", tree_err);
    }
    free(tree_err);
    if (j->error) {
        json_decref(matches);
        free(note);
        return;
    }
    size_t n = json_array_size(matches);
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%zu match%s (%s)", n, n == 1 ? "" : "es", source);
    for (size_t i = 0; i < n; i++) {
        strbuf_putc(&sb, '\n');
        mirror_element(&sb, json_array_get(matches, i));
    }
    j->text = strbuf_steal(&sb);
    j->data = json_pack("{s:s, s:s, s:I, s:o}", "session", j->session, "source", source, "count",
                        (json_int_t)n, "matches", matches);
    if (note)
        json_object_set_new(j->data, "note", json_string(note));
    free(note);
}

void perceive_find(struct perceive *p, struct backend_call *bc)
{
    job_start(p, bc, find_run, NULL);
}
