/* A frame as palette indices, for PNG colour type 3: a terminal shows few
 * colours, and one byte a pixel is a third of what deflate gets through
 * for RGB. Glyph antialiasing blends foreground into background, so the
 * colours are counted, not assumed: a frame with more than 256 is left to
 * RGB. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct frame;

#define PNG_PALETTE_MAX 256

struct png_palette {
    int len;                          /* entries in use, 1..256 */
    uint8_t rgb[PNG_PALETTE_MAX * 3]; /* R, G, B per entry, as in PLTE */
    uint8_t *index;                   /* width × height, one a pixel; malloc'd */
};

/* Fills *p and returns true when f has at most 256 colours (alpha is
 * ignored: frames are opaque); false, with nothing to free, otherwise.
 * Stops at the 257th colour, so a colourful frame costs little. */
bool png_palette_build(const struct frame *f, struct png_palette *p);
void png_palette_finish(struct png_palette *p);
