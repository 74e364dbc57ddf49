/* Scrollback is bounded by memory as well as by lines: a wide terminal
 * printing full lines cannot make a session hold gigabytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "backend/terminal/term_scrollback.h"
#include "core/strbuf.h"

static void wide_lines_are_bounded_by_bytes(void **state)
{
    (void)state;
    enum { COLS = 1000, LINES = 20000 };
    static struct vt_cell cells[COLS];
    for (int i = 0; i < COLS; i++) {
        memset(&cells[i], 0, sizeof cells[i]);
        cells[i].ch[0] = 'x';
    }
    struct term_scrollback *sb = term_scrollback_create(1000000);
    for (int n = 0; n < LINES; n++) {
        cells[0].ch[0] = 'a' + (uint32_t)(n % 26);
        term_scrollback_push(sb, cells, COLS);
    }
    /* 16 bytes a cell: 64 MiB holds about 4000 lines of 1000 columns. */
    int count = term_scrollback_count(sb);
    assert_true(count > 3000 && count < 5000);
    /* What is kept is the newest: the last line pushed is the last one. */
    struct strbuf text;
    strbuf_init(&text);
    term_scrollback_append_text(sb, count - 1, &text);
    assert_int_equal(text.data[0], 'a' + (LINES - 1) % 26);
    strbuf_finish(&text);
    term_scrollback_destroy(sb);
}

static void short_lines_keep_the_line_count(void **state)
{
    (void)state;
    struct vt_cell cells[80];
    memset(cells, 0, sizeof cells);
    cells[0].ch[0] = 'y';
    struct term_scrollback *sb = term_scrollback_create(10000);
    for (int n = 0; n < 20000; n++)
        term_scrollback_push(sb, cells, 80);
    assert_int_equal(term_scrollback_count(sb), 10000);
    term_scrollback_destroy(sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wide_lines_are_bounded_by_bytes),
        cmocka_unit_test(short_lines_keep_the_line_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
