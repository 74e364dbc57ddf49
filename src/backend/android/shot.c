/* Screenshots of a device: `exec:screencap` (raw pixels, no PNG encode on
 * the phone) read over adb, decoded on the worker pool and handed to the
 * shared frame pipeline (backend/frames.h): region, the guard's
 * redactions, scale and encoding as for every kind. Recordings sample the
 * same frames through the shared recorder (backend/frame_recording.h). */
#include "backend/android/internal.h"
#include "backend/frame_recording.h"
#include "backend/frames.h"
#include "core/app.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "image/frame.h"

#include <stdlib.h>
#include <string.h>

struct shot {
    uint8_t *raw;
    size_t raw_len;
    struct android *a;           /* held while check is set */
    struct android_check *check; /* or NULL */
};

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool decode(uint8_t *raw, size_t len, struct frame *f, enum error_code *code, char **err);

/* screencap's raw output: width, height, format (+ colour space on Android
 * 9+: a 16-byte header, else 12), then the pixels. */
bool android_decode_raw(uint8_t *raw, size_t len, struct frame *f, enum error_code *code,
                        char **err)
{
    bool ok = decode(raw, len, f, code, err);
    if (f->rgba != raw)
        free(raw);
    return ok;
}

/* 32-bit pixels become the frame in place: the header moved out, alpha set,
 * BGRA swapped. No second 10 MB buffer (and its page faults) per shot. */
static void adopt(uint8_t *raw, size_t header, uint32_t w, uint32_t h, uint32_t fmt,
                  struct frame *f)
{
    size_t n = (size_t)w * h;
    memmove(raw, raw + header, n * 4);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = raw + i * 4;
        if (fmt == 5) {
            uint8_t b = p[0];
            p[0] = p[2];
            p[2] = b;
        }
        p[3] = 255;
    }
    f->width = w;
    f->height = h;
    f->stride = w * 4;
    f->rgba = raw;
}

static bool decode(uint8_t *raw, size_t len, struct frame *f, enum error_code *code, char **err)
{
    f->rgba = NULL;
    /* exec: ends at the end of the stream, and the adb server closes it too
     * when the device goes away: output cut short is a device that went. */
    if (len < 12) {
        *code = ERROR_DEVICE_UNAVAILABLE;
        *err = xasprintf("screencap wrote %zu bytes, less than its header (did the device go "
                         "away?)",
                         len);
        return false;
    }
    uint32_t w = le32(raw), h = le32(raw + 4), fmt = le32(raw + 8);
    size_t bpp = fmt == 4 ? 2 : fmt == 3 ? 3 : 4;
    if (w == 0 || h == 0 || w > 16384 || h > 16384) {
        *err = xasprintf("screencap reported a %ux%u screen", w, h);
        return false;
    }
    size_t pixels = (size_t)w * h * bpp;
    size_t header = len == 16 + pixels ? 16 : len == 12 + pixels ? 12 : 0;
    if (!header) {
        if (len < 12 + pixels)
            *code = ERROR_DEVICE_UNAVAILABLE;
        *err = xasprintf("screencap wrote %zu bytes for a %ux%u screen (format %u); expected "
                         "%zu after its header",
                         len, w, h, fmt, pixels);
        return false;
    }
    if (fmt != 1 && fmt != 2 && fmt != 3 && fmt != 4 && fmt != 5) {
        *err = xasprintf("screencap's pixel format %u is not supported (expected RGBA_8888, "
                         "RGBX_8888, RGB_888, RGB_565 or BGRA_8888)",
                         fmt);
        return false;
    }
    if (fmt == 1 || fmt == 2 || fmt == 5) {
        adopt(raw, header, w, h, fmt, f);
        return true;
    }
    frame_alloc(f, w, h);
    const uint8_t *src = raw + header;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *d = f->rgba + (size_t)y * f->stride;
        const uint8_t *s = src + (size_t)y * w * bpp;
        for (uint32_t x = 0; x < w; x++, d += 4) {
            if (fmt == 4) {
                uint16_t v = (uint16_t)(s[x * 2] | s[x * 2 + 1] << 8);
                d[0] = (uint8_t)((v >> 11) * 255 / 31);
                d[1] = (uint8_t)(((v >> 5) & 63) * 255 / 63);
                d[2] = (uint8_t)((v & 31) * 255 / 31);
            } else {
                memcpy(d, s + x * 3, 3);
            }
            d[3] = 255;
        }
    }
    return true;
}

