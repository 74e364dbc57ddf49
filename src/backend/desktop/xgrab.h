/* Reading a display's pixels: one X connection per desktop, kept open, and
 * the image delivered through MIT-SHM (shared memory the X server writes
 * into) when the server offers it; plain GetImage, which copies the whole
 * screen through the socket, otherwise. Thread-safe: captures from the
 * screenshot tool and from perception take turns. */
#pragma once
#include <stdbool.h>

struct frame;
struct frame_cursor;
struct xgrab;

struct xgrab *xgrab_create(const char *display);
void xgrab_destroy(struct xgrab *g); /* NULL ok */
/* The whole screen into out (initialised here); false with *err. */
bool xgrab_screen(struct xgrab *g, struct frame *out, char **err);
/* Only the w×h pixels at x,y (x, y >= 0, w, h > 0): the server copies no
 * more than that. False with *err, which gives the screen size when the
 * area does not fit on it. */
bool xgrab_area(struct xgrab *g, int x, int y, int w, int h, struct frame *out, char **err);
/* The mouse pointer's image and place (XFixes) into out (out->argb
 * malloc'd); false with *err when the server cannot say what it looks like. */
bool xgrab_cursor(struct xgrab *g, struct frame_cursor *out, char **err);
/* Whether the last capture used shared memory (for status and tests). */
bool xgrab_uses_shm(struct xgrab *g);
