/* Screenshots and recordings as files a user opens: PNG, JPEG, WebP, GIF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "image/encode.h"
#include "image/gif.h"
#include "image/png_strips.h"
#include "image/scale.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spng.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#include <zlib.h>

static void set_px(struct frame *f, uint32_t x, uint32_t y, uint8_t r, uint8_t g, uint8_t b)
{
    uint8_t *p = f->rgba + (size_t)y * f->stride + (size_t)x * 4;
    p[0] = r;
    p[1] = g;
    p[2] = b;
    p[3] = 255;
}

static const uint8_t *px(const struct frame *f, uint32_t x, uint32_t y)
{
    return f->rgba + (size_t)y * f->stride + (size_t)x * 4;
}

/* A picture with a distinct colour in every pixel. */
static void gradient(struct frame *f, uint32_t w, uint32_t h)
{
    frame_init(f, w, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            set_px(f, x, y, (uint8_t)(x * 7), (uint8_t)(y * 13), (uint8_t)(x ^ y));
}

static void test_new_frame_is_opaque_black(void **state)
{
    struct frame f;
    frame_init(&f, 3, 2);
    assert_int_equal(f.stride, 12);
    for (uint32_t y = 0; y < 2; y++)
        for (uint32_t x = 0; x < 3; x++)
            assert_memory_equal(px(&f, x, y), ((uint8_t[]){0, 0, 0, 255}), 4);
    frame_finish(&f);
    frame_finish(NULL);
}

static void test_format_names(void **state)
{
    enum image_format fmt;
    assert_true(image_format_parse("png", &fmt));
    assert_int_equal(fmt, IMAGE_PNG);
    assert_true(image_format_parse("jpeg", &fmt));
    assert_int_equal(fmt, IMAGE_JPEG);
    assert_true(image_format_parse("webp", &fmt));
    assert_int_equal(fmt, IMAGE_WEBP);
    assert_false(image_format_parse("bmp", &fmt));
    assert_false(image_format_parse(NULL, &fmt));
    assert_string_equal(image_format_mime(IMAGE_PNG), "image/png");
    assert_string_equal(image_format_mime(IMAGE_JPEG), "image/jpeg");
    assert_string_equal(image_format_mime(IMAGE_WEBP), "image/webp");
    assert_string_equal(image_format_extension(IMAGE_PNG), "png");
    assert_string_equal(image_format_extension(IMAGE_JPEG), "jpg");
    assert_string_equal(image_format_extension(IMAGE_WEBP), "webp");
}

static void test_png_decodes_to_the_same_pixels(void **state)
{
    struct frame f;
    gradient(&f, 37, 23);
    uint8_t *png;
    size_t len;
    char *err = NULL;
    assert_true(image_encode(&f, IMAGE_PNG, 0, &png, &len, &err));
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);

    spng_ctx *ctx = spng_ctx_new(0);
    assert_int_equal(spng_set_png_buffer(ctx, png, len), 0);
    struct spng_ihdr ihdr;
    assert_int_equal(spng_get_ihdr(ctx, &ihdr), 0);
    assert_int_equal(ihdr.width, 37);
    assert_int_equal(ihdr.height, 23);
    size_t out_size;
    assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &out_size), 0);
    uint8_t *dec = malloc(out_size);
    assert_int_equal(spng_decode_image(ctx, dec, out_size, SPNG_FMT_RGBA8, 0), 0);
    for (uint32_t y = 0; y < 23; y++)
        assert_memory_equal(dec + y * 37 * 4, px(&f, 0, y), 37 * 4);
    free(dec);
    spng_ctx_free(ctx);
    free(png);
    frame_finish(&f);
}

/* A large image is compressed in strips on several threads and joined into
 * one zlib stream: any number of strips decodes (checksums included) to the
 * same pixels, and a padded stride is honoured. */
