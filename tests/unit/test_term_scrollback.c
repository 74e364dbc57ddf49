/* Scrollback memory is bounded by bytes as well as lines: a wide terminal
 * with a long scrollback cannot grow glovebox without bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/terminal/term_scrollback.h"
#include "core/strbuf.h"

#define COLS 200

static void push_line(struct term_scrollback *sb, int n)
{
    VTermScreenCell cells[COLS];
    memset(cells, 0, sizeof cells);
    char text[16];
    int len = snprintf(text, sizeof text, "%d", n);
    for (int i = 0; i < COLS; i++) {
        cells[i].chars[0] = (uint32_t)(i < len ? text[i] : 'x');
        cells[i].width = 1;
    }
    term_scrollback_push(sb, COLS, cells);
}

static char *line_text(struct term_scrollback *sb, int index)
{
    struct strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "", 0);
    term_scrollback_append_text(sb, index, &out);
    return strbuf_steal(&out);
}

static void test_bytes_bound_drops_oldest(void **state)
{
    (void)state;
    /* Each line holds 200 cells of 16 bytes: 64 KiB keeps about 20. */
    struct term_scrollback *sb = term_scrollback_create(100000, 64 * 1024);
    for (int i = 0; i < 5000; i++)
        push_line(sb, i);
    int count = term_scrollback_count(sb);
    assert_true(count >= 10 && count <= 21);
    char *newest = line_text(sb, count - 1);
    assert_memory_equal(newest, "4999x", 5);
    free(newest);
    char *oldest = line_text(sb, 0);
    char want[16];
    snprintf(want, sizeof want, "%dx", 5000 - count);
    assert_memory_equal(oldest, want, strlen(want));
    free(oldest);
    term_scrollback_destroy(sb);
}

static void test_lines_bound_still_applies(void **state)
{
    (void)state;
    struct term_scrollback *sb = term_scrollback_create(5, TERM_SCROLLBACK_MAX_BYTES);
    for (int i = 0; i < 12; i++)
        push_line(sb, i);
    assert_int_equal(term_scrollback_count(sb), 5);
    char *oldest = line_text(sb, 0);
    assert_memory_equal(oldest, "7x", 2);
    free(oldest);
    term_scrollback_destroy(sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_bound_drops_oldest),
        cmocka_unit_test(test_lines_bound_still_applies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
