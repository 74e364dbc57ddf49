/* Answering a backend call: build the result and hand it to its owner. */
#include "backend/backend.h"
#include "core/xmalloc.h"
#include "image/encode.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>

const struct screen_guard screen_guard_none = {0};

void backend_call_done(struct backend_call *bc, json_t *data, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.data = data, .text = text};
    bc->finish(bc, &r);
}

void backend_call_done_image(struct backend_call *bc, json_t *data, uint8_t *bytes, size_t len,
                             const char *mime, const char *caption)
{
    struct backend_result r = {
        .data = data, .text = xstrdup(caption), .bytes = bytes, .len = len, .mime = mime};
    bc->finish(bc, &r);
}

void backend_call_fail(struct backend_call *bc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.error = text, .code = ERROR_TOOL_FAILED};
    bc->finish(bc, &r);
}

void backend_call_fail_code(struct backend_call *bc, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.error = text, .code = code};
    bc->finish(bc, &r);
}

void backend_call_done_screenshot(struct backend_call *bc, uint8_t *bytes, size_t len,
                                  enum image_format format, uint32_t width, uint32_t height,
                                  double scale, json_t *extra)
{
    /* The name the caller asked for ("jpeg"), not the file extension ("jpg"). */
    const char *name = format == IMAGE_JPEG ? "jpeg" : image_format_extension(format);
    json_t *o =
        json_pack("{s:s, s:i, s:i, s:s, s:I, s:f}", "session", bc->session->id, "width", (int)width,
                  "height", (int)height, "format", name, "bytes", (json_int_t)len, "scale", scale);
    if (extra)
        json_object_update(o, extra);
    json_decref(extra);
    char caption[160];
    snprintf(caption, sizeof caption, "%s screenshot of %s, %ux%u px%s", name, bc->session->id,
             width, height, scale < 1 ? " (scaled)" : "");
    backend_call_done_image(bc, o, bytes, len, image_format_mime(format), caption);
}

struct backend_hold *backend_call_hold(struct backend_call *bc, json_t *fallback)
{
    if (!bc->hold) {
        json_decref(fallback);
        return NULL;
    }
    return bc->hold(bc, fallback);
}

void backend_hold_release(struct backend_hold *h, json_t *notes)
{
    if (h)
        h->release(h, notes);
    else
        json_decref(notes);
}
