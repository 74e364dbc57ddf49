/* An RGBA image in memory: the common currency between capture (terminal
 * renderer, X11, VNC, …), scaling and the encoders. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct frame {
    uint32_t width;  /* pixels */
    uint32_t height; /* pixels */
    uint32_t stride; /* bytes per row, >= width * 4 */
    uint8_t *rgba;   /* owned; R,G,B,A bytes per pixel, alpha always 255 */
};

/* Allocate width×height pixels, filled with opaque black. */
void frame_init(struct frame *f, uint32_t width, uint32_t height);
/* Allocate width×height pixels without filling them: the caller writes
 * every one. */
void frame_alloc(struct frame *f, uint32_t width, uint32_t height);
void frame_finish(struct frame *f);
