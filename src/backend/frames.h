/* The one frame pipeline every kind of screen shares. A backend only
 * produces a frame (RGBA pixels) and says what it knows about it — where it
 * sits on the screen, the mouse pointer, password fields it has seen; the
 * pipeline then crops to the region, draws the pointer, paints over what
 * must not leave the server (the gate's guard->redact and the backend's
 * secret rectangles), scales (max_width, or by default to what clients
 * accept), encodes (PNG, JPEG, WebP) on the worker pool, and answers the
 * call with a typed result: an inline image, or a link to the screen
 * resource when the caller asked `as: "link"`. */
#pragma once
#include "backend/backend.h"
#include "image/frame.h"

#include <stdbool.h>
#include <stdint.h>

/* By default a screenshot fits what common clients accept (larger images
 * are rejected): its long side at most this many pixels … */
#define FRAMES_FIT_SIDE 1568
/* … and its encoded size at most this many bytes. */
#define FRAMES_FIT_BYTES 1000000
/* Secret rectangles a backend may hand over per frame. */
#define FRAMES_MAX_SECRETS 64

/* A mouse pointer to draw: premultiplied ARGB pixels (as X's XFixes gives
 * them), its top-left corner at x,y in screen coordinates. */
struct frame_cursor {
    int x, y;
    int hot_x, hot_y; /* the pointer's point within the image (0,0 when not known) */
    uint32_t width, height;
    uint32_t *argb; /* malloc'd, width × height; freed by the pipeline */
};

/* What the caller asked of the frame, for produce. */
struct frame_request {
    const struct screen_rect *region; /* NULL: the whole screen */
    bool cursor;                      /* the pointer is wanted */
};

/* One produced frame and the facts its backend knows. */
struct frame_shot {
    struct frame frame; /* RGBA; the pipeline frees it */
    /* When produce fails: the code of its error (tool_failed unless set). */
    enum error_code fail_code;
    /* Screen coordinates of the frame's top-left pixel. */
    int x, y;
    /* Frame pixels per screen coordinate: 1, or less for a screen rendered
     * smaller than its coordinates (a huge terminal with smaller glyphs). */
    double unit;
    /* The pointer (cursor.argb set) when asked for and known. */
    struct frame_cursor cursor;
    /* Areas only the backend knows must not be shown (password fields), in
     * screen coordinates. */
    struct screen_rect secrets[FRAMES_MAX_SECRETS];
    int n_secrets;
    /* Pixels the backend took from the image budget (pixel_budget.h); the
     * pipeline gives them back when the frame is encoded. */
    uint64_t budget_pixels;
};

/* A backend's way to make frames for one call. */
struct frame_source {
    /* Worker pool: fill out->frame and the facts, or false with *err
     * (malloc'd). out arrives zeroed with unit 1. A source that grabs only
     * the region's pixels sets x,y to the region's corner; otherwise the
     * pipeline crops. */
    bool (*produce)(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err);
    /* Loop thread, once the call is answered: frees ud. NULL: nothing. */
    void (*release)(void *ud);
    void *ud;
    /* Prefix of a failure's message ("cannot take a screenshot"). */
    const char *failure;
    /* Worker pool, never while produce runs: the screen's monitors, [{index,
     * name, x, y, width, height, primary}] (a new array), or NULL with *err.
     * NULL: the source cannot say (the live viewer). */
    json_t *(*monitors)(void *ud, char **err);
    /* The frames lack the pointer, which produce gives (out->cursor) when
     * rq->cursor asks: a VNC server's own cursor; the live viewer shows it
     * apart from the screen. */
    bool cursor_apart;
};

/* Takes a screenshot for bc (arguments: format, quality, max_width, fit,
 * region, cursor, as) from src, and answers bc. Loop thread. */
void frames_screenshot(struct backend_call *bc, const struct frame_source *src);

/* Paints the screen rectangle r over in the redaction grey (f's corner at
 * x0,y0 on the screen, unit frame pixels per coordinate); whether any of it
 * was on f. Any thread. */
bool frames_paint(struct frame *f, const struct screen_rect *r, int x0, int y0, double unit);

/* The width a w×h frame is scaled to by default: the long side at most
 * FRAMES_FIT_SIDE (w itself when it already fits). */
uint32_t frames_fit_width(uint32_t w, uint32_t h);
