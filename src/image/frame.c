#include "image/frame.h"

#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

void frame_init(struct frame *f, uint32_t width, uint32_t height)
{
    f->width = width;
    f->height = height;
    f->stride = width * 4;
    size_t n = (size_t)width * height;
    f->rgba = xmalloc(n * 4);
    /* Opaque black is 0,0,0,255 in every pixel. */
    uint8_t *p = f->rgba;
    for (size_t i = 0; i < n; i++, p += 4) {
        p[0] = p[1] = p[2] = 0;
        p[3] = 255;
    }
}

void frame_alloc(struct frame *f, uint32_t width, uint32_t height)
{
    f->width = width;
    f->height = height;
    f->stride = width * 4;
    f->rgba = xmalloc((size_t)width * height * 4);
}

void frame_finish(struct frame *f)
{
    if (!f)
        return;
    free(f->rgba);
    f->rgba = NULL;
    f->width = f->height = f->stride = 0;
}
