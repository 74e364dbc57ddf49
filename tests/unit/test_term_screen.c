/* The terminal screen: what a program prints is what the agent reads back, as
 * text and as coloured cells. */
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

static void feed(struct term_screen *s, const char *text)
{
    term_screen_feed(s, text, strlen(text));
}

static char *line(struct term_screen *s, int row)
{
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "", 0);
    term_screen_append_line(s, row, &sb);
    return strbuf_steal(&sb);
}

static void assert_line(struct term_screen *s, int row, const char *want)
{
    char *got = line(s, row);
    assert_string_equal(got, want);
    free(got);
}

static struct cell cell_at(struct term_screen *s, int row, int col)
{
    struct cell_grid g;
    term_screen_grid(s, &g);
    struct cell c = g.cells[row * g.cols + col];
    free(g.cells);
    return c;
}

static void printed_lines_read_back_as_text(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 100);
    feed(s, "hello\r\nworld");
    assert_line(s, 0, "hello");
    assert_line(s, 1, "world");
    assert_line(s, 2, "");
    char *text = term_screen_text(s);
    assert_string_equal(text, "hello\nworld");
    free(text);
    int row, col;
    bool visible;
    term_screen_cursor(s, &row, &col, &visible);
    assert_int_equal(row, 1);
    assert_int_equal(col, 5);
    assert_true(visible);
    feed(s, "\x1b[?25l");
    term_screen_cursor(s, &row, &col, &visible);
    assert_false(visible);
    term_screen_destroy(s);
}

static void empty_screen_is_empty_text(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(10, 3, 0);
    char *text = term_screen_text(s);
    assert_string_equal(text, "");
    free(text);
    text = term_screen_scrollback_text(s, 5);
    assert_string_equal(text, "");
    free(text);
    term_screen_destroy(NULL);
    term_screen_destroy(s);
}

static void colours_resolve_to_rgb(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 0);
    feed(s, "\x1b[31mR\x1b[38;5;196mI\x1b[38;2;1;2;3mT\x1b[0m\x1b[48;5;21mB\x1b[0mD");
    struct cell red = cell_at(s, 0, 0);
    assert_int_equal(red.chars[0], 'R');
    assert_int_equal(red.fg, 0xCD3131);
    assert_int_equal(red.bg, TERM_SCREEN_DEFAULT_BG);
    assert_int_equal(cell_at(s, 0, 1).fg, 0xFF0000);
    assert_int_equal(cell_at(s, 0, 2).fg, 0x010203);
    assert_int_equal(cell_at(s, 0, 3).bg, 0x0000FF);
    struct cell plain = cell_at(s, 0, 4);
    assert_int_equal(plain.fg, TERM_SCREEN_DEFAULT_FG);
    assert_int_equal(plain.bg, TERM_SCREEN_DEFAULT_BG);
    assert_int_not_equal(TERM_SCREEN_DEFAULT_FG, TERM_SCREEN_DEFAULT_BG);
    /* Blank cells carry the default colours too. */
    assert_int_equal(cell_at(s, 5, 5).bg, TERM_SCREEN_DEFAULT_BG);
    term_screen_destroy(s);
}