static void test_png_strips_decode_to_the_same_pixels(void **state)
{
    struct frame f = {.width = 701, .height = 433, .stride = 701 * 4 + 12};
    f.rgba = calloc((size_t)f.stride * f.height, 1);
    uint32_t seed = 7;
    for (uint32_t y = 0; y < f.height; y++)
        for (uint32_t x = 0; x < f.width; x++) {
            seed = seed * 1103515245u + 12345u;
            /* Flat areas, gradients and noise, as on a real screen. */
            uint8_t noise = (uint8_t)(seed >> 24);
            set_px(&f, x, y, (uint8_t)(x < 300 ? 40 : x), (uint8_t)(y * 3),
                   y % 50 < 25 ? noise : 200);
        }
    for (int strips = 1; strips <= 9; strips += 2) {
        uint8_t *png;
        size_t len;
        char *err = NULL;
        assert_true(png_strips_encode(&f, strips, &png, &len, &err));
        spng_ctx *ctx = spng_ctx_new(0);
        assert_int_equal(spng_set_png_buffer(ctx, png, len), 0);
        size_t out_size;
        assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &out_size), 0);
        uint8_t *dec = malloc(out_size);
        assert_int_equal(spng_decode_image(ctx, dec, out_size, SPNG_FMT_RGBA8, 0), 0);
        for (uint32_t y = 0; y < f.height; y++)
            assert_memory_equal(dec + (size_t)y * f.width * 4, px(&f, 0, y), f.width * 4);
        free(dec);
        spng_ctx_free(ctx);
        free(png);
    }
    free(f.rgba);
}

/* Decodes png and checks every pixel against f and the colour type. */
static void expect_png_of(const uint8_t *png, size_t len, const struct frame *f, int colour_type)
{
    spng_ctx *ctx = spng_ctx_new(0);
    assert_int_equal(spng_set_png_buffer(ctx, png, len), 0);
    struct spng_ihdr ihdr;
    assert_int_equal(spng_get_ihdr(ctx, &ihdr), 0);
    assert_int_equal(ihdr.color_type, colour_type);
    assert_int_equal(ihdr.width, f->width);
    assert_int_equal(ihdr.height, f->height);
    size_t out_size;
    assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &out_size), 0);
    uint8_t *dec = malloc(out_size);
    assert_int_equal(spng_decode_image(ctx, dec, out_size, SPNG_FMT_RGBA8, 0), 0);
    for (uint32_t y = 0; y < f->height; y++)
        assert_memory_equal(dec + (size_t)y * f->width * 4, px(f, 0, y), f->width * 4);
    free(dec);
    spng_ctx_free(ctx);
}

/* A screen of `colours` colours in runs and single pixels, like text. */
static void few_colours(struct frame *f, uint32_t w, uint32_t h, uint32_t colours)
{
    frame_init(f, w, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t c = ((x / 9) * 31 + y * 7 + (x % 9 == 4 ? 5 : 0)) % colours;
            set_px(f, x, y, (uint8_t)(c * 3), (uint8_t)(255 - c), (uint8_t)(c / 2));
        }
}

/* Up to 256 colours: a palette PNG (one byte a pixel), decoded to exactly
 * the same pixels, in any number of strips. */
static void test_png_of_few_colours_is_indexed(void **state)
{
    static const uint32_t counts[] = {1, 2, 16, 255, 256};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        uint32_t colours = counts[i];
        struct frame f;
        few_colours(&f, 701, 433, colours);
        for (int strips = 1; strips <= 5; strips += 2) {
            uint8_t *png;
            size_t len;
            char *err = NULL;
            assert_true(png_strips_encode(&f, strips, &png, &len, &err));
            expect_png_of(png, len, &f, SPNG_COLOR_TYPE_INDEXED);
            free(png);
        }
        frame_finish(&f);
    }
}

/* One colour more than a palette holds: truecolour, the same pixels. */
static void test_png_of_257_colours_is_truecolour(void **state)
{
    struct frame f;
    few_colours(&f, 640, 40, 256);
    set_px(&f, 639, 39, 1, 2, 3); /* a colour few_colours never makes */
    uint8_t *png;
    size_t len;
    char *err = NULL;
    assert_true(png_strips_encode(&f, 2, &png, &len, &err));
    expect_png_of(png, len, &f, SPNG_COLOR_TYPE_TRUECOLOR);
    free(png);
    /* …and through image_encode, as screenshots go. */
    set_px(&f, 639, 39, 0, 255, 0);
    assert_true(image_encode(&f, IMAGE_PNG, 0, &png, &len, &err));
    expect_png_of(png, len, &f, SPNG_COLOR_TYPE_INDEXED);
    free(png);
    frame_finish(&f);
}

/* The IDAT data of a PNG, concatenated, inflated by zlib (which checks the
 * stream's structure and its adler32) to exactly `expect` bytes. */
