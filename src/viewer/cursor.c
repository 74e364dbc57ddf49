/* A frame source's pointer, apart from its frames, for the live viewer's
 * pages: the page draws it as an image above the screen, so the frames'
 * tiles stay untouched when only the pointer moves. Messages:
 *   {type: "cursor", session, shown: true, image: "data:image/png;…",
 *    width, height, hot_x, hot_y, x, y}  — a new shape (x,y the pointer's point)
 *   {type: "cursor", session, x, y}        — the same shape, moved
 *   {type: "cursor", session, shown: false} — none to show */
#include "viewer/cursor.h"

#include "core/base64.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <spng.h>

#include <stdlib.h>
#include <string.h>

static bool same_shape(const struct frame_cursor *a, const struct frame_cursor *b)
{
    return a->width == b->width && a->height == b->height && a->hot_x == b->hot_x &&
           a->hot_y == b->hot_y &&
           memcmp(a->argb, b->argb, (size_t)a->width * a->height * sizeof *a->argb) == 0;
}

/* The shape as a PNG data: URL, its premultiplied ARGB made straight
 * RGBA (libspng: glovebox's own PNG encoder writes opaque screens only);
 * NULL when it cannot be encoded. */
static char *png_url(const struct frame_cursor *c)
{
    size_t n = (size_t)c->width * c->height;
    uint8_t *rgba = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        uint32_t p = c->argb[i], a = p >> 24;
        rgba[4 * i] = (uint8_t)(a ? ((p >> 16) & 0xff) * 255 / a : 0);
        rgba[4 * i + 1] = (uint8_t)(a ? ((p >> 8) & 0xff) * 255 / a : 0);
        rgba[4 * i + 2] = (uint8_t)(a ? (p & 0xff) * 255 / a : 0);
        rgba[4 * i + 3] = (uint8_t)a;
    }
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr = {.width = c->width,
                             .height = c->height,
                             .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA};
    int rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (!rc)
        rc = spng_set_ihdr(ctx, &ihdr);
    if (!rc)
        rc = spng_encode_image(ctx, rgba, n * 4, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    size_t len = 0;
    void *png = rc ? NULL : spng_get_png_buffer(ctx, &len, &rc);
    spng_ctx_free(ctx);
    free(rgba);
    if (!png)
        return NULL;
    char *b64 = base64_encode(png, len);
    free(png);
    struct strbuf s;
    strbuf_init(&s);
    strbuf_puts(&s, "data:image/png;base64,");
    strbuf_puts(&s, b64);
    free(b64);
    return strbuf_steal(&s);
}

json_t *viewer_cursor_update(struct viewer_cursor *vc, const char *session, struct frame_cursor *c,
                             json_t **state)
{
    struct frame_cursor *last = &vc->last;
    int px = c->x + c->hot_x, py = c->y + c->hot_y;
    json_t *msg = NULL;
    if (!c->argb) {
        if (last->argb) /* nothing was ever shown: nothing to say */
            msg = json_pack("{s:s, s:s, s:b}", "type", "cursor", "session", session, "shown", 0);
    } else if (!last->argb || !same_shape(c, last)) {
        char *url = png_url(c);
        if (url)
            msg =
                json_pack("{s:s, s:s, s:b, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "type", "cursor",
                          "session", session, "shown", 1, "image", url, "width", c->width, "height",
                          c->height, "hot_x", c->hot_x, "hot_y", c->hot_y, "x", px, "y", py);
        free(url);
    } else if (c->x != last->x || c->y != last->y) {
        msg = json_pack("{s:s, s:s, s:i, s:i}", "type", "cursor", "session", session, "x", px, "y",
                        py);
    }
    if (!msg) {
        free(c->argb);
        c->argb = NULL;
        return NULL;
    }
    /* The whole state, for pages that join: a new shape or none is the
     * message itself; a move, the last shape at the new point. */
    json_t *whole = json_deep_copy(json_object_get(msg, "shown") ? msg : vc->state);
    if (c->argb) {
        json_object_set_new(whole, "x", json_integer(px));
        json_object_set_new(whole, "y", json_integer(py));
    }
    json_decref(vc->state);
    vc->state = whole;
    /* The loop's own copy: nothing is shared between threads. */
    *state = json_deep_copy(whole);
    free(last->argb);
    *last = *c;
    c->argb = NULL;
    return msg;
}

void viewer_cursor_finish(struct viewer_cursor *vc)
{
    free(vc->last.argb);
    vc->last.argb = NULL;
    json_decref(vc->state);
    vc->state = NULL;
}