static void reverse_video_and_attributes_show_in_the_grid(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 0);
    feed(s, "\x1b[7mR\x1b[0m\x1b[1mB\x1b[0m\x1b[3mI\x1b[0m\x1b[4mU\x1b[0m\x1b[9mS\x1b[0m"
            "\x1b[21mW\x1b[0m\x1b[5mK\x1b[0m\x1b[31;7mX");
    struct cell r = cell_at(s, 0, 0);
    assert_int_equal(r.fg, TERM_SCREEN_DEFAULT_BG);
    assert_int_equal(r.bg, TERM_SCREEN_DEFAULT_FG);
    assert_int_equal(cell_at(s, 0, 1).attrs, CELL_BOLD);
    assert_int_equal(cell_at(s, 0, 2).attrs, CELL_ITALIC);
    assert_int_equal(cell_at(s, 0, 3).attrs, CELL_UNDERLINE);
    assert_int_equal(cell_at(s, 0, 4).attrs, CELL_STRIKE);
    assert_int_equal(cell_at(s, 0, 5).attrs, CELL_DOUBLE_UNDERLINE);
    assert_int_equal(cell_at(s, 0, 6).attrs, CELL_BLINK);
    struct cell x = cell_at(s, 0, 7);
    assert_int_equal(x.bg, 0xCD3131);
    assert_int_equal(x.fg, TERM_SCREEN_DEFAULT_BG);
    /* The whole screen in reverse (DECSCNM) swaps the blanks as well. */
    feed(s, "\x1b[?5h");
    assert_int_equal(cell_at(s, 3, 3).bg, TERM_SCREEN_DEFAULT_FG);
    term_screen_destroy(s);
}

static void wide_characters_take_two_cells(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 0);
    feed(s, "\x1b[32m日本\x1b[0m!");
    struct cell_grid g;
    term_screen_grid(s, &g);
    assert_int_equal(g.cols, 80);
    assert_int_equal(g.rows, 24);
    assert_int_equal(g.cells[0].chars[0], 0x65E5);
    assert_int_equal(g.cells[0].width, 2);
    assert_int_equal(g.cells[1].width, 0);
    assert_int_equal(g.cells[1].chars[0], 0);
    assert_int_equal(g.cells[1].fg, g.cells[0].fg); /* painted like its left half */
    assert_int_equal(g.cells[2].chars[0], 0x672C);
    assert_int_equal(g.cells[2].width, 2);
    assert_int_equal(g.cells[3].width, 0);
    assert_int_equal(g.cells[4].chars[0], '!');
    assert_int_equal(g.cells[4].width, 1);
    assert_int_equal(g.cursor_col, 5);
    free(g.cells);
    assert_line(s, 0, "日本!");
    term_screen_destroy(s);
}

static void combining_marks_are_kept(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 5, 0);
    feed(s, "e\xcc\x81t\xc3\xa9");
    assert_line(s, 0, "e\xcc\x81t\xc3\xa9");
    struct cell c = cell_at(s, 0, 0);
    assert_int_equal(c.chars[0], 'e');
    assert_int_equal(c.chars[1], 0x301);
    assert_int_equal(c.chars[2], 0);
    term_screen_destroy(s);
}

static void utf8_split_across_reads_still_decodes(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 5, 0);
    const char *text = "日本語 ok";
    for (const char *p = text; *p; p++)
        term_screen_feed(s, p, 1);
    assert_line(s, 0, "日本語 ok");
    term_screen_destroy(s);
}

static void title_comes_from_osc_0_and_2(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 0);
    assert_string_equal(term_screen_title(s), "");
    feed(s, "\x1b]0;my title\x07");
    assert_string_equal(term_screen_title(s), "my title");
    feed(s, "\x1b]2;second \xe2\x9c\x93\x1b\\after");
    assert_string_equal(term_screen_title(s), "second \xe2\x9c\x93");
    assert_line(s, 0, "after");
    /* Invalid UTF-8 and controls in a title do not reach the reader. */
    feed(s, "\x1b]2;bad\xff\x01x\x07");
    assert_string_equal(term_screen_title(s), "bad\xef\xbf\xbdx");
    term_screen_destroy(s);
}

static void title_split_across_reads_arrives_whole(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 0);
    char title[301];
    memset(title, 't', 300);
    title[300] = '\0';
    char seq[400];
    snprintf(seq, sizeof seq, "ab\x1b]2;%s\x1b\\cd", title);
    /* Every split point, including between ESC and backslash. */
    size_t n = strlen(seq);
    for (size_t cut = 1; cut < n; cut += 7) {
        feed(s, "\x1b]2;reset\x07");
        term_screen_feed(s, seq, cut);
        term_screen_feed(s, seq + cut, n - cut);
        assert_string_equal(term_screen_title(s), title);
    }
    feed(s, "\x1b]2;x\x1b");
    feed(s, "\\");
    assert_string_equal(term_screen_title(s), "x");
    /* One byte at a time. */
    feed(s, "\r\n");
    for (size_t i = 0; i < n; i++)
        term_screen_feed(s, seq + i, 1);
    assert_string_equal(term_screen_title(s), title);
    char *text = term_screen_text(s);
    assert_non_null(strstr(text, "abcd"));
    free(text);
    term_screen_destroy(s);
}

