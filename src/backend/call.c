/* Answering a backend call: build the result and hand it to its owner. */
#include "backend/backend.h"
#include "core/xmalloc.h"

#include <stdarg.h>

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
    struct backend_result r = {.error = text};
    bc->finish(bc, &r);
}
