/* Fonts for the glyph renderer: the primary face in four styles found with
 * fontconfig, fallback faces per code point, and a cache of rasterised glyphs
 * already placed and clipped within their cell. Not thread-safe. */
#pragma once
#include <stdint.h>

struct font_set;

struct font_metrics {
    int cell_w, cell_h; /* pixels */
    int baseline;       /* pixels from the cell top */
    int underline_y, underline_h;
    int strike_y, strike_h;
};

struct glyph {
    uint32_t key;
    int x, y;       /* top-left of the bitmap within the cell span, pixels */
    int w, h;       /* bitmap size, clipped to the span; 0 when blank */
    uint8_t *alpha; /* w*h coverage 0..255, row-major */
};

/* NULL with *err set when no usable font matches. */
struct font_set *font_set_create(const char *family, int pixel_size, char **err);
void font_set_destroy(struct font_set *fs);
const struct font_metrics *font_set_metrics(const struct font_set *fs);

/* The glyph for cp in style (CELL_BOLD | CELL_ITALIC bits) over span cells
 * (1 or 2). Never NULL: a code point no font has becomes a box. Owned by the
 * cache, valid until font_set_destroy. */
const struct glyph *font_set_glyph(struct font_set *fs, uint32_t cp, unsigned style, int span);
