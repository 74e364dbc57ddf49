/* Text helpers shared by the terminal screen and its scrollback. */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* A cell's characters, as the emulator stores them: a base code point then
 * combining marks, ending at the first 0 or after max. Code points that are
 * not valid Unicode scalar values become U+FFFD, so the text can go into
 * JSON. Appends nothing for a blank cell. */
void term_text_append_chars(struct strbuf *out, const uint32_t *chars, int max);
/* Drop trailing spaces after out->data[from]. */
void term_text_trim(struct strbuf *out, size_t from);
/* s[0..n) as UTF-8 with invalid sequences replaced by U+FFFD and control
 * characters dropped: for text the program chose, such as its title. */
void term_text_append_clean(struct strbuf *out, const char *s, size_t n);