/* Worker pool: the raw pixels as the frame; the pipeline crops, paints,
 * scales and encodes. */
static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    struct shot *sh = ud;
    uint8_t *raw = sh->raw;
    sh->raw = NULL;
    if (!android_decode_raw(raw, sh->raw_len, &out->frame, &out->fail_code, err))
        return false;
    android_check_run(sh->check, &out->frame);
    return true;
}

static void release(void *ud)
{
    struct shot *sh = ud;
    if (sh->a) {
        android_check_end(sh->a, sh->check);
        android_release(sh->a);
    }
    free(sh->raw);
    free(sh);
}

/* The frame source of a screencap's output (taken from r). */
static struct frame_source source_of(const struct adb_reply *r)
{
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->raw = adb_reply_take_out(r, &sh->raw_len);
    return (struct frame_source){
        .produce = produce, .release = release, .ud = sh, .failure = "cannot take a screenshot"};
}

static void captured(struct backend_call *bc, const struct adb_reply *r)
{
    struct android *a = android_of(bc->session);
    struct android_check *check = bc->backend_data;
    bc->backend_data = NULL;
    if (!r->ok) {
        if (check) {
            android_check_end(a, check);
            android_release(a);
        }
        backend_call_fail_code(bc, r->code, "cannot take a screenshot: %s", r->error);
        return;
    }
    struct frame_source src = source_of(r);
    struct shot *sh = src.ud;
    if (check) {
        sh->a = a; /* its hold moves to the shot */
        sh->check = check;
    }
    frames_screenshot(bc, &src);
}

void android_screencap_shot(struct backend_call *bc, struct android_check *check)
{
    if (check) /* a, for the check's end, outlives the step */
        android_hold(android_of(bc->session));
    bc->backend_data = check;
    android_run(bc, ADB_EXEC, "screencap", ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT, captured);
}

/* The stream's pictures when they can show what was asked (docs/android.md,
 * "The screen stream"), else a screencap. */
void android_screenshot_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    int max_width = (int)args_int(bc->args, "max_width", 0);
    bool fit = args_bool(bc->args, "fit", true);
    bool region = json_object_get(bc->args, "region") != NULL;
    if (android_stream_fits(a, max_width, fit, region))
        android_stream_screenshot(bc);
    else
        android_screencap_shot(bc, NULL);
}

/* ---- recordings: the same frames, sampled (backend/frame_recording.h) ---- */

static void sampled(void *ud, const struct adb_reply *r)
{
    struct frame_recording *fr = ud;
    if (!r->ok) {
        frame_recording_failed(fr, r->error);
        return;
    }
    struct frame_source src = source_of(r);
    frame_recording_sampled(fr, &src);
}

/* The request copies the server and serial: a sample needs nothing of the
 * session once asked for (the session waits for the recording to be
 * written, android_stop). */
static void record_sample(void *ud, struct frame_recording *fr)
{
    struct android *a = ud;
    adb_request(a->app->loop, &a->srv, a->serial, "exec:screencap", ADB_EXEC,
                ANDROID_SHOT_TIMEOUT_MS, ANDROID_MAX_SHOT, sampled, fr);
}

/* A phone takes 100-500 ms per screencap. */
static const struct frame_recording_kind recording = {.kind = "android",
                                                      .default_fps = 2,
                                                      .max_fps = 10,
                                                      .fps_note = " (each frame is a screencap)",
                                                      .sample = record_sample};

void android_record_start_op(struct backend_call *bc)
{
    struct android *a = android_of(bc->session);
    frame_recording_start(&a->rec, bc, &recording, a);
}

void android_record_stop_op(struct backend_call *bc)
{
    frame_recording_stop(&android_of(bc->session)->rec, bc);
}
