/* Seeing vnc sessions: screenshots are a copy of the client's framebuffer
 * (shared memory the connection's process keeps current with an update
 * request always outstanding)
 * handed to the shared frame pipeline; read_text and wait_for read that
 * copy with OCR, as there is no accessibility tree over VNC. All of it on
 * the worker pool. */
#include "backend/frames.h"
#include "backend/vnc/internal.h"

#include "core/app.h"
#include "core/args.h"
#include "core/clock.h"
#include "core/pattern.h"
#include "core/xmalloc.h"
#include "ocr/ocr.h"
#include "session/session.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* How long a call waits for the server's first whole frame. */
#define FIRST_FRAME_MS 5000
/* How often wait_for looks again while the screen changes. */
#define WAIT_EVERY_MS 200

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    if (!vnc_copy_frame(ud, FIRST_FRAME_MS, &out->frame, NULL, &out->fail_code, err))
        return false;
    /* screenshot cursor: true: the server's shape, sent apart, where
     * glovebox last put the pointer. */
    if (rq->cursor)
        vnc_cursor_copy(ud, &out->cursor);
    return true;
}

void vnc_screenshot_op(struct backend_call *bc)
{
    frames_screenshot(bc, &(struct frame_source){.produce = produce,
                                                 .ud = vnc_of(bc->session),
                                                 .failure = "cannot take a screenshot"});
}

/* ---- recordings: the same frames, sampled (backend/frame_recording.h) ---- */

/* A recording's frames: the last whole one even as the connection closes,
 * so a session that ends right after record_start still leaves a picture. */
static bool produce_last(void *ud, const struct frame_request *rq, struct frame_shot *out,
                         char **err)
{
    (void)rq;
    enum error_code code;
    return vnc_copy_frame_last(ud, FIRST_FRAME_MS, true, &out->frame, NULL, &code, err);
}

static void record_sample(void *ud, struct frame_recording *fr)
{
    frame_recording_sampled(fr, &(struct frame_source){.produce = produce_last, .ud = ud});
}

static const struct frame_recording_kind recording = {
    .kind = "vnc", .default_fps = 5, .max_fps = 30, .sample = record_sample};

void vnc_record_start_op(struct backend_call *bc)
{
    struct vnc *v = vnc_of(bc->session);
    frame_recording_start(&v->rec, bc, &recording, v);
}

void vnc_record_stop_op(struct backend_call *bc)
{
    frame_recording_stop(&vnc_of(bc->session)->rec, bc);
}

/* ---- OCR ---- */

struct look {
    uv_work_t work;
    struct backend_call *bc;
    struct vnc *v;
    bool wait;
    bool find;
    /* find */
    bool exact;
    int limit;
    /* read_text */
    int x, y, w, h;
    char *lang;
    /* wait_for */
    char *text;
    struct pattern *re;
    bool gone;
    int stable_ms;
    int timeout_ms;
    atomic_bool cancelled;
    /* wait_for's answer. */
    bool matched;
    uint64_t elapsed_ms;
    char *line;         /* the line that matched (text, regex), or NULL */
    const char *reason; /* why not matched, or NULL */
    /* The answer of find and read_text. */
    json_t *data;
    char *summary;
    char *err;
    enum error_code code;
};

/* OCR of the frame f (its region when one was given). */
static bool recognize(struct look *l, const struct frame *f, struct ocr_result *r)
{
    if (ocr_recognize(f, l->x, l->y, l->w, l->h, l->lang, 0, r, &l->err))
        return true;
    l->code = ERROR_TOOL_FAILED;
    return false;
}

/* OCR of the screen now (read_text, find). */
static bool read_screen(struct look *l, struct ocr_result *r)
{
    struct frame f;
    if (!vnc_copy_frame(l->v, FIRST_FRAME_MS, &f, NULL, &l->code, &l->err))
        return false;
    bool ok = recognize(l, &f, r);
    frame_finish(&f);
    return ok;
}

static void read_run(struct look *l)
{
    struct ocr_result r;
    if (!read_screen(l, &r))
        return;
    l->data = json_pack("{s:s, s:s, s:s}", "session", l->bc->session->id, "source", "ocr", "text",
                        r.text);
    l->summary = xstrdup(r.text);
    ocr_result_finish(&r);
}

/* Looks again whenever the screen changed (text, regex: OCR; stable_ms:
 * the framebuffer's update count) until matched, cancelled or timed out. */
static void wait_run(struct look *l)
{
    uint64_t start = clock_now_ms(), last_serial = 0, since = start;
    char *line = NULL;
    bool matched = false, looked = false;
    for (;;) {
        struct frame f;
        uint64_t serial;
        if (!vnc_copy_frame(l->v, FIRST_FRAME_MS, &f, &serial, &l->code, &l->err)) {
            free(line);
            return;
        }
        uint64_t t = clock_now_ms();
        if (l->stable_ms) {
            if (!looked || serial != last_serial)
                since = t;
            matched = t - since >= (uint64_t)l->stable_ms;
        } else if (!looked || serial != last_serial) {
            struct ocr_result r;
            bool ok = recognize(l, &f, &r);
            if (!ok) {
                frame_finish(&f);
                free(line);
                return;
            }
            free(line);
            line = pattern_first_line(r.text, l->text, l->re, 0, NULL);
            ocr_result_finish(&r);
            matched = l->gone ? line == NULL : line != NULL;
        }
        frame_finish(&f);
        looked = true;
        last_serial = serial;
        if (matched)
            break;
        if (atomic_load(&l->cancelled)) {
            l->reason = "cancelled";
            break;
        }
        if (clock_now_ms() - start >= (uint64_t)l->timeout_ms) {
            l->reason = "timed out";
            break;
        }
        clock_sleep_ms(WAIT_EVERY_MS);
    }
    l->matched = matched;
    l->elapsed_ms = clock_now_ms() - start;
    if (l->gone)
        free(line);
    else
        l->line = line;
}

