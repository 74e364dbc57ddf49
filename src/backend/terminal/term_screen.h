/* A terminal screen: glovebox's emulator (vt_screen, vt_parse) fed with a
 * program's output, plus scrollback, title and mode tracking, read back as
 * text or as a cell grid. Single threaded: every call on one screen comes
 * from the same thread. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cell_grid;
struct strbuf;
struct vt_screen;

/* The default colours (a dark theme), 0xRRGGBB. */
#define TERM_SCREEN_DEFAULT_FG 0xD4D4D4
#define TERM_SCREEN_DEFAULT_BG 0x1E1E1E
#define TERM_SCREEN_CURSOR     0xAEAFAD

/* Sizes are clamped to these: a wide character needs two columns. */
#define TERM_SCREEN_MIN_COLS       2
#define TERM_SCREEN_MAX_DIM        1000    /* cols and rows */
#define TERM_SCREEN_MAX_SCROLLBACK 1000000 /* lines */

struct term_screen;

/* Bytes the emulator sends to the program (answers to DA/DSR queries, encoded
 * keys, typed text). Called synchronously from feed and the key functions. */
typedef void term_screen_output_fn(const char *buf, size_t len, void *ud);

struct term_screen *term_screen_create(int cols, int rows, int scrollback_lines);
void term_screen_destroy(struct term_screen *s); /* accepts NULL */

void term_screen_set_output(struct term_screen *s, term_screen_output_fn *cb, void *ud);
/* cb runs at the end of a feed or resize that changed anything visible
 * (cells, cursor, title, modes). */
void term_screen_set_damage_cb(struct term_screen *s, void (*cb)(void *ud), void *ud);

/* Program output, any bytes at all. */
void term_screen_feed(struct term_screen *s, const char *bytes, size_t len);
/* Escape sequences, strings and controls dropped so far: those the emulator
 * does not implement (hyperlinks, clipboard, sixel, window operations, ...)
 * and those cut short or past a limit (see vt_parse.h); logged at info
 * level at the first and at each power of two. */
uint64_t term_screen_dropped(const struct term_screen *s);
/* Rows clear only the cells they used and scrollback takes only what a line
 * holds (on by default; the result is the same). Off only to compare in
 * tests. */
void term_screen_set_fast_scroll(struct term_screen *s, bool on);
/* Lines scrolled off the top return from scrollback when rows grow; when
 * rows shrink, blank rows below the cursor go first, then lines off the top.
 * No reflow: narrowing cuts lines, widening pads them. */
void term_screen_resize(struct term_screen *s, int cols, int rows);
/* Send bytes to the program through the output callback. */
void term_screen_send(struct term_screen *s, const char *bytes, size_t len);

void term_screen_size(const struct term_screen *s, int *cols, int *rows);
/* Bumped by every visible change, so a poller can tell whether to look. */
uint64_t term_screen_changes(const struct term_screen *s);

/* Text is UTF-8: trailing blanks trimmed, a wide character once, combining
 * marks kept. Appends visible row (0-based) to out; nothing if out of range. */
void term_screen_append_line(const struct term_screen *s, int row, struct strbuf *out);
/* The visible screen, rows joined by '\n', trailing empty rows dropped.
 * Caller frees. */
char *term_screen_text(const struct term_screen *s);

/* Lines held in scrollback; index 0 is the oldest. */
int term_screen_scrollback_count(const struct term_screen *s);
void term_screen_append_scrollback_line(const struct term_screen *s, int index, struct strbuf *out);
/* The newest n scrollback lines, oldest first, joined by '\n'. Caller frees. */
char *term_screen_scrollback_text(const struct term_screen *s, int n);

void term_screen_cursor(const struct term_screen *s, int *row, int *col, bool *visible);
/* The window title from OSC 0/2, valid UTF-8; "" when none. Borrowed until
 * the next feed. */
const char *term_screen_title(const struct term_screen *s);
bool term_screen_altscreen(const struct term_screen *s);
/* Whether the program asked for bracketed paste (DECSET 2004). */
bool term_screen_bracketed_paste(const struct term_screen *s);

/* Fill out with the visible screen: colours resolved to RGB, reverse video
 * applied. out->cells is newly allocated; the caller frees it. */
void term_screen_grid(const struct term_screen *s, struct cell_grid *out);

/* The emulator itself, for term_keys (keys are encoded by the program's
 * cursor-key, keypad and newline modes). */
struct vt_screen *term_screen_vt(struct term_screen *s);
