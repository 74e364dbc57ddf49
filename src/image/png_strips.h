/* PNG encoding of large images on several cores: the rows are cut into
 * horizontal strips, each compressed by its own thread into a piece of one
 * zlib stream (raw deflate ending on a byte boundary, the checksums combined
 * with adler32_combine), and the pieces joined into a single IDAT. The file
 * is an ordinary PNG (truecolour, 8 bits, no filtering) any decoder reads.
 * libspng and zlib only compress on one core; a screenshot of a 1280×800
 * screen spends most of its time there while an agent waits. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame;

/* Encode f with deflate level `level` in `strips` pieces (1..16). *out is
 * malloc'd. false with *err. */
bool png_strips_encode(const struct frame *f, int level, int strips, uint8_t **out, size_t *out_len,
                       char **err);