static void alternate_screen_is_reported_and_restores_the_primary(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 100);
    feed(s, "shell prompt");
    assert_false(term_screen_altscreen(s));
    feed(s, "\x1b[?1049h\x1b[Hfull screen app");
    assert_true(term_screen_altscreen(s));
    assert_line(s, 0, "full screen app");
    feed(s, "\x1b[?1049l");
    assert_false(term_screen_altscreen(s));
    assert_line(s, 0, "shell prompt");
    term_screen_destroy(s);
}

static void bracketed_paste_mode_is_tracked(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 24, 0);
    assert_false(term_screen_bracketed_paste(s));
    feed(s, "\x1b[?20");
    feed(s, "04h");
    assert_true(term_screen_bracketed_paste(s));
    feed(s, "\x1b[?2004l");
    assert_false(term_screen_bracketed_paste(s));
    feed(s, "\x1b[?2004h");
    assert_true(term_screen_bracketed_paste(s));
    feed(s, "\x1b"
            "c"); /* a full reset turns it off */
    assert_false(term_screen_bracketed_paste(s));
    term_screen_destroy(s);
}

static void scrolled_lines_stay_in_scrollback(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 10, 1000);
    char buf[32];
    for (int i = 0; i < 100; i++) {
        snprintf(buf, sizeof buf, "line %d\r\n", i);
        feed(s, buf);
    }
    /* 100 lines and the empty one the cursor sits on: 91 scrolled off. */
    assert_int_equal(term_screen_scrollback_count(s), 91);
    struct strbuf sb;
    strbuf_init(&sb);
    term_screen_append_scrollback_line(s, 0, &sb);
    assert_string_equal(sb.data, "line 0");
    strbuf_finish(&sb);
    char *last = term_screen_scrollback_text(s, 3);
    assert_string_equal(last, "line 88\nline 89\nline 90");
    free(last);
    assert_line(s, 0, "line 91");

    /* Growing the screen brings lines back from scrollback. */
    term_screen_resize(s, 20, 15);
    int cols, rows;
    term_screen_size(s, &cols, &rows);
    assert_int_equal(rows, 15);
    assert_int_equal(term_screen_scrollback_count(s), 86);
    assert_line(s, 0, "line 86");
    assert_line(s, 5, "line 91");
    /* Shrinking pushes them out again. */
    term_screen_resize(s, 20, 5);
    assert_line(s, 0, "line 96");
    term_screen_destroy(s);
}

static void scrollback_is_bounded_and_keeps_wide_and_coloured_cells(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(6, 3, 5);
    char buf[64];
    for (int i = 0; i < 20; i++) {
        snprintf(buf, sizeof buf, "\x1b[31m%d日e\xcc\x81\x1b[0m\r\n", i % 10);
        feed(s, buf);
    }
    assert_int_equal(term_screen_scrollback_count(s), 5);
    struct strbuf sb;
    strbuf_init(&sb);
    term_screen_append_scrollback_line(s, 4, &sb);
    assert_string_equal(sb.data, "7日e\xcc\x81");
    strbuf_finish(&sb);
    /* Back onto the screen with its colour and width intact. */
    term_screen_resize(s, 6, 4);
    assert_line(s, 0, "7日e\xcc\x81");
    struct cell c = cell_at(s, 0, 1);
    assert_int_equal(c.width, 2);
    assert_int_equal(c.fg, 0xCD3131);
    /* A narrower screen cannot hold the wide character in its last column. */
    term_screen_resize(s, 2, 3);
    term_screen_resize(s, 2, 8);
    term_screen_resize(s, 9, 9);
    char *text = term_screen_text(s);
    assert_non_null(text);
    free(text);
    term_screen_destroy(s);
}

