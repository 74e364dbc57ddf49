/* Synthetic input on an X display through the XTEST extension: one X
 * connection per desktop, kept open, used from worker threads under a lock
 * (an action may sleep between its events: a long press, a drag). Nothing
 * here spawns a process. All functions return false with *err (caller frees)
 * when the display is gone or refuses. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct xinput;

/* Nothing is connected until the first action. NULL-safe destroy. */
struct xinput *xinput_create(const char *display);
void xinput_destroy(struct xinput *xi);

/* Give back the keycodes bound to characters the keymap lacked (the
 * session ends; an attached display keeps its keyboard as it was). */
void xinput_restore(struct xinput *xi);

/* Take and release the connection for one action (connects on first use,
 * reconnects after the server went away). Between lock and unlock the
 * functions below may be called. */
bool xinput_lock(struct xinput *xi, char **err);
void xinput_unlock(struct xinput *xi);

void xinput_screen_size(const struct xinput *xi, int *width, int *height);

/* Pointer: buttons 1 left, 2 middle, 3 right, 4/5 wheel up/down, 6/7
 * wheel left/right. */
void xinput_move(struct xinput *xi, int x, int y);
/* Where the pointer is, in screen pixels. */
bool xinput_pointer(struct xinput *xi, int *x, int *y, char **err);
void xinput_button(struct xinput *xi, int button, bool down);
/* Keys by keysym; a keysym missing from the keymap is bound to a spare
 * keycode for the life of the connection. shift says whether the keysym
 * sits on the shifted level (the caller then holds Shift). */
bool xinput_keycode(struct xinput *xi, uint32_t keysym, uint8_t *code, bool *shift, char **err);
/* A modifier key (Super_L, Meta_L, Hyper_L…) that sends keysym unshifted;
 * one found only on a shifted level or not at all is bound to a spare
 * keycode, added to the modifier row the keymap gives that keysym, and both
 * are undone by xinput_restore. */
bool xinput_modifier_keycode(struct xinput *xi, uint32_t keysym, uint8_t *code, char **err);
void xinput_key(struct xinput *xi, uint8_t code, bool down);
/* Whether this connection holds the key down (pressed, not let go). */
bool xinput_key_is_down(const struct xinput *xi, uint8_t code);
/* The keycodes held down whose first keysym is keysym (Shift_L…), at most
 * max, into codes; how many. */
int xinput_held_codes(const struct xinput *xi, uint32_t keysym, uint8_t *codes, int max);
/* Let go of every key and button this connection holds down; how many. */
int xinput_release_all(struct xinput *xi);
/* Keyboard focus. Without a window manager nobody gives a new window the
 * focus, and keys go to whatever is under the pointer: these put it on a
 * top-level window the way a window manager would. */
/* The top-level window at x,y gets the focus and is raised. */
void xinput_focus_at(struct xinput *xi, int x, int y);
/* When nothing has the focus (None or PointerRoot), the top-most window
 * gets it; true when it was given. */
bool xinput_focus_default(struct xinput *xi);
/* Wait until the server has handled everything sent; false if it is gone. */
bool xinput_sync(struct xinput *xi, char **err);

/* The connection and root window, for other requests made under the lock
 * (windows.c). */
struct xcb_connection_t;
struct xcb_connection_t *xinput_connection(struct xinput *xi);
uint32_t xinput_root(const struct xinput *xi);

/* The keysym that types a Unicode codepoint. */
uint32_t xinput_keysym_for(uint32_t codepoint);
