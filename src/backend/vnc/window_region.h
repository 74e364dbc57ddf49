/* A window's content on a picture of a whole screen, from where its title
 * text is: the geometry behind vnc_connect's viewport {window}. Pure (no
 * GLib, no OCR): a frame in, a rectangle out. */
#pragma once
#include <stdbool.h>

struct frame;

struct vnc_rect {
    int x, y, w, h; /* pixels of the frame */
};

/* The content (below the title bar, inside the side borders) of the window
 * whose title bar holds the text at *text on f; false when what is around
 * the text does not look like a title bar over a window (text inside a
 * window, a panel at the screen's bottom). */
bool vnc_window_region(const struct frame *f, const struct vnc_rect *text, struct vnc_rect *out);

/* Rectangles of f that look like title bars, top to bottom, at most max:
 * bands 10 to 64 pixels tall and at least 48 wide, each bounded above and
 * below by a horizontal edge (the frame's top, the bar's bottom) with no
 * such edge inside. For reading each with OCR on its own. */
int vnc_title_bars(const struct frame *f, struct vnc_rect *out, int max);
/* A copy of the rectangle r of f made for OCR: each pixel grey by how far
 * it is from its row's background (the row's median colour), so light
 * text on a light bar becomes dark text on white. */
void vnc_bar_contrast(const struct frame *f, const struct vnc_rect *r, struct frame *out);