static void expect_zlib_stream_of(const uint8_t *png, size_t len, size_t expect)
{
    uint8_t *z = malloc(len);
    size_t zlen = 0;
    for (size_t at = 8; at + 12 <= len;) {
        uint32_t n = (uint32_t)png[at] << 24 | png[at + 1] << 16 | png[at + 2] << 8 | png[at + 3];
        if (memcmp(png + at + 4, "IDAT", 4) == 0) {
            memcpy(z + zlen, png + at + 8, n);
            zlen += n;
        }
        at += 12 + n;
    }
    uLongf out_len = (uLongf)expect + 1;
    uint8_t *out = malloc(out_len);
    assert_int_equal(uncompress(out, &out_len, z, zlen), Z_OK);
    assert_int_equal(out_len, expect);
    free(out);
    free(z);
}

enum picture { NOISE, FLAT, TERMINAL, GRADIENT, FEW_COLOURS, PICTURES };

static void paint(struct frame *f, enum picture kind, uint32_t seed)
{
    for (uint32_t y = 0; y < f->height; y++)
        for (uint32_t x = 0; x < f->width; x++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t r = seed >> 8;
            uint32_t cell = (x / 9) * 7 + (y / 17) * 13;
            bool stroke = y % 17 > 3 && y % 17 < 13 && (x % 9 == 4 || y % 17 == 8) && cell % 3;
            switch (kind) {
            case NOISE:
                set_px(f, x, y, (uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16));
                break;
            case FLAT:
                set_px(f, x, y, 30, 40, 50);
                break;
            case TERMINAL: /* cells of many colours, glyph strokes, some antialiasing */
                set_px(f, x, y, stroke ? 230 : (uint8_t)(cell * 37),
                       stroke ? (uint8_t)(200 + x % 3 * 20) : (uint8_t)(cell * 11),
                       stroke ? 220 : (uint8_t)(cell * 5 + (y % 17 > 8)));
                break;
            case GRADIENT:
                set_px(f, x, y, (uint8_t)x, (uint8_t)(y * 3), (uint8_t)(x + y));
                break;
            case FEW_COLOURS:
                set_px(f, x, y, (uint8_t)(cell % 5 * 50), stroke ? 255 : 0, (uint8_t)(r % 2));
                break;
            case PICTURES:
                break;
            }
        }
}

/* Every kind of picture at awkward sizes (one pixel, odd widths, rows
 * longer than a deflate window, more rows than a Huffman block holds) in
 * one strip and several: any decoder gets the same pixels back, and zlib
 * finds a well-formed stream with the right checksum. */
static void test_png_of_every_picture_decodes_to_the_same_pixels(void **state)
{
    static const uint32_t sizes[][2] = {{1, 1},   {3, 7},    {2, 2},     {1, 300},   {300, 1},
                                        {37, 23}, {1568, 9}, {706, 181}, {12000, 5}, {44000, 2}};
    static const int strip_counts[] = {1, 2, 3, 7};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int kind = 0; kind < PICTURES; kind++) {
            struct frame f;
            frame_init(&f, sizes[si][0], sizes[si][1]);
            paint(&f, (enum picture)kind, (uint32_t)(si * 31 + kind));
            for (size_t ci = 0; ci < sizeof strip_counts / sizeof *strip_counts; ci++) {
                uint8_t *png;
                size_t len;
                char *err = NULL;
                assert_true(png_strips_encode(&f, strip_counts[ci], &png, &len, &err));
                struct spng_ihdr ihdr;
                spng_ctx *ctx = spng_ctx_new(0);
                spng_set_png_buffer(ctx, png, len);
                assert_int_equal(spng_get_ihdr(ctx, &ihdr), 0);
                spng_ctx_free(ctx);
                expect_png_of(png, len, &f, ihdr.color_type);
                size_t bpp = ihdr.color_type == SPNG_COLOR_TYPE_INDEXED ? 1 : 3;
                expect_zlib_stream_of(png, len, (1 + f.width * bpp) * f.height);
                free(png);
            }
            frame_finish(&f);
        }
}

/* Screens compress: a flat 1280×800 screen is a few kilobytes, and
 * noise (which no code shortens) is barely larger than its pixels. */
