/* Rows clear only the cells they used and scrollback takes only what a
 * line holds (vt_screen's "used"): the fast path for floods. It must be
 * invisible: the same screen, cursor, cells and scrollback as with every row
 * treated as full, however the bytes are split. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"
#include "image/cellgrid.h"

static void feed_in_chunks(struct term_screen *s, const char *data, size_t len, unsigned seed)
{
    srand(seed);
    size_t off = 0;
    while (off < len) {
        size_t n = 1 + (size_t)rand() % 9000;
        if (n > len - off)
            n = len - off;
        term_screen_feed(s, data + off, n);
        off += n;
    }
}

static void assert_same(struct term_screen *a, struct term_screen *b)
{
    char *ta = term_screen_text(a), *tb = term_screen_text(b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    int ra, ca, rb, cb;
    bool va, vb;
    term_screen_cursor(a, &ra, &ca, &va);
    term_screen_cursor(b, &rb, &cb, &vb);
    assert_int_equal(ra, rb);
    assert_int_equal(ca, cb);
    assert_int_equal(term_screen_scrollback_count(a), term_screen_scrollback_count(b));
    struct strbuf la, lb;
    strbuf_init(&la);
    strbuf_init(&lb);
    for (int i = 0; i < term_screen_scrollback_count(a); i++) {
        strbuf_clear(&la);
        strbuf_clear(&lb);
        term_screen_append_scrollback_line(a, i, &la);
        term_screen_append_scrollback_line(b, i, &lb);
        assert_string_equal(la.data ? la.data : "", lb.data ? lb.data : "");
    }
    strbuf_finish(&la);
    strbuf_finish(&lb);
    struct cell_grid ga, gb;
    term_screen_grid(a, &ga);
    term_screen_grid(b, &gb);
    assert_int_equal(ga.cols * ga.rows, gb.cols * gb.rows);
    assert_memory_equal(ga.cells, gb.cells, (size_t)ga.cols * (size_t)ga.rows * sizeof *ga.cells);
    free(ga.cells);
    free(gb.cells);
}

/* A prompt, a command, thousands of plain lines (some exactly the screen's
 * width), coloured and wide lines in between, and a prompt again. */
static void make_flood(struct strbuf *out, int cols, unsigned seed)
{
    srand(seed);
    strbuf_puts(out, "\x1b[?2004hgb$ seq 1 5000\r\n\x1b[?2004l\r");
    for (int i = 1; i <= 5000; i++) {
        int kind = rand() % 200;
        if (kind == 0)
            strbuf_printf(out, "\x1b[31mred %d\x1b[0m\r\n", i);
        else if (kind == 1)
            strbuf_printf(out, "日本語 %d\r\n", i);
        else if (kind == 2)
            strbuf_printf(out, "partial %d", i); /* no line end: next line continues it */
        else if (kind == 3)
            for (int c = 0; c < cols; c++)
                strbuf_putc(out, (char)('a' + c % 26));
        else
            strbuf_printf(out, "%d", i);
        if (kind != 2)
            strbuf_puts(out, kind == 3 ? "\r\n" : "");
        if (kind > 3)
            strbuf_puts(out, "\r\n");
    }
    strbuf_puts(out, "gb$ ");
}

static void run(int cols, int rows, int scrollback, unsigned seed)
{
    struct strbuf in;
    strbuf_init(&in);
    make_flood(&in, cols, seed);
    struct term_screen *fast = term_screen_create(cols, rows, scrollback);
    struct term_screen *slow = term_screen_create(cols, rows, scrollback);
    term_screen_set_fast_scroll(slow, false);
    /* Something on screen first, and the cursor part-way down. */
    const char *before = "line one\r\nline two\r\n\x1b[44m blue \x1b[0m\r\n";
    term_screen_feed(fast, before, strlen(before));
    term_screen_feed(slow, before, strlen(before));
    feed_in_chunks(fast, in.data, in.len, seed);
    feed_in_chunks(slow, in.data, in.len, seed + 1);
    assert_same(fast, slow);
    term_screen_destroy(fast);
    term_screen_destroy(slow);
    strbuf_finish(&in);
}

static void same_as_slow_path(void **state)
{
    for (unsigned seed = 1; seed <= 6; seed++) {
        run(80, 24, 1000, seed);
        run(120, 40, 10000, seed);
        run(40, 10, 50, seed); /* scrollback smaller than the flood */
        run(40, 10, 0, seed);  /* no scrollback at all */
    }
}

static void whole_flood_in_one_feed(void **state)
{
    struct strbuf in;
    strbuf_init(&in);
    for (int i = 1; i <= 200000; i++)
        strbuf_printf(&in, "%d\r\n", i);
    struct term_screen *fast = term_screen_create(120, 40, 10000);
    struct term_screen *slow = term_screen_create(120, 40, 10000);
    term_screen_set_fast_scroll(slow, false);
    term_screen_feed(fast, in.data, in.len);
    term_screen_feed(slow, in.data, in.len);
    assert_same(fast, slow);
    struct strbuf line;
    strbuf_init(&line);
    term_screen_append_line(fast, 38, &line);
    assert_string_equal(line.data, "200000");
    strbuf_finish(&line);
    term_screen_destroy(fast);
    term_screen_destroy(slow);
    strbuf_finish(&in);
}

