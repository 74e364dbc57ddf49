/* What vt_screen.c (the grid) offers vt_control.c (the sequences). */
#pragma once
#include "backend/terminal/vt_screen.h"

void vt_print_ascii(struct vt_screen *s, const char *text, size_t len);
void vt_print(struct vt_screen *s, uint32_t cp);
/* LF/IND: down a row, scrolling the region at its bottom. */
void vt_index(struct vt_screen *s);
/* RI: up a row, scrolling the region down at its top. */
void vt_reverse_index(struct vt_screen *s);
/* Rows top..bottom (inclusive) up by n; save: the lines leaving row 0 of
 * the main screen go to scrollback. */
void vt_scroll_up(struct vt_screen *s, int top, int bottom, int n, bool save);
void vt_scroll_down(struct vt_screen *s, int top, int bottom, int n);
/* Blank cells [from, to) of row r with the pen's background. */
void vt_erase(struct vt_screen *s, int r, int from, int to);
void vt_insert_cells(struct vt_screen *s, int n);
void vt_delete_cells(struct vt_screen *s, int n);
/* Every row of the screen shown, blank. */
void vt_clear_all(struct vt_screen *s);
/* Fill the screen with E (DECALN). */
void vt_fill_e(struct vt_screen *s);
/* Switch to or from the alternate screen. */
void vt_set_alt(struct vt_screen *s, bool on);
/* The blank cell erasing writes, after the pen changed. */
void vt_update_blank(struct vt_screen *s);