static void test_png_sizes_are_sane(void **state)
{
    struct frame f;
    frame_init(&f, 1280, 800);
    uint8_t *png;
    size_t len;
    char *err = NULL;
    assert_true(image_encode(&f, IMAGE_PNG, 0, &png, &len, &err));
    assert_true(len < 8 * 1024);
    free(png);
    paint(&f, NOISE, 5);
    assert_true(image_encode(&f, IMAGE_PNG, 0, &png, &len, &err));
    size_t raw = (1 + 1280 * 3) * 800;
    assert_true(len > raw && len < raw + raw / 100);
    expect_png_of(png, len, &f, SPNG_COLOR_TYPE_TRUECOLOR);
    free(png);
    frame_finish(&f);
}

static void test_png_honours_stride(void **state)
{
    /* A frame whose rows carry padding, as a capture buffer might. */
    struct frame f = {.width = 5, .height = 4, .stride = 32};
    f.rgba = calloc(f.stride * f.height, 1);
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 5; x++)
            set_px(&f, x, y, 200, (uint8_t)(x * 40), (uint8_t)(y * 60));
    uint8_t *png;
    size_t len;
    char *err = NULL;
    assert_true(image_encode(&f, IMAGE_PNG, 0, &png, &len, &err));
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_png_buffer(ctx, png, len);
    uint8_t dec[5 * 4 * 4];
    assert_int_equal(spng_decode_image(ctx, dec, sizeof(dec), SPNG_FMT_RGBA8, 0), 0);
    assert_memory_equal(dec + (3 * 5 + 4) * 4, ((uint8_t[]){200, 160, 180, 255}), 4);
    spng_ctx_free(ctx);
    free(png);
    free(f.rgba);
}

static void test_jpeg_has_header_and_size(void **state)
{
    struct frame f;
    gradient(&f, 64, 40);
    uint8_t *jpg;
    size_t len;
    char *err = NULL;
    assert_true(image_encode(&f, IMAGE_JPEG, 85, &jpg, &len, &err));
    assert_memory_equal(jpg, "\xff\xd8\xff", 3);
    assert_memory_equal(jpg + len - 2, "\xff\xd9", 2);
    tjhandle tj = tjInitDecompress();
    int w, h, sub, cs;
    assert_int_equal(tjDecompressHeader3(tj, jpg, len, &w, &h, &sub, &cs), 0);
    assert_int_equal(w, 64);
    assert_int_equal(h, 40);
    assert_int_equal(sub, TJSAMP_420);
    uint8_t *dec = malloc(64 * 40 * 4);
    assert_int_equal(tjDecompress2(tj, jpg, len, dec, 64, 0, 40, TJPF_RGBA, 0), 0);
    free(dec);
    tjDestroy(tj);
    free(jpg);
    frame_finish(&f);
}

static void test_webp_has_header_and_size(void **state)
{
    struct frame f;
    gradient(&f, 50, 30);
    uint8_t *webp;
    size_t len;
    char *err = NULL;
    assert_true(image_encode(&f, IMAGE_WEBP, 75, &webp, &len, &err));
    assert_memory_equal(webp, "RIFF", 4);
    assert_memory_equal(webp + 8, "WEBP", 4);
    int w, h;
    assert_true(WebPGetInfo(webp, len, &w, &h));
    assert_int_equal(w, 50);
    assert_int_equal(h, 30);
    free(webp);
    frame_finish(&f);
}

static void test_webp_quality_100_is_lossless(void **state)
{
    struct frame f;
    gradient(&f, 20, 10);
    uint8_t *webp;
    size_t len;
    char *err = NULL;
    assert_true(image_encode(&f, IMAGE_WEBP, 100, &webp, &len, &err));
    int w, h;
    uint8_t *dec = WebPDecodeRGBA(webp, len, &w, &h);
    assert_non_null(dec);
    for (uint32_t y = 0; y < 10; y++)
        assert_memory_equal(dec + y * 20 * 4, px(&f, 0, y), 20 * 4);
    WebPFree(dec);
    free(webp);
    frame_finish(&f);
}

static void test_bad_requests_are_errors(void **state)
{
    struct frame f;
    frame_init(&f, 4, 4);
    uint8_t *out;
    size_t len;
    char *err = NULL;
    assert_false(image_encode(&f, IMAGE_JPEG, 0, &out, &len, &err));
    assert_non_null(strstr(err, "quality"));
    free(err);
    err = NULL;
    assert_false(image_encode(&f, IMAGE_WEBP, 101, &out, &len, &err));
    free(err);
    err = NULL;
    struct frame empty = {0};
    assert_false(image_encode(&empty, IMAGE_PNG, 0, &out, &len, &err));
    assert_non_null(err);
    free(err);
    frame_finish(&f);
}

