/* A deflate writer made for screens, used for every PNG strip. Screens are
 * flat colour, runs and rows repeated from the row above, so instead of a
 * general compressor (hash chains over a 32 KiB window) it:
 *   - filters each truecolour row None, Sub or Up, whichever leaves the
 *     smallest bytes (a row equal to the one above is Up at once: zeros);
 *     palette rows stay unfiltered;
 *   - looks for matches at three places only, by direct comparison: the
 *     byte before (runs, and the zeros Sub and Up leave), the row above,
 *     and the last place the same 4 bytes were seen (one probe of a small
 *     table, no chains: repeated glyphs);
 *   - writes one dynamic Huffman block per 256 KiB of scanlines, its codes
 *     from that block's own counts (a stored block if that is smaller).
 * The result is raw deflate (no zlib header) that any inflater reads. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame;
struct png_palette;

struct png_deflate_piece {
    uint8_t *data;  /* raw deflate, malloc'd */
    size_t len;     /* bytes in data */
    uint32_t adler; /* adler32 of the scanlines (filter bytes included) */
    size_t raw_len; /* bytes of scanlines compressed */
};

/* Compresses rows y0..y1-1 of f as PNG scanlines: palette indices (one
 * byte a pixel, pal->index) when pal is set, else RGB. The rows above y0
 * may be used by filters (a decoder has them), but no match reaches
 * before y0, so pieces of one image can be compressed on different
 * threads and joined: a `final` piece ends the stream, any other ends on
 * a byte boundary with an empty stored block (what zlib's sync flush
 * writes) for the next piece to follow. */
void png_deflate_rows(const struct frame *f, const struct png_palette *pal, uint32_t y0,
                      uint32_t y1, bool final, struct png_deflate_piece *out);
