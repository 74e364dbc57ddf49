/* The monitors of an X screen, as RandR 1.5 lists them (GetMonitors): what
 * a desk of several monitors shows, for the live viewer (one monitor per
 * browser window). */
#pragma once
#include <jansson.h>
#include <xcb/xcb.h>

/* [{index, name, x, y, width, height, primary}] (a new array; empty when
 * the server has no RandR 1.5), or NULL with *err (malloc'd) when the
 * connection failed. Any thread; one caller per connection at a time. */
json_t *desktop_monitors(xcb_connection_t *c, xcb_window_t root, char **err);