static void collect(const char *buf, size_t len, void *ud)
{
    strbuf_append(ud, buf, len);
}

static void cursor_position_report_reaches_the_program(void **state)
{
    (void)state;
    struct strbuf out;
    strbuf_init(&out);
    struct term_screen *s = term_screen_create(80, 24, 0);
    term_screen_set_output(s, collect, &out);
    feed(s, "abc\x1b[6n");
    assert_int_equal(out.len, 6);
    assert_memory_equal(out.data, "\x1b[1;4R", 6);
    strbuf_clear(&out);
    feed(s, "\x1b[c");
    assert_true(out.len > 3 && !memcmp(out.data, "\x1b[?", 3));
    /* Nobody listening: the answer is dropped. */
    term_screen_set_output(s, NULL, NULL);
    feed(s, "\x1b[6n");
    term_screen_destroy(s);
    strbuf_finish(&out);
}

static void status_queries_get_well_formed_answers(void **state)
{
    (void)state;
    struct strbuf out;
    strbuf_init(&out);
    struct term_screen *s = term_screen_create(80, 24, 0);
    term_screen_set_output(s, collect, &out);
    /* The SGR query gets the pen as xterm writes it. */
    feed(s, "\x1bP$qm\x1b\\");
    assert_string_equal(out.data, "\x1bP1$r0m\x1b\\");
    strbuf_clear(&out);
    feed(s, "\x1b[1;38;5;196;48;2;1;2;3m\x1bP$qm\x1b\\\x1b[m");
    assert_string_equal(out.data, "\x1bP1$r0;1;38;5;196;48;2;1;2;3m\x1b\\");
    /* An unknown one gets xterm's "invalid" answer, split or not. */
    strbuf_clear(&out);
    feed(s, "\x1bP$qxyz\x1b\\");
    assert_string_equal(out.data, "\x1bP0$r\x1b\\");
    strbuf_clear(&out);
    feed(s, "\x1bP$");
    feed(s, "q\x1b");
    feed(s, "\\after");
    assert_string_equal(out.data, "\x1bP0$r\x1b\\");
    assert_line(s, 0, "after");
    term_screen_destroy(s);
    strbuf_finish(&out);
}

static void repeated_characters_are_printed(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 5, 0);
    feed(s, "ab\x1b[3b");
    assert_line(s, 0, "abbbb");
    feed(s, "\r\n\xe6\x97\xa5\x1b[2b");
    assert_line(s, 1, "日日日");
    /* After a zero-width character, which joins nothing at a line start. */
    feed(s, "\r\n\xe2\x80\x8b\x1b[5b.");
    /* At most a row's worth, however many are asked for, wrapping as
     * printed characters do. */
    feed(s, "\r\nx\x1b[999999999b");
    assert_line(s, 3, "xxxxxxxxxxxxxxxxxxxx");
    assert_line(s, 4, "x");
    term_screen_destroy(s);
}

