/* Animated GIF writing with cgif, from palette-indexed frames. Writes to a
 * temporary file and renames on success so a GIF is never half-written. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct gif_writer;

/* Opens path.tmp-XXXX next to path. palette: up to 256 0xRRGGBB colours used by
 * every frame. Returns NULL with *err set on failure. */
struct gif_writer *gif_writer_create(const char *path, int width, int height,
                                     const uint32_t *palette, int palette_len, char **err);
/* indices: width*height palette indices. delay_cs: how long this frame shows,
 * in hundredths of a second. A frame identical to the one before extends that
 * frame's delay instead of adding another. On failure the caller aborts w. */
bool gif_writer_add(struct gif_writer *w, const uint8_t *indices, int delay_cs, char **err);
/* Finish, fsync and rename into place. Always frees w. */
bool gif_writer_close(struct gif_writer *w, char **err);
/* Abandon: delete the temporary file and free w. Accepts NULL. */
void gif_writer_abort(struct gif_writer *w);
