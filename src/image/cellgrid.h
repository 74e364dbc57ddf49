/* A grid of character cells as a terminal shows them. Backends fill it (the
 * terminal backend from its emulator); the glyph renderer turns it into pixels and
 * recordings store it compactly. Colours are resolved to RGB by the backend,
 * inverse video already applied. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

enum cell_attr {
    CELL_BOLD = 1 << 0,
    CELL_ITALIC = 1 << 1,
    CELL_UNDERLINE = 1 << 2,
    CELL_STRIKE = 1 << 3,
    CELL_DIM = 1 << 4,
    CELL_BLINK = 1 << 5,
    CELL_CONCEAL = 1 << 6,
    CELL_DOUBLE_UNDERLINE = 1 << 7,
};

#define CELL_MAX_CHARS 4

struct cell {
    /* Base code point then combining marks, 0-terminated; chars[0] == 0 is blank. */
    uint32_t chars[CELL_MAX_CHARS];
    uint32_t fg;    /* 0xRRGGBB */
    uint32_t bg;    /* 0xRRGGBB */
    uint16_t attrs; /* enum cell_attr bits */
    /* 1, 2 for a wide character, 0 for the right half of a wide one. */
    uint8_t width;
};

struct cell_grid {
    int cols, rows;
    struct cell *cells; /* rows*cols, row-major; owned by whoever filled it */
    int cursor_row, cursor_col;
    bool cursor_visible;
    uint32_t cursor_color; /* 0xRRGGBB */
};

/* Column where the cursor's cell starts (the left half when the cursor sits on
 * the right half of a wide character), or -1 when hidden or off the grid. */
int cellgrid_cursor_col(const struct cell_grid *g);

/* The colours a cell is painted with: dim blends fg halfway to bg; the cursor
 * block paints bg in cursor_color and the glyph in the cell's own bg. */
void cellgrid_cell_colors(const struct cell_grid *g, const struct cell *c, bool cursor,
                          uint32_t *fg, uint32_t *bg);

/* Whether painting c puts any fg pixels down (a visible glyph or a line). */
bool cellgrid_cell_has_ink(const struct cell *c);

/* Add every colour rendering g would use to palette (0xRRGGBB, room for 256;
 * *len in/out). Colours past 256 are dropped: indexed rendering maps them to
 * the nearest entry. Call it over every frame of a recording before writing
 * the GIF, whose palette is fixed up front. */
void cellgrid_collect_palette(const struct cell_grid *g, uint32_t *palette, int *len);
