/* glovebox's terminal emulator does what xterm does with what programs
 * print: scroll regions, insert and delete, insert mode, origin mode, tabs,
 * autowrap, line drawing, wide characters, attributes, resets and the
 * answers to queries. Read back as the agent reads it (text, cells). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/terminal/term_keys.h"
#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"
#include "image/cellgrid.h"

static void feed(struct term_screen *s, const char *text)
{
    term_screen_feed(s, text, strlen(text));
}

static void assert_line(struct term_screen *s, int row, const char *want)
{
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "", 0);
    term_screen_append_line(s, row, &sb);
    assert_string_equal(sb.data, want);
    strbuf_finish(&sb);
}

static void assert_cursor(struct term_screen *s, int want_row, int want_col)
{
    int row, col;
    bool visible;
    term_screen_cursor(s, &row, &col, &visible);
    assert_int_equal(row, want_row);
    assert_int_equal(col, want_col);
}

static struct cell cell_at(struct term_screen *s, int row, int col)
{
    struct cell_grid g;
    term_screen_grid(s, &g);
    struct cell c = g.cells[row * g.cols + col];
    free(g.cells);
    return c;
}

static void collect(const char *buf, size_t len, void *ud)
{
    strbuf_append(ud, buf, len);
}

static void scroll_region_scrolls_only_its_rows(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(10, 5, 100);
    feed(s, "r0\r\nr1\r\nr2\r\nr3\r\nr4");
    /* Rows 2-4 (1-based) scroll; the others stay. */
    feed(s, "\x1b[2;4r\x1b[4;1H\nnew");
    assert_line(s, 0, "r0");
    assert_line(s, 1, "r2");
    assert_line(s, 2, "r3");
    assert_line(s, 3, "new");
    assert_line(s, 4, "r4");
    /* A region not at the top keeps nothing in scrollback. */
    assert_int_equal(term_screen_scrollback_count(s), 0);
    /* RI at the region's top scrolls it down. */
    feed(s, "\x1b[2;1H\x1bMtop");
    assert_line(s, 1, "top");
    assert_line(s, 2, "r2");
    assert_line(s, 3, "r3");
    assert_line(s, 4, "r4");
    term_screen_destroy(s);
}

static void insert_and_delete_lines_and_characters(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(10, 4, 0);
    feed(s, "aaa\r\nbbb\r\nccc\r\nddd");
    feed(s, "\x1b[2;1H\x1b[L");
    assert_line(s, 1, "");
    assert_line(s, 2, "bbb");
    assert_line(s, 3, "ccc");
    feed(s, "\x1b[2M");
    assert_line(s, 1, "ccc");
    assert_line(s, 2, "");
    feed(s, "\x1b[1;1Habcdef\x1b[1;2H\x1b[2P");
    assert_line(s, 0, "adef");
    feed(s, "\x1b[3@XY");
    assert_line(s, 0, "aXY def");
    feed(s, "\x1b[1;1H\x1b[2X");
    assert_line(s, 0, "  Y def");
    /* Insert mode pushes the rest of the line right. */
    feed(s, "\x1b[2;1Hxyz\x1b[2;2H\x1b[4h12\x1b[4l");
    assert_line(s, 1, "x12yz");
    term_screen_destroy(s);
}

static void erase_in_display_and_line(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(6, 3, 0);
    feed(s, "aaaaaa\r\nbbbbbb\r\ncccccc");
    feed(s, "\x1b[2;3H\x1b[K");
    assert_line(s, 1, "bb");
    feed(s, "\x1b[1K");
    assert_line(s, 1, "");
    feed(s, "\x1b[1;4H\x1b[1J");
    assert_line(s, 0, "    aa");
    feed(s, "\x1b[0J");
    assert_line(s, 0, "");
    assert_line(s, 2, "");
    /* Erasing with a background colour paints the blanks (BCE). */
    feed(s, "\x1b[44m\x1b[2J\x1b[0m");
    assert_int_equal(cell_at(s, 2, 5).bg, 0x2472C8);
    term_screen_destroy(s);
}

static void origin_mode_and_cursor_movement_stay_inside(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 10, 0);
    feed(s, "\x1b[3;6r\x1b[?6h");
    assert_cursor(s, 2, 0);
    feed(s, "\x1b[2;5H");
    assert_cursor(s, 3, 4);
    feed(s, "\x1b[99;99H");
    assert_cursor(s, 5, 19);
    /* DSR 6 counts from the region's top in origin mode. */
    struct strbuf out;
    strbuf_init(&out);
    term_screen_set_output(s, collect, &out);
    feed(s, "\x1b[6n");
    assert_string_equal(out.data, "\x1b[4;20R");
    feed(s, "\x1b[?6l\x1b[5;5H\x1b[99A");
    assert_cursor(s, 2, 4); /* CUU stops at the top margin from inside */
    feed(s, "\x1b[1;1H\x1b[99B");
    assert_cursor(s, 9, 0); /* from above the region: the screen's bottom */
    feed(s, "\x1b[5G\x1b[2C\x1b[D\x1b[3d");
    assert_cursor(s, 2, 5);
    term_screen_destroy(s);
    strbuf_finish(&out);
}

