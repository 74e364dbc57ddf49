/* How fast screenshots are scaled down (image_downscale, the shared
 * pipeline's fit and max_width): a phone's 1080×2400 to the 1568-px fit and
 * 4K and 2560×1600 desktops to 1568 wide, on noise (no shortcut for flat
 * areas). Prints the best and median of `runs`; asserts nothing (see
 * docs/BENCHMARKS.md). Usage: bench-downscale [runs] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "image/scale.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 30;
    if (runs < 1)
        runs = 1;
    static const uint32_t cases[][3] = {{1080, 2400, 706}, {3840, 2160, 1568}, {2560, 1600, 1568}};
    double *t = malloc(sizeof(*t) * (size_t)runs);
    srand(1);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct frame src;
        frame_alloc(&src, cases[c][0], cases[c][1]);
        for (size_t i = 0; i < (size_t)src.stride * src.height; i++)
            src.rgba[i] = (uint8_t)rand();
        for (int r = 0; r < runs; r++) {
            struct frame dst;
            double t0 = now_ms();
            image_downscale(&src, cases[c][2], &dst);
            t[r] = now_ms() - t0;
            frame_finish(&dst);
        }
        qsort(t, (size_t)runs, sizeof *t, cmp);
        printf("%u×%u → %u wide: best %.2f ms, median %.2f ms (%d runs)\n", cases[c][0],
               cases[c][1], cases[c][2], t[0], t[runs / 2], runs);
        frame_finish(&src);
    }
    free(t);
    return 0;
}
