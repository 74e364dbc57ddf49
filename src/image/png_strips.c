#include "image/png_strips.h"

#include "core/xmalloc.h"
#include "image/frame.h"
#include "image/png_palette.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_STRIPS 16
/* zlib's level for the pieces before the last: 1 is no faster than 2 on
 * screens, 3 and up cost more time than they save bytes. */
#define ZLIB_LEVEL 2
/* The last piece (libdeflate) is this many times as tall as the others:
 * libdeflate gets through rows about that much faster, so all end
 * together (measured on a 1200×760 terminal render: 1.5 left the
 * libdeflate piece 0.4 ms behind). */
#define LAST_WEIGHT 1.25

struct strip {
    const struct frame *f;
    const struct png_palette *pal; /* NULL: RGB */
    size_t row_len;                /* filter byte and pixels */
    int level;
    uint32_t y0, y1;
    bool last;
    uint8_t *out; /* raw deflate */
    size_t len;
    uLong adler; /* of this strip's uncompressed bytes */
    size_t raw_len;
    bool ok;
};

/* The strip's rows as PNG scanlines: a filter byte (None) and RGB or
 * palette indices. */
static void scanlines(const struct strip *s, uint32_t y0, uint32_t y1, uint8_t *restrict raw)
{
    const struct frame *f = s->f;
    const uint32_t width = f->width;
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *restrict src = f->rgba + (size_t)y * f->stride;
        uint8_t *restrict row = raw + (size_t)(y - y0) * s->row_len;
        row[0] = 0;
        if (s->pal) {
            memcpy(row + 1, s->pal->index + (size_t)y * width, width);
            continue;
        }
        /* Alpha is always opaque: RGB saves a quarter of the work. Four
         * bytes copied a pixel, the fourth overwritten by the next one:
         * one store instead of three (the last pixel byte by byte, so
         * nothing is written past the row). */
        uint8_t *d = row + 1;
        uint32_t x = 0;
        for (; x + 1 < width; x++)
            memcpy(d + 3 * x, src + 4 * x, 4);
        d[3 * x] = src[4 * x];
        d[3 * x + 1] = src[4 * x + 1];
        d[3 * x + 2] = src[4 * x + 2];
    }
}

/* The last strip ends the stream, so it can be one complete deflate stream:
 * libdeflate, which compresses in one call about 1.5 times as fast as
 * zlib, but cannot end a piece on a byte boundary for the next to follow. */
static void compress_last(struct strip *s)
{
    s->raw_len = s->row_len * (s->y1 - s->y0);
    uint8_t *raw = xmalloc(s->raw_len);
    scanlines(s, s->y0, s->y1, raw);
    s->adler = libdeflate_adler32(1, raw, s->raw_len);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(s->level);
    if (c) {
        size_t cap = libdeflate_deflate_compress_bound(c, s->raw_len);
        s->out = xmalloc(cap);
        s->len = libdeflate_deflate_compress(c, raw, s->raw_len, s->out, cap);
        s->ok = s->len > 0;
        libdeflate_free_compressor(c);
    }
    free(raw);
}

static void *compress_strip(void *arg)
{
    struct strip *s = arg;
    if (s->last) {
        compress_last(s);
        return NULL;
    }
    size_t row_len = s->row_len;
    uint8_t *row = xmalloc(row_len);
    z_stream z = {0};
    /* Raw deflate (no zlib header): the pieces are joined under one header. */
    if (deflateInit2(&z, ZLIB_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(row);
        return NULL;
    }
    s->raw_len = row_len * (s->y1 - s->y0);
    size_t cap = deflateBound(&z, s->raw_len) + 16;
    s->out = xmalloc(cap);
    z.next_out = s->out;
    z.avail_out = (uInt)cap;
    s->adler = adler32(0L, Z_NULL, 0);
    s->ok = true;
    for (uint32_t y = s->y0; y < s->y1 && s->ok; y++) {
        scanlines(s, y, y + 1, row);
        /* libdeflate's checksum is vectorised, zlib's is not (a tenth of
         * this loop's time with zlib's). */
        s->adler = libdeflate_adler32((uint32_t)s->adler, row, row_len);
        z.next_in = row;
        z.avail_in = (uInt)row_len;
        /* Every piece but the last ends on a byte boundary (a sync flush)
         * so the next can follow. */
        int rc = deflate(&z, y + 1 < s->y1 ? Z_NO_FLUSH : Z_SYNC_FLUSH);
        s->ok = rc == Z_OK && z.avail_in == 0;
    }
    s->len = cap - z.avail_out;
    deflateEnd(&z);
    free(row);
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

bool png_strips_encode(const struct frame *f, int level, int strips, uint8_t **out, size_t *out_len,
                       char **err)
{
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
    size_t row_len = 1 + (size_t)f->width * (indexed ? 1 : 3);
    struct strip s[MAX_STRIPS];
    pthread_t threads[MAX_STRIPS];
    bool started[MAX_STRIPS] = {false};
    double units = strips - 1 + LAST_WEIGHT;
    for (int i = 0; i < strips; i++) {
        s[i] = (struct strip){
            .f = f,
            .pal = indexed ? &pal : NULL,
            .row_len = row_len,
            .level = level,
            .y0 = i == 0 ? 0 : s[i - 1].y1,
            .y1 = i == strips - 1 ? f->height : (uint32_t)(f->height * (i + 1) / units),
            .last = i == strips - 1,
        };
    }
    /* This thread takes the first strip; the others get threads of their
     * own (a thread that cannot start is done here instead). */
    for (int i = 1; i < strips; i++)
        started[i] = pthread_create(&threads[i], NULL, compress_strip, &s[i]) == 0;
    compress_strip(&s[0]);
    bool ok = true;
    size_t body = 2 + 4; /* zlib header and checksum */
    for (int i = 0; i < strips; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else if (i > 0)
            compress_strip(&s[i]);
        ok = ok && s[i].ok;
        body += s[i].len;
    }
    if (!ok) {
        for (int i = 0; i < strips; i++)
            free(s[i].out);
        if (indexed)
            png_palette_finish(&pal);
        *err = xstrdup("PNG encoding failed: deflate error");
        return false;
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put32(ihdr, f->width);
    put32(ihdr + 4, f->height);
    ihdr[8] = 8;               /* bit depth */
    ihdr[9] = indexed ? 3 : 2; /* palette or truecolour */
    ihdr[10] = 0;              /* deflate */
    ihdr[11] = 0;              /* adaptive filtering (each row says None) */
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
    uLong adler = s[0].adler;
    for (int i = 0; i < strips; i++) {
        memcpy(idat + at, s[i].out, s[i].len);
        at += s[i].len;
        if (i > 0)
            adler = adler32_combine(adler, s[i].adler, (z_off_t)s[i].raw_len);
        free(s[i].out);
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
