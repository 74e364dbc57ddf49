/* glovebox's terminal emulator: what a program prints (through vt_parse)
 * applied to a grid of cells, xterm-like. Every number a program sends is
 * clamped to the screen; nothing it prints makes the screen allocate beyond
 * its rows (strings are capped in vt_parse). Single threaded.
 *
 * Rows are arrays of cells reached through an array of pointers, so
 * scrolling moves pointers, not cells. A row knows how far it may hold
 * anything (used): the cells past it are blank, so clearing a row costs what
 * was written to it. Lines scrolling off the top of the main screen are
 * handed to the owner (scrollback) straight from their row. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/terminal/vt_parse.h"

#define VT_CELL_CHARS 4 /* a base character and up to 3 combining marks */

/* Colours: 0 is the default (fg or bg by the slot), else a palette index or
 * an RGB value with its kind in the top byte. */
#define VT_COLOR_DEFAULT  0u
#define VT_COLOR_INDEX(i) (0x01000000u | (uint32_t)(i))
#define VT_COLOR_RGB(rgb) (0x02000000u | ((uint32_t)(rgb)&0xFFFFFF))
#define VT_COLOR_KIND(c)  ((c) >> 24)

enum vt_attr {
    VT_BOLD = 1 << 0,
    VT_DIM = 1 << 1,
    VT_ITALIC = 1 << 2,
    VT_UNDERLINE = 1 << 3,
    VT_DOUBLE_UNDERLINE = 1 << 4,
    VT_BLINK = 1 << 5,
    VT_REVERSE = 1 << 6,
    VT_CONCEAL = 1 << 7,
    VT_STRIKE = 1 << 8,
};

enum vt_wide { VT_NARROW = 0, VT_WIDE_LEFT = 1, VT_WIDE_RIGHT = 2 };

/* All zero is a blank cell in the default colours. */
struct vt_cell {
    uint32_t ch[VT_CELL_CHARS]; /* ch[0] == 0: blank; marks after the base, 0-terminated */
    uint32_t fg, bg;
    uint16_t attrs; /* enum vt_attr */
    uint8_t wide;   /* enum vt_wide */
    uint8_t unused;
};

struct vt_row {
    struct vt_cell *cells;
    int used; /* cells at and past it are blank (all zero) */
    /* The row's text, kept for the owner until the row changes (see
     * term_screen_append_line); it moves with the row when lines scroll. */
    char *text;
    uint32_t text_len, text_cap;
    bool text_ok;
};

struct vt_screen_cbs {
    /* Bytes for the program: answers to queries. */
    void (*output)(void *ud, const char *buf, size_t len);
    /* A line scrolled off the top of the main screen (n cells; past n blank). */
    void (*push_line)(void *ud, const struct vt_cell *cells, int n);
    /* Take the newest pushed line back into cells[0..cols) (already blank);
     * false when there is none. */
    bool (*pop_line)(void *ud, struct vt_cell *cells, int cols);
    /* OSC 0/2: the raw bytes, for the owner to clean. */
    void (*title)(void *ud, const char *text, size_t len);
};

struct vt_pen {
    uint32_t fg, bg;
    uint16_t attrs;
};

struct vt_saved {
    int row, col;
    bool wrap_pending, origin;
    struct vt_pen pen;
    int gl;
    char g[4];
};

struct vt_screen {
    struct vt_parser parser;
    struct vt_screen_cbs cbs;
    void *ud;

    int cols, rows;
    struct vt_row **row;          /* the screen shown: main or alt */
    struct vt_row **main, **altb; /* each rows long */
    struct vt_row **scratch;      /* rows long, for moving rows */
    bool alt;

    int cur_row, cur_col;
    bool wrap_pending;
    struct vt_pen pen;
    struct vt_cell blank;     /* what erasing writes: the pen's background */
    int top, bottom;          /* scroll region, inclusive */
    uint8_t *tabs;            /* cols entries */
    struct vt_saved saved[2]; /* main, alternate */

    int gl;             /* 0: G0, 1: G1 */
    char g[4];          /* 'B' ASCII, '0' DEC line drawing, 'A' UK */
    bool plain_charset; /* GL is ASCII: text needs no mapping */

    uint32_t last_char;                     /* for REP; 0: none */
    uint32_t last_marks[VT_CELL_CHARS - 1]; /* combining marks it took, 0-terminated */

    /* Modes. */
    bool autowrap, origin, insert, newline, reverse_screen, cursor_visible;
    bool app_cursor, app_keypad, bracketed_paste, focus_events;
    int mouse; /* the last mouse tracking mode set (tracked, not acted upon) */
    int cursor_shape;

    bool lazy;        /* rows clear only what they used (see used); off to compare in tests */
    uint64_t changes; /* bumped by every visible change */
    uint64_t dropped; /* sequences understood but not implemented */
};

void vt_screen_init(struct vt_screen *s, int cols, int rows, const struct vt_screen_cbs *cbs,
                    void *ud);
void vt_screen_finish(struct vt_screen *s);
void vt_screen_feed(struct vt_screen *s, const char *bytes, size_t len);
/* cols >= 2, rows >= 1. Rows grow from the pushed lines (pop_line) and
 * shrink by pushing lines off the top when the cursor would be cut off. */
void vt_screen_resize(struct vt_screen *s, int cols, int rows);
/* Dropped sequences: the parser's and the screen's. */
uint64_t vt_screen_dropped(const struct vt_screen *s);
/* DECRQSS-style description of the pen, as SGR parameters ("0;1;31"). */
void vt_screen_sgr_string(const struct vt_screen *s, char *buf, size_t size);