/* find: the places the text appears on the screen, by OCR, with bounds
 * to click (as desktops answer when no accessible element says it). */
static void find_run(struct look *l)
{
    struct ocr_result r;
    if (!read_screen(l, &r))
        return;
    json_t *matches = ocr_matches(&r, l->text, l->exact, l->limit);
    ocr_result_finish(&r);
    size_t n = json_array_size(matches);
    l->summary = ocr_matches_caption(matches);
    l->data = json_pack("{s:s, s:s, s:I, s:o}", "session", l->bc->session->id, "source", "ocr",
                        "count", (json_int_t)n, "matches", matches);
}

static void work(uv_work_t *w)
{
    struct look *l = w->data;
    if (l->find)
        find_run(l);
    else if (l->wait)
        wait_run(l);
    else
        read_run(l);
}

static void after(uv_work_t *w, int status)
{
    (void)status;
    struct look *l = w->data;
    l->bc->cancel = NULL;
    if (l->err)
        backend_call_fail_code(l->bc, l->code, "cannot %s: %s",
                               l->find   ? "search"
                               : l->wait ? "wait"
                                         : "read text",
                               l->err);
    else if (l->wait)
        backend_call_done_wait(l->bc, l->matched, l->elapsed_ms, l->stable_ms ? "screen" : "ocr",
                               l->line, l->reason);
    else {
        backend_call_done(l->bc, l->data, "%s", l->summary);
        l->data = NULL;
    }
    free(l->line);
    json_decref(l->data);
    free(l->summary);
    free(l->err);
    free(l->lang);
    free(l->text);
    pattern_destroy(l->re);
    free(l);
}

static void cancel(struct backend_call *bc)
{
    struct look *l = bc->backend_data;
    atomic_store(&l->cancelled, true);
}

static bool refuse(struct backend_call *bc, const char *verb, const char *const *fields)
{
    for (const char *const *f = fields; *f; f++)
        if (json_object_get(bc->args, *f)) {
            backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                                   "cannot %s: argument \"%s\" is not supported on vnc sessions "
                                   "(they are read with OCR)",
                                   verb, *f);
            return true;
        }
    return false;
}

static struct look *look_new(struct backend_call *bc, const char *verb)
{
    const char *lang = args_string(bc->args, "lang", "eng");
    char *err = NULL;
    if (!ocr_lang_check(lang, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "cannot %s: %s", verb, err);
        free(err);
        return NULL;
    }
    struct look *l = xcalloc(1, sizeof *l);
    l->bc = bc;
    l->v = vnc_of(bc->session);
    l->lang = xstrdup(lang);
    l->work.data = l;
    return l;
}

void vnc_read_text_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "scrollback", "app", "window", NULL};
    if (refuse(bc, "read text", unsupported))
        return;
    struct look *l = look_new(bc, "read text");
    if (!l)
        return;
    const json_t *region = json_object_get(bc->args, "region");
    if (region) {
        l->x = (int)args_int(region, "x", 0);
        l->y = (int)args_int(region, "y", 0);
        l->w = (int)args_int(region, "width", 0);
        l->h = (int)args_int(region, "height", 0);
    }
    uv_queue_work(bc->app->loop, &l->work, work, after);
}

void vnc_wait_for_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"ref", "exit", NULL};
    if (refuse(bc, "wait", unsupported))
        return;
    const char *text = args_string(bc->args, "text", NULL);
    const char *regex = args_string(bc->args, "regex", NULL);
    int stable = (int)args_int(bc->args, "stable_ms", 0);
    if ((text != NULL) + (regex != NULL) + (stable > 0) != 1) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot wait: give exactly one of \"text\", \"regex\" or "
                               "\"stable_ms\" on vnc sessions");
        return;
    }
    struct pattern *re;
    if (!backend_wait_regex(bc, regex, &re))
        return;
    struct look *l = look_new(bc, "wait");
    if (!l) {
        pattern_destroy(re);
        return;
    }
    l->wait = true;
    l->text = text ? xstrdup(text) : NULL;
    l->re = re;
    l->gone = args_bool(bc->args, "gone", false);
    l->stable_ms = stable;
    l->timeout_ms = (int)args_int(bc->args, "timeout_ms", 10000);
    bc->cancel = cancel;
    bc->backend_data = l;
    uv_queue_work(bc->app->loop, &l->work, work, after);
}

void vnc_find_op(struct backend_call *bc)
{
    static const char *const unsupported[] = {"role", "app", "window", NULL};
    if (refuse(bc, "search", unsupported))
        return;
    const char *text = args_string(bc->args, "text", NULL);
    if (!text) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "cannot search: argument \"text\" is required on vnc sessions "
                               "(found by OCR)");
        return;
    }
    struct look *l = look_new(bc, "search");
    if (!l)
        return;
    l->find = true;
    l->text = xstrdup(text);
    l->exact = args_bool(bc->args, "exact", false);
    l->limit = (int)args_int(bc->args, "limit", 20);
    uv_queue_work(bc->app->loop, &l->work, work, after);
}