static void tabs_stop_every_eight_and_can_be_set(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(30, 2, 0);
    feed(s, "\tx");
    assert_cursor(s, 0, 9);
    feed(s, "\r\x1b[3g\x1b[4G\x1bH\r\tA\x1b[Z");
    assert_line(s, 0, "   A    x");
    assert_cursor(s, 0, 3);
    feed(s, "\r\t\t\t\t\t");
    assert_cursor(s, 0, 29); /* no more stops: the last column */
    feed(s, "\x1b[2I");
    assert_cursor(s, 0, 29);
    term_screen_destroy(s);
}

static void autowrap_and_its_absence(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(5, 3, 0);
    feed(s, "abcde");
    assert_cursor(s, 0, 4); /* the wrap waits for the next character */
    feed(s, "f");
    assert_line(s, 1, "f");
    feed(s, "\x1b[?7l\r\n12345678");
    assert_line(s, 2, "12348");
    assert_cursor(s, 2, 4);
    /* A wide character that does not fit wraps whole. */
    feed(s, "\x1b[?7h\x1b[1;1Habcd\xe6\x97\xa5");
    assert_line(s, 0, "abcd");
    assert_line(s, 1, "\xe6\x97\xa5");
    term_screen_destroy(s);
}

static void wide_characters_overwritten_by_halves(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(10, 2, 0);
    feed(s, "\xe6\x97\xa5\xe6\x9c\xac\x1b[1;2Hx");
    assert_line(s, 0, " x\xe6\x9c\xac");
    feed(s, "\x1b[1;3Hy");
    assert_line(s, 0, " xy");
    struct cell c = cell_at(s, 0, 3);
    assert_int_equal(c.chars[0], 0);
    assert_int_equal(c.width, 1);
    /* Deleting a character from under a wide one's right half. */
    feed(s, "\r\n\xe6\x97\xa5z\x1b[2;2H\x1b[P");
    assert_line(s, 1, " z");
    term_screen_destroy(s);
}

static void line_drawing_characters(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(10, 2, 0);
    feed(s, "\x1b(0lqk\x1b(Bq\x0ex\x0fx");
    assert_line(s, 0, "\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90qxx"); /* G1 is ASCII */
    feed(s, "\r\n\x1b)0\x0eqx\x0fqx");
    assert_line(s, 1, "\xe2\x94\x80\xe2\x94\x82qx");
    term_screen_destroy(s);
}

static void attributes_and_colours_in_both_forms(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 2, 0);
    feed(s, "\x1b[2mD\x1b[0m\x1b[8mC\x1b[0m\x1b[38:2::10:20:30mT\x1b[38:5:196mI"
            "\x1b[0;4:2mU\x1b[4:0mN\x1b[0;91;104mB\x1b[1;22mX");
    assert_int_equal(cell_at(s, 0, 0).attrs, CELL_DIM);
    assert_int_equal(cell_at(s, 0, 1).attrs, CELL_CONCEAL);
    assert_int_equal(cell_at(s, 0, 2).fg, 0x0A141E);
    assert_int_equal(cell_at(s, 0, 3).fg, 0xFF0000);
    assert_int_equal(cell_at(s, 0, 4).attrs, CELL_DOUBLE_UNDERLINE);
    assert_int_equal(cell_at(s, 0, 5).attrs, 0);
    assert_int_equal(cell_at(s, 0, 6).fg, 0xF14C4C);
    assert_int_equal(cell_at(s, 0, 6).bg, 0x3B8EEA);
    assert_int_equal(cell_at(s, 0, 7).attrs, 0);
    /* 256 colours: the cube and the greys. */
    feed(s, "\r\n\x1b[38;5;67mA\x1b[38;5;244mB");
    assert_int_equal(cell_at(s, 1, 0).fg, 0x5F87AF);
    assert_int_equal(cell_at(s, 1, 1).fg, 0x808080);
    term_screen_destroy(s);
}

static void saved_cursor_and_resets(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(20, 5, 0);
    feed(s, "\x1b[3;4H\x1b[31m\x1b"
            "7\x1b[H\x1b[0mx\x1b"
            "8y");
    assert_cursor(s, 2, 4);
    assert_int_equal(cell_at(s, 2, 3).fg, 0xCD3131);
    /* DECSTR: modes and pen back, the screen kept. */
    feed(s, "\x1b[?25l\x1b[4h\x1b[!p");
    bool visible;
    int row, col;
    term_screen_cursor(s, &row, &col, &visible);
    assert_true(visible);
    feed(s, "z");
    assert_line(s, 2, "   yz");
    assert_int_equal(cell_at(s, 2, 4).fg, TERM_SCREEN_DEFAULT_FG);
    /* DECALN fills the screen with E. */
    feed(s, "\x1b#8");
    assert_line(s, 4, "EEEEEEEEEEEEEEEEEEEE");
    assert_cursor(s, 0, 0);
    /* RIS clears it. */
    feed(s, "\x1b"
            "c");
    char *text = term_screen_text(s);
    assert_string_equal(text, "");
    free(text);
    term_screen_destroy(s);
}

