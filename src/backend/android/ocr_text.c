/* read_text and find by OCR on a phone: asked for (read_text ocr: true),
 * or when uiautomator has nothing to say (no text in the window, no dump:
 * "could not get idle state" on an animating screen, a secure window; find:
 * no element has the text — a game, a canvas, text in an image). A raw
 * screencap, decoded on the worker pool, the policy's redact areas painted
 * over before Tesseract sees them (src/ocr/), then read. */
#include "backend/android/internal.h"
#include "backend/android/perceive.h"
#include "core/app.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "ocr/ocr.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

struct ocr_read {
    uv_work_t work;
    struct backend_call *bc;
    uint8_t *raw;
    size_t raw_len;
    int x, y, w, h; /* the region; w 0: the whole screen */
    char *lang;
    char *why;    /* the fallback's reason, or NULL when asked for */
    bool find;    /* find: matches of the call's text, not the whole text */
    char *locate; /* or: where this text is (click), exact or not */
    bool exact;
    android_at_fn at;
    char *text;
    json_t *matches; /* find */
    enum error_code code;
    char *err;
};

static void paint(struct frame *f, const struct screen_guard *g)
{
    for (size_t i = 0; i < g->n_redact; i++) {
        const struct screen_rect *r = &g->redact[i];
        for (int y = r->y < 0 ? 0 : r->y; y < r->y + r->height && y < (int)f->height; y++)
            for (int x = r->x < 0 ? 0 : r->x; x < r->x + r->width && x < (int)f->width; x++)
                memcpy(f->rgba + (size_t)y * f->stride + (size_t)x * 4, "\x60\x60\x60\xff", 4);
    }
}

bool android_ocr_raw(uint8_t *raw, size_t len, const struct screen_guard *g, int x, int y, int w,
                     int h, const char *lang, int deadline_ms, struct ocr_result *out,
                     enum error_code *code, char **err)
{
    struct frame f;
    *code = ERROR_TOOL_FAILED;
    if (!android_decode_raw(raw, len, &f, code, err))
        return false;
    paint(&f, g);
    bool ok = ocr_recognize(&f, x, y, w, h, lang, deadline_ms, out, err);
    frame_finish(&f);
    return ok;
}

static void read_run(uv_work_t *w)
{
    struct ocr_read *o = w->data;
    uint8_t *raw = o->raw;
    o->raw = NULL;
    struct ocr_result r;
    if (!android_ocr_raw(raw, o->raw_len, o->bc->guard, o->x, o->y, o->w, o->h, o->lang, 0, &r,
                         &o->code, &o->err))
        return;
    o->text = xstrdup(r.text);
    if (o->locate)
        o->matches = ocr_matches(&r, o->locate, o->exact, 1);
    else if (o->find)
        o->matches = ocr_matches(&r, args_string(o->bc->args, "text", ""),
                                 args_bool(o->bc->args, "exact", false),
                                 (int)args_int(o->bc->args, "limit", 20));
    ocr_result_finish(&r);
}

/* find's answer: the places the text shows, with bounds to tap. */
static void found(struct backend_call *bc, json_t *matches)
{
    size_t n = json_array_size(matches);
    char *caption = ocr_matches_caption(matches);
    json_t *out = json_pack("{s:s, s:s, s:I, s:O, s:s}", "session", bc->session->id, "source",
                            "ocr", "count", (json_int_t)n, "matches", matches, "note",
                            "no element of the window has the text; read from the pixels");
    backend_call_done(bc, out, "%s", caption);
    free(caption);
}

static void read_done(uv_work_t *w, int status)
{
    (void)status;
    struct ocr_read *o = w->data;
    struct backend_call *bc = o->bc;
    if (!o->text) {
        backend_call_fail_code(bc, o->code, "cannot %s%s%s: %s", o->find ? "search" : "read text",
                               o->why ? " (" : "", o->why ? o->why : "",
                               o->err ? o->err : "OCR failed");
    } else if (o->locate && json_array_size(o->matches) == 0) {
        android_no_text(bc, o->locate, NULL, true);
    } else if (o->locate) {
        const json_t *m = json_array_get(o->matches, 0), *b = json_object_get(m, "bounds");
        o->at(bc,
              (int)(json_integer_value(json_object_get(b, "x")) +
                    json_integer_value(json_object_get(b, "width")) / 2),
              (int)(json_integer_value(json_object_get(b, "y")) +
                    json_integer_value(json_object_get(b, "height")) / 2),
              m);
    } else if (o->find) {
        found(bc, o->matches);
    } else {
        json_t *lines = json_array();
        for (const char *p = o->text; *p;) {
            size_t n = strcspn(p, "\n");
            if (n)
                json_array_append_new(lines, json_stringn(p, n));
            p += n + (p[n] == '\n');
        }
        json_t *out = json_pack("{s:s, s:s, s:o, s:s}", "session", bc->session->id, "text", o->text,
                                "lines", lines, "source", "ocr");
        if (o->why)
            json_object_set_new(out, "fallback", json_string(o->why));
        backend_call_done(bc, out, "%s", o->text);
    }
    free(o->raw);
    free(o->lang);
    free(o->why);
    free(o->text);
    free(o->err);
    json_decref(o->matches);
    free(o->locate);
    free(o);
}

static void captured(struct backend_call *bc, const struct adb_reply *r)
{
    struct ocr_read *o = bc->backend_data;
    bc->backend_data = NULL;
    if (!r->ok) {
        backend_call_fail_code(bc, r->code, "cannot %s: %s", o->find ? "search" : "read text",
                               r->error);
        free(o->lang);
        free(o->why);
        free(o->locate);
        free(o);
        return;
    }
    o->raw = adb_reply_take_out(r, &o->raw_len);
    o->work.data = o;
    uv_queue_work(bc->app->loop, &o->work, read_run, read_done);
}

bool android_ocr_usable(const struct backend_call *bc, enum error_code *code, char **err)
{
    *code = ERROR_NOT_SUPPORTED;
    if (!ocr_in_build(err))
        return false;
    /* A malformed lang is the caller's; a missing language pack is not. */
    *code = ERROR_INVALID_ARGUMENT;
    return ocr_lang_check(args_string(bc->args, "lang", "eng"), err);
}

static struct ocr_read *start(struct backend_call *bc, const char *why, bool find)
{
    struct ocr_read *o = xcalloc(1, sizeof *o);
    o->bc = bc;
    o->find = find;
    o->lang = xstrdup(args_string(bc->args, "lang", "eng"));
    o->why = why ? xstrdup(why) : NULL;
    const json_t *region = json_object_get(bc->args, "region");
    if (region) {
        o->x = (int)args_int(region, "x", 0);
        o->y = (int)args_int(region, "y", 0);
        o->w = (int)args_int(region, "width", 0);
        o->h = (int)args_int(region, "height", 0);
    }
    bc->backend_data = o;
    return o;
}

static void capture(struct backend_call *bc)
{
    android_run(bc, ADB_EXEC, "screencap", ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT, captured);
}

void android_read_ocr(struct backend_call *bc, const char *why)
{
    start(bc, why, false);
    capture(bc);
}

void android_find_ocr(struct backend_call *bc)
{
    start(bc, NULL, true);
    capture(bc);
}

void android_locate_ocr(struct backend_call *bc, const char *text, bool exact, android_at_fn at)
{
    struct ocr_read *o = start(bc, NULL, false);
    o->locate = xstrdup(text);
    o->exact = exact;
    o->at = at;
    capture(bc);
}