static void alternate_screen_and_charsets_take_the_slow_path(void **state)
{
    struct strbuf in;
    strbuf_init(&in);
    /* Line drawing: "q" prints a horizontal line, so plain text is not plain. */
    strbuf_puts(&in, "\x1b(0");
    for (int i = 0; i < 500; i++)
        strbuf_puts(&in, "qqqq\r\n");
    strbuf_puts(&in, "\x1b(B\x1b[?1049h");
    for (int i = 0; i < 500; i++)
        strbuf_printf(&in, "alt %d\r\n", i);
    struct term_screen *fast = term_screen_create(80, 24, 1000);
    struct term_screen *slow = term_screen_create(80, 24, 1000);
    term_screen_set_fast_scroll(slow, false);
    feed_in_chunks(fast, in.data, in.len, 7);
    feed_in_chunks(slow, in.data, in.len, 8);
    assert_same(fast, slow);
    term_screen_destroy(fast);
    term_screen_destroy(slow);
    strbuf_finish(&in);
}

/* Coloured floods take the two-row scroll region: lines with SGR, UTF-8,
 * wide characters, tabs and EL, some wider than the screen (those wrap and
 * take the slow path), some leaving the pen coloured across the line end
 * (slow path too), and a prompt. Same screen, cells and scrollback. */
static void coloured_flood_same_as_slow_path(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 4; seed++) {
        struct strbuf in;
        strbuf_init(&in);
        srand(seed);
        strbuf_puts(&in, "gb$ make\r\n");
        for (int i = 1; i <= 3000; i++) {
            switch (rand() % 12) {
            case 0:
                strbuf_printf(&in, "\x1b[44mblue bg %d\r\n\x1b[0m", i); /* pen across the end */
                break;
            case 1:
                for (int c = 0; c < 45; c++)
                    strbuf_puts(&in, "\xe6\x97\xa5"); /* wraps on narrow screens */
                strbuf_puts(&in, "\r\n");
                break;
            case 2:
                strbuf_printf(&in, "\x1b[01;31m\x1b[Kerror\x1b[m\x1b[K: %d\tx\r\n", i);
                break;
            case 4: /* stray UTF-8 continuation bytes: one U+FFFD each */
                strbuf_printf(&in, "%d\x80\xbf\xe6\x97)\r\n", i);
                break;
            case 3:
                strbuf_printf(&in, "\x1b[38;5;%dm\xe2\x94\x82\x1b[38;2;1;2;3m %d\x1b[0m\r\n",
                              i % 256, i);
                break;
            default:
                strbuf_printf(&in, "\x1b[1;32mok\x1b[0m line %d\r\n", i);
                break;
            }
        }
        strbuf_puts(&in, "gb$ ");
        int sizes[][3] = {{80, 24, 1000}, {40, 10, 50}, {120, 40, 10000}, {60, 3, 0}, {2, 1, 5}};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            struct term_screen *fast = term_screen_create(sizes[k][0], sizes[k][1], sizes[k][2]);
            struct term_screen *slow = term_screen_create(sizes[k][0], sizes[k][1], sizes[k][2]);
            term_screen_set_fast_scroll(slow, false);
            feed_in_chunks(fast, in.data, in.len, seed);
            feed_in_chunks(slow, in.data, in.len, seed + 1);
            assert_same(fast, slow);
            term_screen_destroy(fast);
            term_screen_destroy(slow);
        }
        strbuf_finish(&in);
    }
}

/* A stray UTF-8 continuation byte in a flood of plain lines is not plain
 * (it prints U+FFFD): found by fuzz_term_screen, where the fast path then
 * read past the end of the input. */
static void stray_continuation_bytes_in_a_plain_flood(void **state)
{
    (void)state;
    struct strbuf in;
    strbuf_init(&in);
    for (int i = 1; i <= 400; i++)
        strbuf_printf(&in, i % 50 == 7 ? "%d\x80)\r\n" : "%d\r\n", i);
    int sizes[][2] = {{80, 24}, {4, 1}, {3, 3}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct term_screen *fast = term_screen_create(sizes[k][0], sizes[k][1], 100);
        struct term_screen *slow = term_screen_create(sizes[k][0], sizes[k][1], 100);
        term_screen_set_fast_scroll(slow, false);
        term_screen_feed(fast, in.data, in.len);
        term_screen_feed(slow, in.data, in.len);
        assert_same(fast, slow);
        term_screen_destroy(fast);
        term_screen_destroy(slow);
    }
    strbuf_finish(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_as_slow_path),
        cmocka_unit_test(whole_flood_in_one_feed),
        cmocka_unit_test(alternate_screen_and_charsets_take_the_slow_path),
        cmocka_unit_test(coloured_flood_same_as_slow_path),
        cmocka_unit_test(stray_continuation_bytes_in_a_plain_flood),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