static void checkerboard(struct frame *f, uint32_t w, uint32_t h)
{
    frame_init(f, w, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t v = (x + y) % 2 ? 255 : 0;
            set_px(f, x, y, v, v, v);
        }
}

static void test_downscaled_checkerboard_is_grey(void **state)
{
    struct frame src, dst;
    checkerboard(&src, 64, 48);
    image_downscale(&src, 32, &dst); /* whole factor */
    assert_int_equal(dst.width, 32);
    assert_int_equal(dst.height, 24);
    for (uint32_t y = 0; y < dst.height; y++)
        for (uint32_t x = 0; x < dst.width; x++) {
            assert_in_range(px(&dst, x, y)[0], 127, 128);
            assert_int_equal(px(&dst, x, y)[3], 255);
        }
    frame_finish(&dst);

    image_downscale(&src, 24, &dst); /* 8/3: every pixel straddles others */
    assert_int_equal(dst.width, 24);
    assert_int_equal(dst.height, 18);
    for (uint32_t y = 0; y < dst.height; y++)
        for (uint32_t x = 0; x < dst.width; x++)
            assert_in_range(px(&dst, x, y)[1], 118, 137);
    frame_finish(&dst);
    frame_finish(&src);
}

static void test_downscale_weights_partial_pixels(void **state)
{
    /* 3 -> 2: each output pixel is 1.5 inputs wide, so the middle input
     * counts half for each. Nearest-neighbour would give 0/90 or 90/180. */
    struct frame src, dst;
    frame_init(&src, 3, 3);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 3; x++)
            set_px(&src, x, y, (uint8_t)(x * 90), 0, 0);
    image_downscale(&src, 2, &dst);
    assert_int_equal(dst.width, 2);
    assert_int_equal(dst.height, 2);
    assert_int_equal(px(&dst, 0, 0)[0], 30);
    assert_int_equal(px(&dst, 1, 0)[0], 150);
    assert_int_equal(px(&dst, 1, 1)[0], 150);
    frame_finish(&dst);
    frame_finish(&src);
}

static void test_downscale_to_same_width_copies(void **state)
{
    struct frame src, dst;
    gradient(&src, 9, 5);
    image_downscale(&src, 9, &dst);
    assert_int_equal(dst.height, 5);
    for (uint32_t y = 0; y < 5; y++)
        assert_memory_equal(px(&dst, 0, y), px(&src, 0, y), 9 * 4);
    frame_finish(&dst);
    frame_finish(&src);
}

/* The exact area average of one destination pixel's channel, in doubles:
 * what the fixed-point passes must stay within one level of. */
static double exact_average(const struct frame *src, uint32_t dw, uint32_t dh, uint32_t dx,
                            uint32_t dy, int c)
{
    double sx = (double)src->width / dw, sy = (double)src->height / dh, sum = 0, area = 0;
    double x0 = dx * sx, x1 = x0 + sx, y0 = dy * sy, y1 = y0 + sy;
    for (uint32_t y = (uint32_t)y0; y < src->height && y < y1; y++) {
        double hy = (y + 1 < y1 ? y + 1 : y1) - (y > y0 ? y : y0);
        for (uint32_t x = (uint32_t)x0; x < src->width && x < x1; x++) {
            double hx = (x + 1 < x1 ? x + 1 : x1) - (x > x0 ? x : x0);
            sum += px(src, x, y)[c] * hx * hy;
            area += hx * hy;
        }
    }
    return sum / area;
}

