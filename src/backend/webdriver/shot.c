/* screenshot on webdriver sessions: password fields' places (one script),
 * then the endpoint's PNG of the viewport: passed on as it is when nothing
 * is to be painted, cropped or scaled, else decoded on the worker pool and
 * handed to the shared frame pipeline (backend/frames.h). */
#define LOG_MODULE "webdriver"
#include "backend/frame_recording.h"
#include "backend/frames.h"
#include "backend/webdriver/internal.h"

#include "core/app.h"
#include "core/args.h"
#include "core/base64.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "image/frame.h"
#include "session/session.h"

#include <spng.h>
#include <stdio.h>
#include <string.h>

/* Password fields painted over: at most this many. */
#define MAX_SECRETS 64
/* Pixels a decoded screenshot may have (a 16k x 16k page). */
#define MAX_PIXELS (16384u * 16384u)

/* The viewport rectangles of visible password fields, in device pixels,
 * in the page, its open shadow roots and the same-origin iframes in it
 * (each clipped to its iframe's box), and the cross-origin iframes it
 * cannot look into: the walk enters those and runs it again there
 * (frames.c). Arguments as a snapshot's (perceive.c): [0] the most
 * rectangles; [4], [5] where this page's viewport is in the top page and
 * [6] the box it shows in ([x0, y0, x1, y1, devicePixelRatio], CSS pixels
 * of the top page; null: the top page itself). Returns, as JSON text,
 * [rectangles, their number, [[index, x, y, box, number]…] of the
 * cross-origin iframes], those kept in window.__glovebox_shot_frames under
 * their numbers. A same-origin frame nested too deep is painted over
 * whole. Shadow roots are found by a walk over the elements (~1.6 ms on a
 * page of 15,000; docs/BENCHMARKS.md). */
static const char SECRETS_SCRIPT[] =
    "var max=arguments[0]||64,bx=arguments[4]||0,by=arguments[5]||0,clip=arguments[6]||null,"
    "out=[],xf=[],fm=new Map(),nf=1;window.__glovebox_shot_frames=fm;"
    "function cut(c,x0,y0,x1,y1){return c?[Math.max(c[0],x0),Math.max(c[1],y0),"
    "Math.min(c[2],x1),Math.min(c[3],y1)]:[x0,y0,x1,y1];}"
    "function put(r,d){if(r[2]>r[0]&&r[3]>r[1]&&out.length<max)out.push([Math.floor(r[0]*d),"
    "Math.floor(r[1]*d),Math.ceil((r[2]-r[0])*d)+1,Math.ceil((r[3]-r[1])*d)+1]);}"
    /* root: a document or a shadow root of v's document. */
    "function scan(root,v,dx,dy,c,depth){var d=v.devicePixelRatio||1;"
    "root.querySelectorAll('input[type=password]').forEach(function(e){"
    "var b=e.getBoundingClientRect();if(b.width>0&&b.height>0)"
    "put(cut(c,b.left+dx,b.top+dy,b.right+dx,b.bottom+dy),d);});"
    "root.querySelectorAll('iframe,frame').forEach(function(f){var b=f.getBoundingClientRect();"
    "if(b.width<=0||b.height<=0)return;var s=v.getComputedStyle(f),pl=parseFloat(s.paddingLeft),"
    "pt=parseFloat(s.paddingTop),x=b.left+f.clientLeft+pl+dx,y=b.top+f.clientTop+pt+dy,"
    "k=cut(c,x,y,x+f.clientWidth-pl-parseFloat(s.paddingRight),"
    "y+f.clientHeight-pt-parseFloat(s.paddingBottom));if(k[2]<=k[0]||k[3]<=k[1])return;"
    "var fd=null;try{fd=f.contentDocument;}catch(err){}"
    "if(fd&&depth<8)scan(fd,fd.defaultView,x,y,k,depth+1);"
    "else if(fd)put(k,d);else{var n=nf++;fm.set(n,f);k.push(d);xf.push([out.length,x,y,k,n]);}"
    "});"
    "var w=(root.ownerDocument||root).createTreeWalker(root,1);"
    "while(w.nextNode())if(w.currentNode.shadowRoot)scan(w.currentNode.shadowRoot,v,dx,dy,c,depth);"
    "}"
    "scan(document,window,bx,by,clip,0);return JSON.stringify([out,out.length,xf]);";

struct shot {
    struct backend_call *bc;    /* a screenshot's, or */
    struct frame_recording *fr; /* a recording's sample */
    char *b64;                  /* the endpoint's PNG */
    struct screen_rect secrets[MAX_SECRETS];
    int n_secrets;
};

