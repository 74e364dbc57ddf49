/* PNG encoding, on several cores for large images: the rows are cut into
 * horizontal strips of equal height, each compressed by its own thread
 * (png_deflate.h) into a piece of one zlib stream, and the pieces joined
 * into a single IDAT. Every piece but the last ends on a byte boundary
 * (an empty stored block, as a zlib sync flush), so they concatenate; the
 * checksums are combined with adler32_combine. The file is an ordinary
 * PNG (8 bits, filters None/Sub/Up per row) any decoder reads: a palette
 * (colour type 3) when the frame has at most 256 colours, else truecolour. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame;

/* Encode f in `strips` pieces (1..16; one for an image under two rows a
 * strip). *out is malloc'd. false with *err. */
bool png_strips_encode(const struct frame *f, int strips, uint8_t **out, size_t *out_len,
                       char **err);
