/* Not a test: the terminal parser's throughput. Generates a realistic
 * terminal stream (plain lines, `ls --color`-like lines, 256- and
 * true-colour text with UTF-8, a top-like redraw with cursor moves and
 * erases) and feeds it through term_screen_feed — glovebox's parser and
 * screen, the path a session's output takes — in 64 KiB reads on a 120×40
 * screen with 10,000 lines of scrollback. Prints MB/s of CPU time (the
 * process's, so a busy machine slows it less than wall time would).
 *
 *   build-bench/tests/unit/bench-term-parser [MB] [runs] [mixed|plain]
 *   (defaults 100 MB, 3 runs, both streams)
 *
 * Also: plain lines only (like `seq`), and the mixed stream through the
 * parser alone (vt_parse, with handlers that do nothing). */
#include "backend/terminal/term_screen.h"
#include "backend/terminal/vt_parse.h"
#include "core/strbuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READ_SIZE (64 * 1024)

static uint32_t rng = 12345;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static const char *const words[] = {
    "the",   "quick",   "brown",    "fox",       "jumps", "over",   "lazy",   "dog",   "src/main.c",
    "error", "warning", "Makefile", "README.md", "int",   "return", "0x7ffd", "build", "test",
};
#define NWORDS (sizeof words / sizeof words[0])

static void words_line(struct strbuf *b, int max)
{
    int n = 0;
    while (n < max) {
        const char *w = words[next() % NWORDS];
        int len = (int)strlen(w);
        if (n + len + 1 > max)
            break;
        strbuf_append(b, w, (size_t)len);
        strbuf_putc(b, ' ');
        n += len + 1;
    }
}

/* One "screenful" of mixed output, appended to b. */
static void mixed_chunk(struct strbuf *b, int *row)
{
    switch (next() % 8) {
    case 0:
    case 1:
    case 2: /* plain lines, as from a compiler or cat */
        for (int i = 0; i < 20; i++) {
            words_line(b, 20 + (int)(next() % 90));
            strbuf_puts(b, "\r\n");
        }
        break;
    case 3:
    case 4: /* ls --color */
        for (int i = 0; i < 20; i++) {
            for (int k = 0; k < 4; k++) {
                static const char *const colours[] = {"01;34", "01;32", "0", "01;36", "00;31"};
                strbuf_printf(b, "\x1b[%sm%s\x1b[0m  ", colours[next() % 5],
                              words[next() % NWORDS]);
            }
            strbuf_puts(b, "\r\n");
        }
        break;
    case 5: /* 256- and true-colour text with UTF-8 */
        for (int i = 0; i < 10; i++) {
            strbuf_printf(b, "\x1b[38;5;%um\xe2\x94\x82 \x1b[38;2;%u;%u;%um", next() % 256,
                          next() % 256, next() % 256, next() % 256);
            words_line(b, 40);
            strbuf_puts(b, "\x1b[1m\xe2\x96\x88\xe2\x96\x88 \xe6\x97\xa5\xe6\x9c\xac\x1b[m\r\n");
        }
        break;
    default: /* a top-like redraw: cursor moves, erases, reverse video */
        strbuf_puts(b, "\x1b[H\x1b[7m  PID USER      %CPU COMMAND\x1b[m\x1b[K");
        for (int r = 2; r <= 40; r++) {
            strbuf_printf(b, "\x1b[%d;1H%5u %-8s %4u.%u ", r, next() % 99999,
                          words[next() % NWORDS], next() % 100, next() % 10);
            words_line(b, 40);
            strbuf_puts(b, "\x1b[K");
        }
        strbuf_puts(b, "\x1b[40;1H\r\n");
        break;
    }
    (void)row;
}

/* CPU time of this process: on a shared machine, wall time measures the
 * neighbours too. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void discard(const char *buf, size_t len, void *ud)
{
    (void)buf, (void)len, (void)ud;
}

static double run(const struct strbuf *stream)
{
    struct term_screen *s = term_screen_create(120, 40, 10000);
    term_screen_set_output(s, discard, NULL);
    double t0 = now_s();
    for (size_t off = 0; off < stream->len; off += READ_SIZE) {
        size_t n = stream->len - off < READ_SIZE ? stream->len - off : READ_SIZE;
        term_screen_feed(s, stream->data + off, n);
    }
    double t = now_s() - t0;
    char *text = term_screen_text(s); /* the work is done: read it back */
    free(text);
    term_screen_destroy(s);
    return t;
}

static void no_text(void *ud, const char *t, size_t n)
{
    (void)ud, (void)t, (void)n;
}
static void no_char(void *ud, uint32_t cp)
{
    (void)ud, (void)cp;
}
static void no_control(void *ud, unsigned char c)
{
    (void)ud, (void)c;
}
static void no_esc(void *ud, const char *inter, int ninter, char final)
{
    (void)ud, (void)inter, (void)ninter, (void) final;
}
static void no_csi(void *ud, const struct vt_csi *q)
{
    (void)ud, (void)q;
}
static void no_dcs(void *ud, const struct vt_csi *h, const char *d, size_t n)
{
    (void)ud, (void)h, (void)d, (void)n;
}

/* The parser alone, with nothing behind it. */
static double run_feed_only(const struct strbuf *stream)
{
    static const struct vt_parse_ops ops = {no_text, no_char, no_control, no_esc,
                                            no_csi,  no_text, no_dcs};
    static struct vt_parser p;
    vt_parse_init(&p, &ops, NULL);
    double t0 = now_s();
    for (size_t off = 0; off < stream->len; off += READ_SIZE) {
        size_t n = stream->len - off < READ_SIZE ? stream->len - off : READ_SIZE;
        vt_parse_feed(&p, stream->data + off, n);
    }
    return now_s() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, const struct strbuf *stream, int runs, bool feed_only)
{
    double t[32];
    for (int i = 0; i < runs; i++)
        t[i] = feed_only ? run_feed_only(stream) : run(stream);
    qsort(t, (size_t)runs, sizeof t[0], cmp);
    double mb = (double)stream->len / 1e6;
    printf("%-34s %7.1f MB  median %7.3f s CPU  %7.1f MB/s  (runs %d, best %.1f MB/s)\n", what, mb,
           t[runs / 2], mb / t[runs / 2], runs, mb / t[0]);
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 100;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (mb < 1 || runs < 1 || runs > 31) {
        fprintf(stderr, "usage: bench-term-parser [MB >= 1] [runs 1..31]\n");
        return 2;
    }
    size_t want = mb * 1000 * 1000;
    struct strbuf mixed, plain;
    strbuf_init(&mixed);
    strbuf_init(&plain);
    int row = 1;
    while (mixed.len < want)
        mixed_chunk(&mixed, &row);
    for (unsigned long i = 1; plain.len < want; i++)
        strbuf_printf(&plain, "%lu\r\n", i);
    const char *only = argc > 3 ? argv[3] : "";
    if (strcmp(only, "plain"))
        report("mixed (text, SGR, UTF-8, moves)", &mixed, runs, false);
    if (strcmp(only, "mixed"))
        report("plain lines (seq)", &plain, runs, false);
    if (!*only)
        report("mixed, vt_parse alone", &mixed, runs, true);
    strbuf_finish(&mixed);
    strbuf_finish(&plain);
    return 0;
}