static void shrinking_keeps_cursors_and_regions_on_the_screen(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(80, 25, 100);
    /* Lines below the cursor scroll off: the cursor stays on the top row. */
    feed(s, "\x1b[24HLine 24\r\nLine 25\x1b[H");
    term_screen_resize(s, 80, 20);
    int row, col;
    bool visible;
    term_screen_cursor(s, &row, &col, &visible);
    assert_int_equal(row, 0);
    feed(s, "X");
    /* A saved cursor, a scroll region and an ordinary cursor past the edge. */
    feed(s, "\x1b[22;70H\x1b[31m\x1b"
            "7\x1b[0m\x1b[12;18r\x1b[?25l\x1b[18;60H");
    term_screen_resize(s, 40, 10);
    term_screen_cursor(s, &row, &col, &visible);
    assert_true(row >= 0 && row < 10);
    assert_int_equal(col, 39);
    assert_false(visible);
    /* The pen in use survives the repairs. */
    feed(s, "\x1b[32mG\x1b[0m");
    assert_int_equal(cell_at(s, row, col).fg, 0x0DBC79);
    feed(s, "a\x1b[S\x1b[T\x1b[L\x1b[M\x1b[4h\x1b[K\x1b[Jb");
    feed(s, "\x1b"
            "8Y\x1b[@\x1b[P\x1bMZ\r\n\r\n");
    term_screen_cursor(s, &row, &col, &visible);
    assert_true(row >= 0 && row < 10 && col >= 0 && col < 40);
    struct cell_grid g;
    term_screen_grid(s, &g);
    free(g.cells);
    term_screen_resize(s, 2, 1);
    feed(s, "\xe6\x97\xa5\xe6\x97\xa5\x1b"
            "8\xe6\x97\xa5");
    term_screen_resize(s, 80, 24);
    term_screen_destroy(s);
}

static void c1_controls_in_utf8_are_ignored(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 5, 0);
    feed(s, "a\xc2\x85\xc2\x9b"
            "b");
    assert_line(s, 0, "ab");
    int row, col;
    bool visible;
    term_screen_cursor(s, &row, &col, &visible);
    assert_int_equal(col, 2);
    /* Invalid UTF-8 shows as U+FFFD; a character cut short by a newline too. */
    feed(s, "\r\n\xff\xe6\x97\n\rc");
    assert_line(s, 1, "\xef\xbf\xbd\xef\xbf\xbd");
    assert_line(s, 2, "c");
    term_screen_destroy(s);
}

static void count(void *ud)
{
    (*(int *)ud)++;
}

static void changes_are_counted_and_announced_once_per_feed(void **state)
{
    (void)state;
    int calls = 0;
    struct term_screen *s = term_screen_create(80, 24, 0);
    term_screen_set_damage_cb(s, count, &calls);
    uint64_t c0 = term_screen_changes(s);
    feed(s, "lots\r\nof\r\ntext");
    assert_int_equal(calls, 1);
    uint64_t c1 = term_screen_changes(s);
    assert_true(c1 > c0);
    feed(s, "");
    feed(s, "\x1b[?2004h"); /* a mode nobody sees */
    assert_int_equal(calls, 1);
    assert_true(term_screen_changes(s) == c1);
    feed(s, "\x1b]2;t\x07");
    assert_int_equal(calls, 2);
    term_screen_resize(s, 40, 10);
    assert_int_equal(calls, 3);
    term_screen_destroy(s);
}

static void feed_all(struct term_screen *s, const unsigned char *buf, size_t len, unsigned seed)
{
    srand(seed);
    size_t i = 0;
    while (i < len) {
        size_t n = (size_t)(rand() % 5000) + 1;
        if (rand() % 4 == 0)
            n = (size_t)(rand() % 4) + 1;
        if (n > len - i)
            n = len - i;
        term_screen_feed(s, (const char *)buf + i, n);
        i += n;
    }
}

static void check_readable(struct term_screen *s)
{
    char *text = term_screen_text(s);
    free(text);
    text = term_screen_scrollback_text(s, 1000);
    free(text);
    struct cell_grid g;
    term_screen_grid(s, &g);
    free(g.cells);
    (void)term_screen_title(s);
    (void)term_screen_bracketed_paste(s);
}

static void discard(const char *buf, size_t len, void *ud)
{
    (void)buf, (void)len, (void)ud;
}

/* Found by fuzzing libvterm, kept for the emulator that replaced it: an
 * escape cut short by another ESC, then "! [ … b". */
