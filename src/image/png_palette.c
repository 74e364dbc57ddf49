#include "image/png_palette.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing, a power of two well above 256 so probes stay short. */
#define SLOTS 1024
#define USED  0x01000000u

static uint32_t slot_of(uint32_t key)
{
    return (key * 2654435761u) >> 22; /* top 10 bits: 0..SLOTS-1 */
}

bool png_palette_build(const struct frame *f, struct png_palette *p)
{
    uint32_t keys[SLOTS] = {0};
    uint8_t vals[SLOTS];
    p->len = 0;
    p->index = xmalloc((size_t)f->width * f->height);
    /* Runs of one colour are the rule on a screen: the previous pixel's
     * answer first, the table only when the colour changes. */
    uint32_t last = 0xffffffffu;
    uint8_t last_index = 0;
    for (uint32_t y = 0; y < f->height; y++) {
        const uint8_t *src = f->rgba + (size_t)y * f->stride;
        uint8_t *dst = p->index + (size_t)y * f->width;
        for (uint32_t x = 0; x < f->width; x++) {
            uint32_t c = (uint32_t)src[4 * x] | (uint32_t)src[4 * x + 1] << 8 |
                         (uint32_t)src[4 * x + 2] << 16;
            if (c != last) {
                uint32_t k = c | USED, s = slot_of(c);
                while (keys[s] && keys[s] != k)
                    s = (s + 1) & (SLOTS - 1);
                if (!keys[s]) {
                    if (p->len == PNG_PALETTE_MAX) {
                        png_palette_finish(p);
                        return false;
                    }
                    keys[s] = k;
                    vals[s] = (uint8_t)p->len;
                    memcpy(p->rgb + 3 * p->len, src + 4 * x, 3);
                    p->len++;
                }
                last = c;
                last_index = vals[s];
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
