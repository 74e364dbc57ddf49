/* How fast the PNG encoder is (image_encode, as screenshots use it) and how
 * large its files are, on synthetic screens and on PNG files named on the
 * command line (decoded first). Prints, per frame, the best and median
 * time of `runs` encodes, MB/s of RGB pixels (3 bytes a pixel, what the
 * encoder reads) and the PNG's size. Asserts nothing; see
 * docs/BENCHMARKS.md. Usage: bench-png [runs] [file.png…] */
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "image/encode.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of every thread of the process: steadier than wall time on a
 * loaded machine. */
static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void set_px(struct frame *f, uint32_t x, uint32_t y, uint32_t rgb)
{
    uint8_t *p = f->rgba + (size_t)y * f->stride + (size_t)x * 4;
    p[0] = (uint8_t)(rgb >> 16);
    p[1] = (uint8_t)(rgb >> 8);
    p[2] = (uint8_t)rgb;
    p[3] = 255;
}

/* Cells of 10×19 pixels in many colours with glyph-like antialiased
 * strokes, as the terminal benchmark's screen. */
static void terminal_like(struct frame *f)
{
    frame_init(f, 1200, 760);
    for (uint32_t y = 0; y < f->height; y++)
        for (uint32_t x = 0; x < f->width; x++) {
            uint32_t cx = x / 10, cy = y / 19, gx = x % 10, gy = y % 19;
            uint32_t bg = (cx * 2654435761u ^ cy * 40503u) & 0x7f7f7f;
            uint32_t fg = bg ^ 0xc0c0c0;
            bool stroke = cx % 3 != 0 && gy > 3 && gy < 15 && (gx == 3 || gy == 9);
            uint32_t edge = cx % 3 != 0 && gy > 3 && gy < 15 && gx == 4 ? 0x606060 : 0;
            set_px(f, x, y, stroke ? fg : bg ^ edge);
        }
}

/* Windows of flat colour with text lines and a gradient title bar. */
static void desktop_like(struct frame *f)
{
    frame_init(f, 1280, 800);
    for (uint32_t y = 0; y < f->height; y++)
        for (uint32_t x = 0; x < f->width; x++) {
            uint32_t c = 0x2e3440;
            if (x > 100 && x < 900 && y > 80 && y < 600) {
                c = y < 110 ? (x * 255 / 1280) << 8 | 0x30 : 0xeceff4;
                if (y > 130 && y % 20 < 12 && x % 8 < 5 && (x * 7 + y) % 11 > 3)
                    c = 0x202020 + ((x + y) % 4) * 0x202020;
            }
            set_px(f, x, y, c);
        }
}

static void noise(struct frame *f, uint32_t w, uint32_t h)
{
    frame_init(f, w, h);
    uint32_t seed = 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            seed = seed * 1103515245u + 12345u;
            set_px(f, x, y, seed >> 8);
        }
}

static bool load_png(const char *path, struct frame *f)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    spng_ctx *ctx = spng_ctx_new(0);
    spng_set_png_file(ctx, fp);
    struct spng_ihdr ihdr;
    size_t size;
    bool ok =
        spng_get_ihdr(ctx, &ihdr) == 0 && spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &size) == 0;
    if (ok) {
        frame_alloc(f, ihdr.width, ihdr.height);
        ok = spng_decode_image(ctx, f->rgba, size, SPNG_FMT_RGBA8, 0) == 0;
        if (!ok)
            frame_finish(f);
    }
    spng_ctx_free(ctx);
    fclose(fp);
    return ok;
}

static void bench(const char *name, const struct frame *f, int runs)
{
    double *ms = calloc((size_t)runs, sizeof *ms);
    size_t bytes = 0;
    double cpu0 = 0;
    for (int i = -3; i < runs; i++) {
        if (i == 0)
            cpu0 = cpu_ms();
        uint8_t *png;
        size_t len;
        char *err = NULL;
        double t0 = now_ms();
        if (!image_encode(f, IMAGE_PNG, 0, &png, &len, &err)) {
            fprintf(stderr, "%s: %s\n", name, err);
            exit(1);
        }
        double t = now_ms() - t0;
        if (i >= 0)
            ms[i] = t;
        bytes = len;
        free(png);
    }
    double cpu = (cpu_ms() - cpu0) / runs;
    qsort(ms, (size_t)runs, sizeof *ms, cmp);
    double rgb_mb = (double)f->width * f->height * 3 / 1e6;
    printf("%-22s %5ux%-5u min %7.3f ms  p50 %7.3f ms  %6.0f MB/s  CPU %7.3f ms  %8zu bytes\n",
           name, f->width, f->height, ms[0], ms[runs / 2], rgb_mb / (ms[runs / 2] / 1e3), cpu,
           bytes);
    free(ms);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 40;
    if (runs < 1)
        runs = 1;
    struct frame f;
    /* BENCH_PNG_FILES=1: the files alone (for a profile of one kind). */
    const char *only = getenv("BENCH_PNG_FILES");
    if (only && *only == '1')
        goto files;
    terminal_like(&f);
    bench("synthetic terminal", &f, runs);
    frame_finish(&f);
    desktop_like(&f);
    bench("synthetic desktop", &f, runs);
    frame_finish(&f);
    noise(&f, 706, 1568);
    bench("noise", &f, runs);
    frame_finish(&f);
files:
    for (int i = 2; i < argc; i++) {
        if (!load_png(argv[i], &f)) {
            fprintf(stderr, "%s: not a PNG this bench reads\n", argv[i]);
            return 1;
        }
        const char *base = strrchr(argv[i], '/');
        bench(base ? base + 1 : argv[i], &f, runs);
        frame_finish(&f);
    }
    return 0;
}