static void test_downscale_matches_exact_area_average(void **state)
{
    /* Noise at ratios with no whole factor (a phone's 1080×2400 to the
     * 1568-px fit among them, made small): every channel within one level
     * of the exact average, flat areas exact. */
    static const uint32_t sizes[][3] = {{108, 240, 71}, {97, 61, 40}, {50, 50, 33}, {13, 7, 5}};
    srand(7);
    for (size_t n = 0; n < sizeof sizes / sizeof *sizes; n++) {
        struct frame src, dst;
        frame_init(&src, sizes[n][0], sizes[n][1]);
        for (uint32_t y = 0; y < src.height; y++)
            for (uint32_t x = 0; x < src.width; x++)
                set_px(&src, x, y, (uint8_t)rand(), (uint8_t)rand(),
                       (uint8_t)(x < 4 ? 200 : rand()));
        image_downscale(&src, sizes[n][2], &dst);
        for (uint32_t y = 0; y < dst.height; y++)
            for (uint32_t x = 0; x < dst.width; x++)
                for (int c = 0; c < 3; c++) {
                    double want = exact_average(&src, dst.width, dst.height, x, y, c);
                    double got = px(&dst, x, y)[c];
                    if (got < want - 1.0 || got > want + 1.0)
                        fail_msg("%ux%u -> %u: pixel %u,%u channel %d is %.0f, the exact "
                                 "average %.2f",
                                 sizes[n][0], sizes[n][1], sizes[n][2], x, y, c, got, want);
                }
        /* The first columns' blue is flat 200: it stays 200 where a
         * destination pixel covers only them. */
        assert_int_equal(px(&dst, 0, 0)[2], 200);
        assert_int_equal(px(&dst, 0, 0)[3], 255);
        frame_finish(&dst);
        frame_finish(&src);
    }
}

/* GIF ------------------------------------------------------------------- */

struct gif_dir {
    char dir[64];
    char path[96];
};

static int gif_setup(void **state)
{
    struct gif_dir *d = calloc(1, sizeof(*d));
    strcpy(d->dir, "/tmp/glovebox-test-XXXXXX");
    if (!mkdtemp(d->dir))
        return -1;
    snprintf(d->path, sizeof(d->path), "%s/rec.gif", d->dir);
    *state = d;
    return 0;
}

static int dir_entries(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));)
        n += e->d_name[0] != '.';
    closedir(dp);
    return n;
}

static int gif_teardown(void **state)
{
    struct gif_dir *d = *state;
    unlink(d->path);
    rmdir(d->dir);
    free(d);
    return 0;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc(*len);
    assert_int_equal(fread(buf, 1, *len, fp), *len);
    fclose(fp);
    return buf;
}

static size_t skip_sub_blocks(const uint8_t *b, size_t len, size_t i)
{
    while (i < len && b[i])
        i += 1 + b[i];
    return i + 1;
}

/* Walk the GIF block structure; returns image count, delays in delays[]. */
static int parse_gif(const uint8_t *b, size_t len, int *delays, int max)
{
    size_t i = 13;
    if (b[10] & 0x80)
        i += 3u << ((b[10] & 7) + 1);
    int images = 0, delay = -1;
    while (i < len) {
        if (b[i] == 0x3b)
            return images;
        if (b[i] == 0x21) {
            if (b[i + 1] == 0xf9)
                delay = b[i + 4] | b[i + 5] << 8;
            i = skip_sub_blocks(b, len, i + 2);
        } else if (b[i] == 0x2c) {
            if (images < max)
                delays[images] = delay;
            images++;
            uint8_t flags = b[i + 9];
            i += 10;
            if (flags & 0x80)
                i += 3u << ((flags & 7) + 1);
            i = skip_sub_blocks(b, len, i + 1); /* after the LZW code size */
        } else {
            return -1;
        }
    }
    return -1; /* no trailer */
}

static void frame_pattern(uint8_t *idx, int w, int h, int k)
{
    for (int i = 0; i < w * h; i++)
        idx[i] = (uint8_t)((i / w + i % w + k) % 3);
}

static void test_gif_has_every_frame(void **state)
{
    struct gif_dir *d = *state;
    const uint32_t palette[] = {0x000000, 0xffffff, 0xff0000};
    char *err = NULL;
    struct gif_writer *w = gif_writer_create(d->path, 16, 8, palette, 3, &err);
    assert_non_null(w);
    uint8_t idx[16 * 8];
    for (int k = 0; k < 3; k++) {
        frame_pattern(idx, 16, 8, k);
        idx[k] = 2 - idx[k] % 3;
        assert_true(gif_writer_add(w, idx, 10 * (k + 1), &err));
    }
    assert_true(gif_writer_close(w, &err));
    assert_int_equal(dir_entries(d->dir), 1); /* no temporary file left */

    size_t len;
    uint8_t *b = read_file(d->path, &len);
    assert_non_null(b);
    assert_memory_equal(b, "GIF89a", 6);
    assert_int_equal(b[6] | b[7] << 8, 16);
    assert_int_equal(b[8] | b[9] << 8, 8);
    int delays[8];
    assert_int_equal(parse_gif(b, len, delays, 8), 3);
    assert_int_equal(delays[0], 10);
    assert_int_equal(delays[1], 20);
    assert_int_equal(delays[2], 30);
    free(b);
}

