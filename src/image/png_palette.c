#include "image/png_palette.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing, a power of two well above 256 so probes stay short. */
#define SLOTS 1024

static uint32_t slot_of(uint32_t key)
{
    return (key * 2654435761u) >> 22; /* top 10 bits: 0..SLOTS-1 */
}

/* The index of colour c (a whole RGBA word, alpha set, so never 0, the
 * empty slot), added if new; -1 past 256 colours. */
static int lookup(uint32_t *keys, uint8_t *vals, struct png_palette *p, uint32_t c)
{
    uint32_t s = slot_of(c);
    while (keys[s] && keys[s] != c)
        s = (s + 1) & (SLOTS - 1);
    if (!keys[s]) {
        if (p->len == PNG_PALETTE_MAX)
            return -1;
        keys[s] = c;
        vals[s] = (uint8_t)p->len;
        memcpy(p->rgb + 3 * p->len, &c, 3); /* R, G, B: the word's first bytes */
        p->len++;
    }
    return vals[s];
}

bool png_palette_build(const struct frame *f, struct png_palette *p)
{
    uint32_t keys[SLOTS] = {0};
    uint8_t vals[SLOTS];
    p->len = 0;
    p->index = xmalloc((size_t)f->width * f->height);
    const size_t row_bytes = (size_t)f->width * 4;
    /* Runs of one colour are the rule on a screen: the previous pixel's
     * answer first, the table only when the colour changes; and a row the
     * same as the one above (a cell row's blank top and bottom) is copied. */
    uint32_t last = 0;
    uint8_t last_index = 0;
    /* Alpha set in every key, whatever a source left there: no key is 0. */
    static const uint8_t opaque_bytes[4] = {0, 0, 0, 255};
    uint32_t opaque;
    memcpy(&opaque, opaque_bytes, 4);
    for (uint32_t y = 0; y < f->height; y++) {
        const uint8_t *src = f->rgba + (size_t)y * f->stride;
        uint8_t *dst = p->index + (size_t)y * f->width;
        if (y > 0 && memcmp(src, src - f->stride, row_bytes) == 0) {
            memcpy(dst, dst - f->width, f->width);
            continue;
        }
        for (uint32_t x = 0; x < f->width; x++) {
            uint32_t c;
            memcpy(&c, src + 4 * x, 4);
            c |= opaque;
            if (c != last) {
                int i = lookup(keys, vals, p, c);
                if (i < 0) {
                    png_palette_finish(p);
                    return false;
                }
                last = c;
                last_index = (uint8_t)i;
            }
            dst[x] = last_index;
        }
    }
    return true;
}

void png_palette_finish(struct png_palette *p)
{
    free(p->index);
    p->index = NULL;
    p->len = 0;
}
