/* The lines a terminal screen scrolled off its top, oldest dropped first.
 * Lines keep their cells (characters, colours as libvterm gave them,
 * attributes) so libvterm can take them back when the screen grows, but
 * trailing blanks are not stored. */
#pragma once
#include <stdbool.h>
#include <vterm.h>

struct strbuf;
struct term_scrollback;

/* capacity 0 keeps nothing. */
struct term_scrollback *term_scrollback_create(int capacity);
void term_scrollback_destroy(struct term_scrollback *sb); /* accepts NULL */

void term_scrollback_push(struct term_scrollback *sb, int cols, const VTermScreenCell *cells);
/* Take the newest line back into cells[0..cols), padding with blanks in the
 * given default colours. False when there is none. */
bool term_scrollback_pop(struct term_scrollback *sb, int cols, VTermScreenCell *cells,
                         VTermColor default_fg, VTermColor default_bg);

int term_scrollback_count(const struct term_scrollback *sb);
/* Appends line index (0 = oldest) as text: see term_screen_append_line. */
void term_scrollback_append_text(const struct term_scrollback *sb, int index, struct strbuf *out);
