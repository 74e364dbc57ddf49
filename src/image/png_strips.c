#include "image/png_strips.h"

#include "core/xmalloc.h"
#include "image/frame.h"
#include "image/png_palette.h"

#include "image/png_deflate.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_STRIPS 16

struct strip {
    const struct frame *f;
    const struct png_palette *pal; /* NULL: RGB */
    uint32_t y0, y1;
    bool last;
    struct png_deflate_piece piece;
};

static void *compress_strip(void *arg)
{
    struct strip *s = arg;
    png_deflate_rows(s->f, s->pal, s->y0, s->y1, s->last, &s->piece);
    return NULL;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A chunk: length, type, data, CRC of type and data. */
static uint8_t *put_chunk(uint8_t *p, const char *type, const uint8_t *data, size_t len)
{
    put32(p, (uint32_t)len);
    memcpy(p + 4, type, 4);
    if (len)
        memcpy(p + 8, data, len);
    uint32_t crc = libdeflate_crc32(0, p + 4, len + 4);
    put32(p + 8 + len, crc);
    return p + 12 + len;
}

bool png_strips_encode(const struct frame *f, int strips, uint8_t **out, size_t *out_len,
                       char **err)
{
    (void)err; /* nothing fails past the checks image_encode makes */
    if (strips < 1)
        strips = 1;
    if (strips > MAX_STRIPS)
        strips = MAX_STRIPS;
    /* Two rows a strip at least, so that every piece gets rows. */
    if ((uint32_t)strips * 2 > f->height)
        strips = 1;
    /* Few colours (a terminal's text): one byte a pixel instead of three. */
    struct png_palette pal;
    bool indexed = png_palette_build(f, &pal);
    struct strip s[MAX_STRIPS];
    pthread_t threads[MAX_STRIPS];
    bool started[MAX_STRIPS] = {false};
    for (int i = 0; i < strips; i++) {
        s[i] = (struct strip){
            .f = f,
            .pal = indexed ? &pal : NULL,
            .y0 = (uint32_t)((uint64_t)f->height * i / strips),
            .y1 = (uint32_t)((uint64_t)f->height * (i + 1) / strips),
            .last = i == strips - 1,
        };
    }
    /* This thread takes the first strip; the others get threads of their
     * own (a thread that cannot start is done here instead). */
    for (int i = 1; i < strips; i++)
        started[i] = pthread_create(&threads[i], NULL, compress_strip, &s[i]) == 0;
    compress_strip(&s[0]);
    size_t body = 2 + 4; /* zlib header and checksum */
    for (int i = 0; i < strips; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else if (i > 0)
            compress_strip(&s[i]);
        body += s[i].piece.len;
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put32(ihdr, f->width);
    put32(ihdr + 4, f->height);
    ihdr[8] = 8;               /* bit depth */
    ihdr[9] = indexed ? 3 : 2; /* palette or truecolour */
    ihdr[10] = 0;              /* deflate */
    ihdr[11] = 0;              /* adaptive filtering (each row names its filter) */
    ihdr[12] = 0;              /* not interlaced */
    size_t plte = indexed ? 12 + 3 * (size_t)pal.len : 0;
    size_t total = sizeof signature + (12 + sizeof ihdr) + plte + (12 + body) + 12;
    uint8_t *png = xmalloc(total);
    memcpy(png, signature, sizeof signature);
    uint8_t *p = put_chunk(png + sizeof signature, "IHDR", ihdr, sizeof ihdr);
    if (indexed) {
        p = put_chunk(p, "PLTE", pal.rgb, 3 * (size_t)pal.len);
        png_palette_finish(&pal);
    }
    /* IDAT written in place: the pieces are copied once, into the file. */
    uint8_t *idat = p + 8;
    /* CMF 0x78 (deflate, 32 KiB window), FLG 0x01: no dictionary, a valid
     * check value ((0x78 << 8 | 0x01) % 31 == 0). */
    idat[0] = 0x78;
    idat[1] = 0x01;
    size_t at = 2;
    uLong adler = s[0].piece.adler;
    for (int i = 0; i < strips; i++) {
        memcpy(idat + at, s[i].piece.data, s[i].piece.len);
        at += s[i].piece.len;
        if (i > 0)
            adler = adler32_combine(adler, s[i].piece.adler, (z_off_t)s[i].piece.raw_len);
        free(s[i].piece.data);
    }
    put32(idat + at, (uint32_t)adler);
    put32(p, (uint32_t)body);
    memcpy(p + 4, "IDAT", 4);
    put32(p + 8 + body, libdeflate_crc32(0, p + 4, body + 4));
    put_chunk(p + 12 + body, "IEND", NULL, 0);
    *out = png;
    *out_len = total;
    return true;
}