static void an_interrupted_escape_never_hangs(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
    } inputs[] = {
        {"\x1b\x1b![\xe2[b", 7},
        {"\x1b\x1b![5\x0c"
         "b\xe2\x00![5\x0c"
         "b\xe2\x00\x1d\n",
         18},
        {"x\x1b\x1b[5b", 6},
        {"x\x1b[1\x1b[3b", 8},
        {"\x1bP\x1b\x1b![b[b", 9},
        {"\x1b\x1bP0\x1b\x1b![5\x0c"
         "b[5\x0c"
         "b",
         15},
    };
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
        struct term_screen *s = term_screen_create(82, 1, 20);
        term_screen_set_output(s, discard, NULL);
        term_screen_feed(s, inputs[k].bytes, inputs[k].len);
        term_screen_feed(s, "\rok", 3);
        char *text = term_screen_text(s);
        assert_non_null(strstr(text, "ok"));
        free(text);
        term_screen_destroy(s);
    }
    /* REP still repeats the character before it. */
    struct term_screen *s = term_screen_create(20, 2, 20);
    term_screen_set_output(s, discard, NULL);
    term_screen_feed(s, "x\x1b\x1b[3b", 6);
    assert_line(s, 0, "xxxx");
    term_screen_destroy(s);
}

/* Rows' text is kept between reads until they change:
 * a screen read after every chunk must read the same as one read only at
 * the end, whatever the chunks do (scroll, clear, insert, the alternate
 * screen, regions, resizes, the fast scroll paths). */
static void cached_row_text_matches_a_fresh_read(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "hello\r\n",
        "a\tb\r\n",
        "\x1b[2J",
        "\x1b[H",
        "\x1b[5;10H",
        "x",
        "\x1b[K",
        "\x1b[1L",
        "\x1b[2M",
        "\x1b[3@",
        "\x1b[2P",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[3;8r",
        "\x1b[r",
        "\x1bM",
        "\x1b"
        "D",
        "\x1b[2S",
        "\x1b[1T",
        "\xe6\x97\xa5",
        "e\xcc\x81",
        "\x1b[31mred\x1b[0m",
        "\r",
        "\n",
        "\b",
        "\x1b[20X",
        "\x1b[1J",
        "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n",
        "\x1b[?6h",
        "\x1b[?6l",
        "\x1b[?7l",
        "\x1b[?7h",
        "\x1b#8",
        "\x1b"
        "c"};
    srand(7);
    for (int round = 0; round < 150; round++) {
        struct term_screen *eager = term_screen_create(20, 8, 100);
        struct term_screen *lazy = term_screen_create(20, 8, 100);
        for (int step = 0; step < 60; step++) {
            const char *p = pieces[(unsigned)rand() % (sizeof pieces / sizeof *pieces)];
            feed(eager, p);
            feed(lazy, p);
            if (rand() % 9 == 0) {
                int cols = 10 + rand() % 20, rows = 3 + rand() % 10;
                term_screen_resize(eager, cols, rows);
                term_screen_resize(lazy, cols, rows);
            }
            free(term_screen_text(eager));
        }
        char *want = term_screen_text(lazy), *got = term_screen_text(eager);
        assert_string_equal(got, want);
        free(want);
        free(got);
        term_screen_destroy(eager);
        term_screen_destroy(lazy);
    }
}

static void garbage_does_not_crash(void **state)
{
    (void)state;
    size_t len = 1 << 20;
    unsigned char *buf = malloc(len);
    assert_non_null(buf);
    struct term_screen *s = term_screen_create(80, 24, 500);
    struct strbuf out;
    strbuf_init(&out);
    term_screen_set_output(s, collect, &out);

    srand(1);
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)rand();
    term_screen_feed(s, (const char *)buf, len);
    check_readable(s);
    feed_all(s, buf, len, 2);
    check_readable(s);

    /* Escape-heavy garbage: the bytes parsers care about. */
    static const unsigned char alphabet[] = {0x1b, '[',  ']',  'P',  '\\', 0x07, ';',  '?',  '0',
                                             '1',  '2',  'h',  'm',  'H',  0x18, 0x0a, 0x0d, 0xe6,
                                             0x97, 0xa5, 0x9b, 0x9d, 0x00, '$',  'q'};
    for (size_t i = 0; i < len; i++)
        buf[i] = alphabet[(unsigned)rand() % sizeof alphabet];
    feed_all(s, buf, len, 3);
    check_readable(s);
    term_screen_resize(s, 7, 3);
    feed_all(s, buf, len, 4);
    term_screen_resize(s, 200, 60);
    check_readable(s);

    free(buf);
    term_screen_destroy(s);
    strbuf_finish(&out);
}

