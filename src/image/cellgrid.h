/* A grid of character cells as a terminal shows them. Backends fill it (the
 * terminal backend from libvterm); the glyph renderer turns it into pixels and
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
    uint32_t chars[CELL_MAX_CHARS]; /* base code point then combining marks; 0-terminated; chars[0]==0 is blank */
    uint32_t fg;                    /* 0xRRGGBB */
    uint32_t bg;                    /* 0xRRGGBB */
    uint16_t attrs;                 /* enum cell_attr bits */
    uint8_t width;                  /* 1, 2 for a wide character, 0 for the right half of a wide one */
};

struct cell_grid {
    int cols, rows;
    struct cell *cells; /* rows*cols, row-major; owned by whoever filled it */
    int cursor_row, cursor_col;
    bool cursor_visible;
    uint32_t cursor_color; /* 0xRRGGBB */
};
