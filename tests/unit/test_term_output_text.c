/* A terminal program's output as text, as read_text {since: "last"} and
 * terminal_run answer it: escape sequences out, CR LF as LF, a line redrawn
 * after a lone CR keeps its last drawing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/terminal/internal.h"
#include "core/strbuf.h"

static char *cleaned(const char *raw)
{
    struct strbuf out;
    strbuf_init(&out);
    terminal_output_clean(raw, strlen(raw), &out);
    return strbuf_steal(&out);
}

static void check(const char *raw, const char *want)
{
    char *got = cleaned(raw);
    assert_string_equal(got ? got : "", want);
    free(got);
}

static void test_plain_lines(void **state)
{
    (void)state;
    check("one\r\ntwo\r\n", "one\ntwo\n");
    check("tab\there\n", "tab\there\n");
    check("", "");
}

static void test_escapes_removed(void **state)
{
    (void)state;
    check("\x1b[1;31mred\x1b[0m text\r\n", "red text\n");
    check("\x1b]0;a title\x07"
          "after\r\n",
          "after\n");
    check("\x1b]133;C;abc\x1b\\out\r\n", "out\n");
    check("\x1b(Bkeep\x1b=\r\n", "keep\n");
    check("bell\x07 and \x08"
          "back\r\n",
          "bell and back\n");
}

static void test_carriage_return_redraws(void **state)
{
    (void)state;
    check("10%\r50%\r100%\r\ndone\r\n", "100%\ndone\n");
    check("first\r\nsecond", "first\nsecond");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_lines),
        cmocka_unit_test(test_escapes_removed),
        cmocka_unit_test(test_carriage_return_redraws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