/* len bytes: prefix, then fill. Caller frees. */
static char *flood(const char *prefix, char fill, size_t len)
{
    char *b = malloc(len);
    if (!b)
        abort();
    size_t p = strlen(prefix);
    memset(b, fill, len);
    memcpy(b, prefix, p);
    return b;
}

static void floods_do_not_crash(void **state)
{
    (void)state;
    size_t len = 1 << 20;
    struct term_screen *s = term_screen_create(80, 24, 10000);

    /* An endless title. */
    char *buf = flood("\x1b]2;", 'x', len);
    term_screen_feed(s, buf, len);
    feed_all(s, (const unsigned char *)buf, len, 5);
    term_screen_feed(s, "\x07", 1);
    check_readable(s);
    feed(s, "\x1b]2;ok\x07");
    assert_string_equal(term_screen_title(s), "ok");
    free(buf);

    /* An ESC inside a string followed by control bytes for ever. */
    buf = flood("\x1b]2;a\x1b", '\r', len);
    feed_all(s, (const unsigned char *)buf, len, 6);
    feed(s, "\x1b\\");
    check_readable(s);
    free(buf);

    /* Intermediates for ever. */
    buf = flood("\x1b", ' ', len);
    feed_all(s, (const unsigned char *)buf, len, 7);
    feed(s, "0");
    free(buf);

    /* Newlines: every one scrolls (a quarter of the flood is plenty). */
    buf = flood("", '\n', len);
    term_screen_feed(s, buf, len / 4);
    feed(s, "\r\nend");
    assert_int_equal(term_screen_scrollback_count(s), 10000);

    /* Wide characters wrapping at the edge. */
    for (size_t i = 0; i + 3 <= len; i += 3)
        memcpy(buf + i, "\xe6\x97\xa5", 3);
    feed_all(s, (const unsigned char *)buf, len - len % 3, 8);
    check_readable(s);
    free(buf);

    feed(s, "\x1b[2J\x1b[Hdone");
    assert_line(s, 0, "done");
    term_screen_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(printed_lines_read_back_as_text),
        cmocka_unit_test(empty_screen_is_empty_text),
        cmocka_unit_test(colours_resolve_to_rgb),
        cmocka_unit_test(reverse_video_and_attributes_show_in_the_grid),
        cmocka_unit_test(wide_characters_take_two_cells),
        cmocka_unit_test(combining_marks_are_kept),
        cmocka_unit_test(utf8_split_across_reads_still_decodes),
        cmocka_unit_test(title_comes_from_osc_0_and_2),
        cmocka_unit_test(title_split_across_reads_arrives_whole),
        cmocka_unit_test(alternate_screen_is_reported_and_restores_the_primary),
        cmocka_unit_test(bracketed_paste_mode_is_tracked),
        cmocka_unit_test(scrolled_lines_stay_in_scrollback),
        cmocka_unit_test(scrollback_is_bounded_and_keeps_wide_and_coloured_cells),
        cmocka_unit_test(cursor_position_report_reaches_the_program),
        cmocka_unit_test(status_queries_get_well_formed_answers),
        cmocka_unit_test(repeated_characters_are_printed),
        cmocka_unit_test(shrinking_keeps_cursors_and_regions_on_the_screen),
        cmocka_unit_test(c1_controls_in_utf8_are_ignored),
        cmocka_unit_test(changes_are_counted_and_announced_once_per_feed),
        cmocka_unit_test(an_interrupted_escape_never_hangs),
        cmocka_unit_test(cached_row_text_matches_a_fresh_read),
        cmocka_unit_test(garbage_does_not_crash),
        cmocka_unit_test(floods_do_not_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
