#include "image/png_strips.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_STRIPS 16

struct strip {
    const struct frame *f;
    int level;
    uint32_t y0, y1;
    bool last;
    uint8_t *out; /* raw deflate */
    size_t len;
    uLong adler; /* of this strip's uncompressed bytes */
    size_t raw_len;
    bool ok;
};

static void *compress_strip(void *arg)
{
    struct strip *s = arg;
    const struct frame *f = s->f;
    size_t row_len = 1 + (size_t)f->width * 3;
    uint8_t *row = xmalloc(row_len);
    z_stream z = {0};
    /* Raw deflate (no zlib header): the pieces are joined under one header. */
    if (deflateInit2(&z, s->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
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
    const uint32_t width = f->width;
    for (uint32_t y = s->y0; y < s->y1 && s->ok; y++) {
        const uint8_t *restrict src = f->rgba + (size_t)y * f->stride;
        uint8_t *restrict rgb = row + 1;
        row[0] = 0; /* filter type None */
        for (uint32_t x = 0; x < width; x++) {
            rgb[x * 3] = src[x * 4];
            rgb[x * 3 + 1] = src[x * 4 + 1];
            rgb[x * 3 + 2] = src[x * 4 + 2];
        }
        s->adler = adler32(s->adler, row, (uInt)row_len);
        z.next_in = row;
        z.avail_in = (uInt)row_len;
        /* The last strip ends the stream; the others end on a byte
         * boundary (a sync flush) so the next piece can follow. */
        int flush = y + 1 < s->y1 ? Z_NO_FLUSH : s->last ? Z_FINISH : Z_SYNC_FLUSH;
        int rc = deflate(&z, flush);
        s->ok = (rc == Z_OK || rc == Z_STREAM_END) && z.avail_in == 0;
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
    uLong crc = crc32(0L, p + 4, (uInt)(len + 4));
    put32(p + 8 + len, (uint32_t)crc);
    return p + 12 + len;
}

bool png_strips_encode(const struct frame *f, int level, int strips, uint8_t **out, size_t *out_len,
                       char **err)
{
    if (strips < 1)
        strips = 1;
    if (strips > MAX_STRIPS)
        strips = MAX_STRIPS;
    if ((uint32_t)strips > f->height)
        strips = (int)f->height;
    struct strip s[MAX_STRIPS];
    pthread_t threads[MAX_STRIPS];
    bool started[MAX_STRIPS] = {false};
    for (int i = 0; i < strips; i++) {
        s[i] = (struct strip){
            .f = f,
            .level = level,
            .y0 = (uint32_t)((uint64_t)f->height * (uint64_t)i / (uint64_t)strips),
            .y1 = (uint32_t)((uint64_t)f->height * (uint64_t)(i + 1) / (uint64_t)strips),
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
        *err = xstrdup("PNG encoding failed: deflate error");
        return false;
    }
    uint8_t *idat = xmalloc(body);
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

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put32(ihdr, f->width);
    put32(ihdr + 4, f->height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* truecolour */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering (each row says None) */
    ihdr[12] = 0; /* not interlaced */
    size_t total = sizeof signature + (12 + sizeof ihdr) + (12 + body) + 12;
    uint8_t *png = xmalloc(total);
    memcpy(png, signature, sizeof signature);
    uint8_t *p = put_chunk(png + sizeof signature, "IHDR", ihdr, sizeof ihdr);
    p = put_chunk(p, "IDAT", idat, body);
    put_chunk(p, "IEND", NULL, 0);
    free(idat);
    *out = png;
    *out_len = total;
    return true;
}