static void test_gif_repeated_frame_extends_the_delay(void **state)
{
    struct gif_dir *d = *state;
    const uint32_t palette[] = {0x000000, 0xffffff, 0x00ff00};
    char *err = NULL;
    struct gif_writer *w = gif_writer_create(d->path, 8, 8, palette, 3, &err);
    uint8_t idx[64];
    frame_pattern(idx, 8, 8, 0);
    assert_true(gif_writer_add(w, idx, 5, &err));
    assert_true(gif_writer_add(w, idx, 7, &err));
    frame_pattern(idx, 8, 8, 1);
    assert_true(gif_writer_add(w, idx, 4, &err));
    assert_true(gif_writer_close(w, &err));
    size_t len;
    uint8_t *b = read_file(d->path, &len);
    int delays[8];
    assert_int_equal(parse_gif(b, len, delays, 8), 2);
    assert_int_equal(delays[0], 12);
    assert_int_equal(delays[1], 4);
    free(b);
}

static void test_aborted_gif_leaves_no_file(void **state)
{
    struct gif_dir *d = *state;
    const uint32_t palette[] = {0x000000, 0xffffff};
    char *err = NULL;
    struct gif_writer *w = gif_writer_create(d->path, 8, 8, palette, 2, &err);
    assert_non_null(w);
    uint8_t idx[64] = {0};
    assert_true(gif_writer_add(w, idx, 10, &err));
    idx[5] = 1;
    assert_true(gif_writer_add(w, idx, 10, &err));
    assert_int_equal(dir_entries(d->dir), 1); /* the temporary file */
    gif_writer_abort(w);
    assert_int_equal(dir_entries(d->dir), 0);
    gif_writer_abort(NULL);
}

static void test_gif_without_frames_is_an_error(void **state)
{
    struct gif_dir *d = *state;
    const uint32_t palette[] = {0x000000, 0xffffff};
    char *err = NULL;
    struct gif_writer *w = gif_writer_create(d->path, 8, 8, palette, 2, &err);
    assert_false(gif_writer_close(w, &err));
    assert_non_null(err);
    free(err);
    assert_int_equal(dir_entries(d->dir), 0);
}

static void test_gif_in_missing_directory_is_an_error(void **state)
{
    const uint32_t palette[] = {0x000000, 0xffffff};
    char *err = NULL;
    assert_null(gif_writer_create("/nonexistent/dir/x.gif", 8, 8, palette, 2, &err));
    assert_non_null(strstr(err, "/nonexistent/dir/x.gif.tmp-"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_frame_is_opaque_black),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_png_decodes_to_the_same_pixels),
        cmocka_unit_test(test_png_honours_stride),
        cmocka_unit_test(test_png_strips_decode_to_the_same_pixels),
        cmocka_unit_test(test_png_of_few_colours_is_indexed),
        cmocka_unit_test(test_png_of_257_colours_is_truecolour),
        cmocka_unit_test(test_png_of_every_picture_decodes_to_the_same_pixels),
        cmocka_unit_test(test_png_sizes_are_sane),
        cmocka_unit_test(test_jpeg_has_header_and_size),
        cmocka_unit_test(test_webp_has_header_and_size),
        cmocka_unit_test(test_webp_quality_100_is_lossless),
        cmocka_unit_test(test_bad_requests_are_errors),
        cmocka_unit_test(test_downscaled_checkerboard_is_grey),
        cmocka_unit_test(test_downscale_weights_partial_pixels),
        cmocka_unit_test(test_downscale_to_same_width_copies),
        cmocka_unit_test(test_downscale_matches_exact_area_average),
        cmocka_unit_test_setup_teardown(test_gif_has_every_frame, gif_setup, gif_teardown),
        cmocka_unit_test_setup_teardown(test_gif_repeated_frame_extends_the_delay, gif_setup,
                                        gif_teardown),
        cmocka_unit_test_setup_teardown(test_aborted_gif_leaves_no_file, gif_setup, gif_teardown),
        cmocka_unit_test_setup_teardown(test_gif_without_frames_is_an_error, gif_setup,
                                        gif_teardown),
        cmocka_unit_test(test_gif_in_missing_directory_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
