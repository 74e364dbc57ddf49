#include "image/scale.h"

#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* One destination pixel's source range along an axis. Measured in units of
 * 1/(src*dst) a source pixel is dst units long and a destination pixel src
 * units, so every overlap is an exact integer weight and the weights of one
 * destination pixel sum to src. */
struct taps {
    uint32_t first;  /* first source index */
    uint32_t count;  /* source pixels touched (at most src/dst + 2) */
    uint32_t offset; /* into the weights array */
};

static uint32_t *make_taps(uint32_t src, uint32_t dst, struct taps *taps)
{
    uint32_t *w = xmalloc(sizeof(*w) * ((size_t)src + 2 * (size_t)dst));
    uint32_t off = 0;
    for (uint32_t d = 0; d < dst; d++) {
        uint64_t lo = (uint64_t)d * src, hi = lo + src; /* in units */
        uint32_t first = (uint32_t)(lo / dst), last = (uint32_t)((hi - 1) / dst);
        taps[d] = (struct taps){first, last - first + 1, off};
        for (uint32_t s = first; s <= last; s++) {
            uint64_t a = (uint64_t)s * dst, b = a + dst;
            uint64_t from = a > lo ? a : lo, to = b < hi ? b : hi;
            w[off++] = (uint32_t)(to - from);
        }
    }
    return w;
}

/* Weights in fixed point: each destination pixel's weights sum to exactly
 * 1 << WEIGHT_BITS, the remainder of rounding given to its largest tap, so
 * a flat area stays exactly its colour. */
#define WEIGHT_BITS 14
/* The vertical pass keeps 8 bits of fraction (255 << 8 fits 16 bits), so the
 * horizontal sums (16-bit values × 14-bit weights, a few taps) fit 32. */
#define VERTICAL_SHIFT   (WEIGHT_BITS - 8)
#define HORIZONTAL_SHIFT (8 + WEIGHT_BITS)

static uint16_t *fixed_weights(const uint32_t *w, const struct taps *taps, uint32_t n, uint32_t src)
{
    uint32_t total = taps[n - 1].offset + taps[n - 1].count;
    uint16_t *q = xmalloc(sizeof(*q) * total);
    for (uint32_t d = 0; d < n; d++) {
        uint32_t sum = 0, big = taps[d].offset;
        for (uint32_t i = taps[d].offset; i < taps[d].offset + taps[d].count; i++) {
            q[i] = (uint16_t)((((uint64_t)w[i] << WEIGHT_BITS) + src / 2) / src);
            sum += q[i];
            if (w[i] > w[big])
                big = i;
        }
        q[big] = (uint16_t)(q[big] + (1u << WEIGHT_BITS) - sum);
    }
    return q;
}

/* Area averaging, separable: for each destination row the source rows it
 * covers are blended first (contiguous bytes, which the compiler
 * vectorises), then that one row is narrowed. Each source byte is read once
 * per destination row it touches, and every multiply is an integer one. */
