/* The lines a terminal screen scrolled off its top, oldest dropped first.
 * Lines keep their cells (characters, colours as the emulator holds them,
 * attributes) so they can come back when the screen grows, but trailing
 * blanks are not stored. Bounded by a line count and by memory. */
#pragma once
#include <stdbool.h>

#include "backend/terminal/vt_screen.h"

struct strbuf;
struct term_scrollback;

/* capacity 0 keeps nothing. */
struct term_scrollback *term_scrollback_create(int capacity);
void term_scrollback_destroy(struct term_scrollback *sb); /* accepts NULL */

/* A line of n cells (those past n are blank). */
void term_scrollback_push(struct term_scrollback *sb, const struct vt_cell *cells, int n);
/* Take the newest line back into cells[0..cols), which must be blank (all
 * zero). False when there is none. */
bool term_scrollback_pop(struct term_scrollback *sb, int cols, struct vt_cell *cells);

int term_scrollback_count(const struct term_scrollback *sb);
/* Appends line index (0 = oldest) as text: see term_screen_append_line. */
void term_scrollback_append_text(const struct term_scrollback *sb, int index, struct strbuf *out);
