/* Renders a cell grid to pixels with FreeType, using a monospace font found
 * with fontconfig and per-character fallback fonts for glyphs it lacks.
 * Glyph bitmaps are cached; a renderer is used from one thread at a time. */
#pragma once
#include "image/cellgrid.h"
#include "image/frame.h"

#include <stdbool.h>

struct glyph_renderer;

/* family: fontconfig pattern such as "DejaVu Sans Mono" (NULL = that default).
 * pixel_size: glyph height in pixels (e.g. 16). On failure returns NULL and
 * sets *err to a message the caller frees. */
struct glyph_renderer *glyph_renderer_create(const char *family, int pixel_size, char **err);
void glyph_renderer_destroy(struct glyph_renderer *r);

/* Size of one cell in pixels. */
void glyph_renderer_cell_size(const struct glyph_renderer *r, int *width, int *height);

/* Render the grid into *out (allocated here, cols*cell_w × rows*cell_h).
 * Antialiased glyphs. */
void glyph_renderer_render(struct glyph_renderer *r, const struct cell_grid *grid,
                           struct frame *out);

/* Render into palette indices for GIF: every pixel is exactly the fg or bg of
 * its cell (glyph coverage thresholded), so the colour count is the grid's.
 * palette/palette_len are in/out: colours are looked up and appended (0xRRGGBB,
 * at most 256; beyond that the nearest existing entry is used).
 * *indices is allocated here (width*height bytes). */
void glyph_renderer_render_indexed(struct glyph_renderer *r, const struct cell_grid *grid,
                                   uint32_t *palette, int *palette_len, uint8_t **indices,
                                   int *width, int *height);