static void downscale_general(const struct frame *src, struct frame *dst)
{
    uint32_t sw = src->width, sh = src->height, dw = dst->width, dh = dst->height;
    struct taps *tx = xmalloc(sizeof(*tx) * dw), *ty = xmalloc(sizeof(*ty) * dh);
    uint32_t *wx = make_taps(sw, dw, tx), *wy = make_taps(sh, dh, ty);
    uint16_t *qx = fixed_weights(wx, tx, dw, sw), *qy = fixed_weights(wy, ty, dh, sh);
    size_t row_bytes = (size_t)sw * 4;
    uint32_t *vsum = xmalloc(sizeof(*vsum) * row_bytes);
    uint16_t *vrow = xmalloc(sizeof(*vrow) * row_bytes);
    for (uint32_t y = 0; y < dh; y++) {
        const uint8_t *first = src->rgba + (size_t)ty[y].first * src->stride;
        uint32_t w0 = qy[ty[y].offset];
        for (size_t i = 0; i < row_bytes; i++)
            vsum[i] = first[i] * w0;
        for (uint32_t k = 1; k < ty[y].count; k++) {
            const uint8_t *row = first + (size_t)k * src->stride;
            uint32_t wk = qy[ty[y].offset + k];
            for (size_t i = 0; i < row_bytes; i++)
                vsum[i] += row[i] * wk;
        }
        for (size_t i = 0; i < row_bytes; i++)
            vrow[i] = (uint16_t)((vsum[i] + (1u << (VERTICAL_SHIFT - 1))) >> VERTICAL_SHIFT);
        uint8_t *out = dst->rgba + (size_t)y * dst->stride;
        for (uint32_t x = 0; x < dw; x++) {
            const uint16_t *p = vrow + (size_t)tx[x].first * 4;
            const uint16_t *w = qx + tx[x].offset;
            uint32_t r = 1u << (HORIZONTAL_SHIFT - 1), g = r, b = r;
            for (uint32_t i = 0; i < tx[x].count; i++, p += 4) {
                r += p[0] * (uint32_t)w[i];
                g += p[1] * (uint32_t)w[i];
                b += p[2] * (uint32_t)w[i];
            }
            out[x * 4] = (uint8_t)(r >> HORIZONTAL_SHIFT);
            out[x * 4 + 1] = (uint8_t)(g >> HORIZONTAL_SHIFT);
            out[x * 4 + 2] = (uint8_t)(b >> HORIZONTAL_SHIFT);
            out[x * 4 + 3] = 255;
        }
    }
    free(vrow);
    free(vsum);
    free(qx);
    free(qy);
    free(wx);
    free(wy);
    free(tx);
    free(ty);
}

/* Whole-number factors: plain block averages, no weights. */
static void downscale_integer(const struct frame *src, struct frame *dst, uint32_t fx, uint32_t fy)
{
    uint32_t dw = dst->width;
    uint32_t *acc = xmalloc(sizeof(*acc) * dw * 3);
    float inv = 1.0f / (float)(fx * fy);
    for (uint32_t y = 0; y < dst->height; y++) {
        memset(acc, 0, sizeof(*acc) * dw * 3);
        for (uint32_t k = 0; k < fy; k++) {
            const uint8_t *p = src->rgba + (size_t)(y * fy + k) * src->stride;
            for (uint32_t x = 0; x < dw; x++) {
                uint32_t r = 0, g = 0, b = 0;
                for (uint32_t i = 0; i < fx; i++, p += 4) {
                    r += p[0];
                    g += p[1];
                    b += p[2];
                }
                acc[x * 3] += r;
                acc[x * 3 + 1] += g;
                acc[x * 3 + 2] += b;
            }
        }
        uint8_t *out = dst->rgba + (size_t)y * dst->stride;
        for (uint32_t x = 0; x < dw; x++) {
            out[x * 4] = (uint8_t)((float)acc[x * 3] * inv + 0.5f);
            out[x * 4 + 1] = (uint8_t)((float)acc[x * 3 + 1] * inv + 0.5f);
            out[x * 4 + 2] = (uint8_t)((float)acc[x * 3 + 2] * inv + 0.5f);
            out[x * 4 + 3] = 255;
        }
    }
    free(acc);
}

void image_downscale(const struct frame *src, uint32_t dst_width, struct frame *dst)
{
    uint32_t sw = src->width, sh = src->height;
    if (dst_width > sw)
        dst_width = sw;
    if (dst_width == 0)
        dst_width = 1;
    uint32_t dh = sw ? (uint32_t)(((uint64_t)sh * dst_width + sw / 2) / sw) : 0;
    if (dh == 0 && sh > 0)
        dh = 1;
    dst->width = sw ? dst_width : 0;
    dst->height = dh;
    dst->stride = dst->width * 4;
    dst->rgba = xmalloc((size_t)dst->stride * dh);
    if (dst->width == 0 || dh == 0)
        return;
    if (dst->width == sw && dh == sh) {
        for (uint32_t y = 0; y < sh; y++)
            memcpy(dst->rgba + (size_t)y * dst->stride, src->rgba + (size_t)y * src->stride,
                   dst->stride);
    } else if (sw % dst->width == 0 && sh % dh == 0) {
        downscale_integer(src, dst, sw / dst->width, sh / dh);
    } else {
        downscale_general(src, dst);
    }
}