static void alternate_screen_1047_and_47(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(10, 3, 10);
    feed(s, "main");
    feed(s, "\x1b[?1047h");
    assert_true(term_screen_altscreen(s));
    assert_line(s, 0, "");
    feed(s, "\x1b[Halt\x1b[?1047l");
    assert_line(s, 0, "main");
    feed(s, "\x1b[?47h");
    assert_line(s, 0, ""); /* cleared when 1047 left it */
    feed(s, "\r\n\r\n\r\n\r\n\x1b[?47l");
    /* Lines scrolled on the alternate screen never reach scrollback. */
    assert_int_equal(term_screen_scrollback_count(s), 0);
    term_screen_destroy(s);
}

static void queries_are_answered(void **state)
{
    (void)state;
    struct strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "", 0);
    struct term_screen *s = term_screen_create(20, 5, 0);
    term_screen_set_output(s, collect, &out);
    feed(s, "\x1b[5n\x1b[>c\x1b[?2004h\x1b[?2004$p\x1b[?1$p\x1b[4$p\x1bP$qr\x1b\\\x1b[3 q"
            "\x1bP$q q\x1b\\");
    assert_string_equal(out.data, "\x1b[0n\x1b[>0;100;0c\x1b[?2004;1$y\x1b[?1;2$y\x1b[4;2$y"
                                  "\x1bP1$r1;5r\x1b\\\x1bP1$r3 q\x1b\\");
    term_screen_destroy(s);
    strbuf_finish(&out);
}

static void keys_follow_the_modes(void **state)
{
    (void)state;
    struct strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "", 0);
    struct term_screen *s = term_screen_create(20, 5, 0);
    term_screen_set_output(s, collect, &out);
    char *err = NULL;
    feed(s, "\x1b[20h");
    assert_true(term_keys_press(s, "Enter", &err));
    assert_string_equal(out.data, "\r\n");
    strbuf_clear(&out);
    feed(s, "\x1b[20l\x1b[?1h");
    assert_true(term_keys_press(s, "shift+Left", &err));
    assert_true(term_keys_press(s, "End", &err));
    assert_true(term_keys_press(s, "ctrl+alt+Delete", &err));
    assert_true(term_keys_press(s, "alt+F2", &err));
    assert_true(term_keys_press(s, "ctrl+\xc3\xa9", &err));
    assert_string_equal(out.data, "\x1b[1;2D\x1bOF\x1b[3;7~\x1b[1;3Q\x1b[233;5u");
    term_screen_destroy(s);
    strbuf_finish(&out);
}

/* Found comparing with xterm.js: REP repeats only a character printed
 * right before it; 1049 set twice does not clear; 1049 reset restores the
 * cursor even without a switch; a combining mark after the last column
 * without autowrap joins the character there; DECALN leaves origin mode. */
static void details_as_xterm(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(5, 4, 0);
    feed(s, "x\r\x1b[3b\r\nab\x1b[31m\x1b[2b\r\ne\xcc\x81\x1b[2b");
    assert_line(s, 2,
                "e\xcc\x81"
                "e\xcc\x81"
                "e\xcc\x81");
    assert_line(s, 0, "x");
    assert_line(s, 1, "ab");
    feed(s, "\x1b[?1049h\x1b[HA\x1b[?1049h");
    assert_line(s, 0, "A");
    feed(s, "\x1b[?1049l\x1b[3;3H\x1b[?1049l");
    assert_cursor(s, 2, 3); /* where 1049h saved it */
    feed(s, "\x1b[4;1H\x1b[?7labcde\xcc\x81");
    assert_line(s, 3, "abcde\xcc\x81");
    feed(s, "\x1b[2;3r\x1b[?6h\x1b#8\x1b[H");
    assert_cursor(s, 0, 0);
    /* A wide character at the last column without autowrap is not shown. */
    feed(s, "\x1b[?7l\x1b[1;5H\xe6\x97\xa5\x1b[?7h");
    assert_line(s, 0, "EEEEE");
    assert_cursor(s, 0, 4);
    term_screen_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scroll_region_scrolls_only_its_rows),
        cmocka_unit_test(insert_and_delete_lines_and_characters),
        cmocka_unit_test(erase_in_display_and_line),
        cmocka_unit_test(origin_mode_and_cursor_movement_stay_inside),
        cmocka_unit_test(tabs_stop_every_eight_and_can_be_set),
        cmocka_unit_test(autowrap_and_its_absence),
        cmocka_unit_test(wide_characters_overwritten_by_halves),
        cmocka_unit_test(line_drawing_characters),
        cmocka_unit_test(attributes_and_colours_in_both_forms),
        cmocka_unit_test(saved_cursor_and_resets),
        cmocka_unit_test(alternate_screen_1047_and_47),
        cmocka_unit_test(queries_are_answered),
        cmocka_unit_test(keys_follow_the_modes),
        cmocka_unit_test(details_as_xterm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
