#include "image/cellgrid.h"

#include "image/palette.h"

int cellgrid_cursor_col(const struct cell_grid *g)
{
    if (!g->cursor_visible || g->cursor_row < 0 || g->cursor_row >= g->rows || g->cursor_col < 0 ||
        g->cursor_col >= g->cols)
        return -1;
    const struct cell *row = g->cells + (long)g->cursor_row * g->cols;
    int col = g->cursor_col;
    if (row[col].width == 0 && col > 0 && row[col - 1].width == 2)
        col--;
    return col;
}

static uint32_t blend_half(uint32_t a, uint32_t b)
{
    /* Per-channel average: drop each channel's low bit so sums cannot carry. */
    return ((a & 0xfefefe) >> 1) + ((b & 0xfefefe) >> 1);
}

void cellgrid_cell_colors(const struct cell_grid *g, const struct cell *c, bool cursor,
                          uint32_t *fg, uint32_t *bg)
{
    uint32_t f = c->fg & 0xffffff, b = c->bg & 0xffffff;
    if (c->attrs & CELL_DIM)
        f = blend_half(f, b);
    if (cursor) {
        uint32_t cc = g->cursor_color & 0xffffff;
        /* A glyph in the cursor's own colour would vanish; keep its fg then. */
        f = b != cc ? b : f;
        b = cc;
    }
    *fg = f;
    *bg = b;
}

bool cellgrid_cell_has_ink(const struct cell *c)
{
    if (c->attrs & CELL_CONCEAL)
        return false;
    if (c->attrs & (CELL_UNDERLINE | CELL_DOUBLE_UNDERLINE | CELL_STRIKE))
        return true;
    return c->width != 0 && c->chars[0] > ' ';
}

void cellgrid_collect_palette(const struct cell_grid *g, uint32_t *palette, int *len)
{
    struct palette_map map;
    palette_map_init(&map, palette, len);
    int cursor_col = cellgrid_cursor_col(g);
    for (int r = 0; r < g->rows; r++) {
        const struct cell *row = g->cells + (long)r * g->cols;
        for (int c = 0; c < g->cols && *len < PALETTE_MAX; c += row[c].width == 2 ? 2 : 1) {
            uint32_t fg, bg;
            cellgrid_cell_colors(g, &row[c], r == g->cursor_row && c == cursor_col, &fg, &bg);
            palette_map_index(&map, bg);
            if (cellgrid_cell_has_ink(&row[c]) && *len < PALETTE_MAX)
                palette_map_index(&map, fg);
        }
    }
}
