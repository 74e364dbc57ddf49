/* PNG encoding, on several cores for large images: the rows are cut into
 * horizontal strips, each compressed by its own thread into a piece of one
 * zlib stream, and the pieces joined into a single IDAT. Every piece but
 * the last is raw deflate from zlib ending on a byte boundary (a sync
 * flush); the last, which ends the stream, comes from libdeflate in one
 * call, about 1.5 times as fast (libdeflate cannot end a piece for another
 * to follow). The checksums are combined with adler32_combine. The file is
 * an ordinary PNG (8 bits, no filtering) any decoder reads: a palette
 * (colour type 3) when the frame has at most 256 colours, else truecolour.
 * One strip is libdeflate alone. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame;

/* Encode f in `strips` pieces (1..16; fewer for an image under two rows a
 * strip), the last with libdeflate level `level` (1..12). *out is
 * malloc'd. false with *err. */
bool png_strips_encode(const struct frame *f, int level, int strips, uint8_t **out, size_t *out_len,
                       char **err);
