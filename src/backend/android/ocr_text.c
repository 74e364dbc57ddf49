/* read_text by OCR on a phone: asked for (ocr: true), or when uiautomator
 * has nothing to say (no text in the window, no dump: "could not get idle
 * state" on an animating screen, a secure window). A raw screencap,
 * decoded on the worker pool, the policy's redact areas painted over
 * before Tesseract sees them (src/ocr/), then read. */
#include "backend/android/internal.h"
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
    char *why; /* the fallback's reason, or NULL when asked for */
    char *text;
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

static void read_run(uv_work_t *w)
{
    struct ocr_read *o = w->data;
    struct frame f;
    uint8_t *raw = o->raw;
    o->raw = NULL;
    o->code = ERROR_TOOL_FAILED;
    if (!android_decode_raw(raw, o->raw_len, &f, &o->code, &o->err))
        return;
    paint(&f, o->bc->guard);
    struct ocr_result r;
    if (ocr_recognize(&f, o->x, o->y, o->w, o->h, o->lang, 0, &r, &o->err)) {
        o->text = xstrdup(r.text);
        ocr_result_finish(&r);
    }
    frame_finish(&f);
}

static void read_done(uv_work_t *w, int status)
{
    (void)status;
    struct ocr_read *o = w->data;
    struct backend_call *bc = o->bc;
    if (!o->text) {
        backend_call_fail_code(bc, o->code, "cannot read text%s%s: %s", o->why ? " (" : "",
                               o->why ? o->why : "", o->err ? o->err : "OCR failed");
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
    free(o);
}

static void captured(struct backend_call *bc, const struct adb_reply *r)
{
    struct ocr_read *o = bc->backend_data;
    bc->backend_data = NULL;
    if (!r->ok) {
        backend_call_fail_code(bc, r->code, "cannot read text: %s", r->error);
        free(o->lang);
        free(o->why);
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

void android_read_ocr(struct backend_call *bc, const char *why)
{
    struct ocr_read *o = xcalloc(1, sizeof *o);
    o->bc = bc;
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
    android_run(bc, ADB_EXEC, "screencap", ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT, captured);
}
