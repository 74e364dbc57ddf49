/* Top-level windows of a desktop (windows.c). Every function is called with
 * the desktop's input connection locked (xinput_lock), on a worker thread. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct xinput;

/* [{id "0x…", title, app, pid?, bounds {x, y, width, height}, focused}],
 * top-most first. */
json_t *windows_list(struct xinput *xi);
/* Where win is now: its top-left corner on the screen and its size; false
 * when it is gone. */
bool windows_geometry(struct xinput *xi, uint32_t win, int *x, int *y, int *width, int *height);
/* spec: an id ("0x1a00004") or a case-insensitive part of the title; the
 * top-most match. false with *err naming spec. */
bool windows_find(struct xinput *xi, const char *spec, uint32_t *win, char **err);
/* Raise and focus (through the window manager when there is one). */
void windows_focus(struct xinput *xi, uint32_t win);
/* Where the keyboard focus and the active window are, to put them back. */
struct windows_focus_saved {
    uint32_t focus;  /* the X input focus (a window, None or PointerRoot) */
    uint8_t revert;  /* its revert-to */
    uint32_t active; /* _NET_ACTIVE_WINDOW under a window manager; 0 without */
};
void windows_focus_save(struct xinput *xi, struct windows_focus_saved *out);
/* Back as saved: the window manager asked to activate the window that was
 * active (raising it), then the input focus set as it was. */
void windows_focus_restore(struct xinput *xi, const struct windows_focus_saved *s);
/* Under a window manager: waits up to ms for the active window to differ
 * from s's (the manager reacting to input just given); no wait without one. */
void windows_focus_settle(struct xinput *xi, const struct windows_focus_saved *s, int ms);
/* Under a window manager: waits up to ms for s's active window to be
 * active again. */
void windows_focus_wait(struct xinput *xi, const struct windows_focus_saved *s, int ms);
/* Move and/or resize; a negative x/y or a non-positive size keeps it. */
void windows_configure(struct xinput *xi, uint32_t win, int x, int y, int width, int height);
/* Ask the program to close it (WM_DELETE_WINDOW), as its close button does;
 * force disconnects the program from the display instead. */
bool windows_close(struct xinput *xi, uint32_t win, bool force, char **err);

/* The top-level window that would receive input: the one under x,y (x < 0:
 * the one with the keyboard focus, else the one under the pointer). Its
 * title and application (WM_CLASS class) are malloc'd into *title and *app
 * ("" when unknown); false when there is none (the bare root). */
bool windows_input_target(struct xinput *xi, int x, int y, char **title, char **app);