static bool decode_png(const uint8_t *png, size_t len, struct frame *f, char **err)
{
    /* Checksums are not verified: decoding is most of glovebox's share of a
     * screenshot (bench/webdriver_bench.mjs), the image came over TCP from
     * the endpoint, and a corrupt one still decodes within its bounds. */
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_IGNORE_ADLER32);
    struct spng_ihdr ihdr;
    size_t size;
    int rc = spng_set_crc_action(ctx, SPNG_CRC_USE, SPNG_CRC_USE);
    if (!rc)
        rc = spng_set_png_buffer(ctx, png, len);
    if (!rc)
        rc = spng_get_ihdr(ctx, &ihdr);
    if (!rc && (uint64_t)ihdr.width * ihdr.height > MAX_PIXELS) {
        spng_ctx_free(ctx);
        *err = xasprintf("the screenshot is too large (%ux%u)", ihdr.width, ihdr.height);
        return false;
    }
    if (!rc)
        rc = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &size);
    if (rc) {
        spng_ctx_free(ctx);
        *err = xasprintf("the endpoint's screenshot is not a PNG: %s", spng_strerror(rc));
        return false;
    }
    frame_alloc(f, ihdr.width, ihdr.height);
    rc = spng_decode_image(ctx, f->rgba, (size_t)f->stride * f->height, SPNG_FMT_RGBA8,
                           SPNG_DECODE_TRNS);
    spng_ctx_free(ctx);
    if (rc) {
        frame_finish(f);
        *err = xasprintf("the endpoint's screenshot is not a PNG: %s", spng_strerror(rc));
        return false;
    }
    for (size_t i = 3; i < (size_t)f->stride * f->height; i += 4)
        f->rgba[i] = 0xff;
    return true;
}

/* Worker pool: the endpoint's PNG as the frame, with the password fields
 * the script found; the pipeline crops, paints, scales and encodes. */
static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    struct shot *sh = ud;
    size_t len;
    uint8_t *png = (uint8_t *)base64_decode(sh->b64, strlen(sh->b64), &len);
    if (!png) {
        *err = xstrdup("the endpoint's screenshot is not base64");
        return false;
    }
    bool ok = decode_png(png, len, &out->frame, err);
    free(png);
    if (!ok)
        return false;
    memcpy(out->secrets, sh->secrets, (size_t)sh->n_secrets * sizeof sh->secrets[0]);
    out->n_secrets = sh->n_secrets;
    return true;
}

static void shot_free(struct shot *sh)
{
    free(sh->b64);
    free(sh);
}

static void release(void *ud)
{
    shot_free(ud);
}

/* The size in a base64 PNG's header (its signature and IHDR, in the first
 * 24 bytes), or false when it is not one. */
static bool png_size(const char *b64, uint32_t *width, uint32_t *height)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    char head[33];
    if (strnlen(b64, 32) < 32)
        return false;
    memcpy(head, b64, 32);
    head[32] = '\0';
    size_t len;
    uint8_t *p = (uint8_t *)base64_decode(head, 32, &len);
    bool ok = p && len >= 24 && memcmp(p, signature, 8) == 0 && memcmp(p + 12, "IHDR", 4) == 0;
    if (ok) {
        *width = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19];
        *height = (uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 | (uint32_t)p[22] << 8 | p[23];
        ok = *width > 0 && *height > 0 && *width <= 16384 && *height <= 16384;
    }
    free(p);
    return ok;
}

/* The viewport's size, as the endpoint's PNG says it: what pointer
 * coordinates are checked against and what computer's coordinate space is
 * made from, for endpoints whose window glovebox did not size. */
static void learn_size(struct wd *w, const char *b64)
{
    /* A device's screenshot may be in pixels where its actions take points
     * (iOS): native sessions keep the window's size. */
    uint32_t width, height;
    if (!w->native && png_size(b64, &width, &height)) {
        w->width = (int)width;
        w->height = (int)height;
    }
}

/* Answers the call with the endpoint's PNG as it is when the pipeline would
 * only decode and encode it again — nothing to paint, crop or scale, PNG
 * asked, within what clients take — or returns false. That decode and
 * encode were most of glovebox's share of a screenshot
 * (docs/BENCHMARKS.md, WebDriver). */
static bool pass_through(struct shot *sh)
{
    struct backend_call *bc = sh->bc;
    uint32_t width, height;
    if (!bc || sh->n_secrets || (bc->guard && bc->guard->n_redact) ||
        !png_size(sh->b64, &width, &height))
        return false;
    const char *format = args_string(bc->args, "format", "png");
    const char *as = args_string(bc->args, "as", "image");
    int max_width = (int)args_int(bc->args, "max_width", 0);
    bool fit = args_bool(bc->args, "fit", true);
    if ((format && strcmp(format, "png") != 0) || (as && strcmp(as, "image") != 0) ||
        json_object_get(bc->args, "region") || (max_width > 0 && (uint32_t)max_width < width) ||
        (fit && max_width <= 0 && frames_fit_width(width, height) != width))
        return false;
    size_t len;
    uint8_t *png = (uint8_t *)base64_decode(sh->b64, strlen(sh->b64), &len);
    if (!png || (fit && max_width <= 0 && len > FRAMES_FIT_BYTES)) {
        free(png);
        return false;
    }
    json_t *o =
        json_pack("{s:s, s:i, s:i, s:s, s:I, s:f}", "session", bc->session->id, "width", (int)width,
                  "height", (int)height, "format", "png", "bytes", (json_int_t)len, "scale", 1.0);
    char caption[160];
    snprintf(caption, sizeof caption, "png screenshot of %s, %ux%u px", bc->session->id, width,
             height);
    backend_call_done_image(bc, o, png, len, "image/png", caption);
    return true;
}

/* The shot cannot be taken: the call or the recording hears why. */
static void shot_failed(struct shot *sh, enum error_code code, const char *err)
{
    if (sh->bc)
        backend_call_fail_code(sh->bc, code, "cannot take a screenshot: %s", err);
    else
        frame_recording_failed(sh->fr, err);
    shot_free(sh);
}

static void got_b64(struct wd *w, struct shot *sh, char *b64);

static void got_png(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct shot *sh = ud;
    if (err) {
        shot_failed(sh, code, err);
        return;
    }
    if (!json_is_string(value)) {
        char *msg = xasprintf("%s sent no image", w->shown);
        shot_failed(sh, ERROR_TOOL_FAILED, msg);
        free(msg);
        return;
    }
    got_b64(w, sh, xstrdup(json_string_value(value)));
}

/* The viewport's PNG (base64, stolen): passed on, or to the pipeline. */
static void got_b64(struct wd *w, struct shot *sh, char *b64)
{
    sh->b64 = b64;
    learn_size(w, sh->b64);
    if (pass_through(sh)) {
        shot_free(sh);
        return;
    }
    struct frame_source src = {
        .produce = produce, .release = release, .ud = sh, .failure = "cannot take a screenshot"};
    if (sh->bc)
        frames_screenshot(sh->bc, &src);
    else
        frame_recording_sampled(sh->fr, &src);
}

/* The password fields' rectangles, from the page and its frames: then the
 * picture. */
/* A number the page's script computed, as pixels. The page can make it
 * anything (a tampered getBoundingClientRect): converting an out-of-range
 * double to int is undefined, so it is clamped first; beyond ±2^24 px the
 * rectangle covers the whole picture either way. */
static int page_px(const json_t *v)
{
    double d = json_number_value(v);
    if (!(d > -16777216.0))
        return d != d ? 0 : -16777216;
    return d < 16777216.0 ? (int)d : 16777216;
}

static void got_rects(struct wd *w, void *ud, json_t *rows, size_t total, enum error_code code,
                      const char *err)
{
    (void)total;
    struct shot *sh = ud;
    /* A walk through the frames that failed: what is in them is not
     * known, so no picture of them. */
    if (err) {
        json_decref(rows);
        shot_failed(sh, code, err);
        return;
    }
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (sh->n_secrets >= MAX_SECRETS)
            break;
        sh->secrets[sh->n_secrets++] =
            (struct screen_rect){page_px(json_array_get(r, 0)), page_px(json_array_get(r, 1)),
                                 page_px(json_array_get(r, 2)), page_px(json_array_get(r, 3))};
    }
    json_decref(rows);
    /* The page has not changed since the last capture (cast.c): that
     * one; else a capture, on the browser's own socket if it has one. */
    const char *picture = wd_cast_frame(w);
    log_debug("%s: screenshot from %s", w->session->id,
              picture ? "the last capture" : "a new capture");
    if (picture)
        got_b64(w, sh, xstrdup(picture));
    else if (!wd_cast_capture(w, got_png, sh))
        wd_command_quiet(w, "GET", "/screenshot", NULL, got_png, sh);
}

static void got_secrets(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    /* No script (a native app context): only the guard's areas. A device
     * that is gone fails here already. */
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED ||
                code == ERROR_TIMEOUT)) {
        shot_failed(ud, code, err);
        return;
    }
    json_t *doc = json_is_string(value) ? json_loads(json_string_value(value), 0, NULL) : NULL;
    json_t *rows = json_array_get(doc, 0), *xf = json_array_get(doc, 2);
    rows = json_is_array(rows) ? json_incref(rows) : json_array();
    if (!err && json_array_size(xf))
        /* Cross-origin iframes: their fields are found in there. */
        wd_frames_secrets(w, rows, xf, SECRETS_SCRIPT, MAX_SECRETS, got_rects, ud);
    else
        got_rects(w, ud, rows, 0, 0, NULL);
    json_decref(doc);
}

static void take(struct wd *w, struct shot *sh)
{
    wd_script(w, SECRETS_SCRIPT, json_pack("[i]", MAX_SECRETS), got_secrets, sh);
}

void wd_screenshot_op(struct backend_call *bc)
{
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->bc = bc;
    take(wd_of(bc->session), sh);
}

/* ---- recordings: the same frames, sampled (backend/frame_recording.h) ---- */

static void record_sample(void *ud, struct frame_recording *fr)
{
    struct shot *sh = xcalloc(1, sizeof *sh);
    sh->fr = fr;
    take(ud, sh);
}

/* A sample is two WebDriver commands and a PNG decode: a few a second. */
static const struct frame_recording_kind recording = {
    .kind = "webdriver", .default_fps = 2, .max_fps = 10, .sample = record_sample};

void wd_record_start_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    frame_recording_start(&w->rec, bc, &recording, w);
}

void wd_record_stop_op(struct backend_call *bc)
{
    frame_recording_stop(&wd_of(bc->session)->rec, bc);
}
