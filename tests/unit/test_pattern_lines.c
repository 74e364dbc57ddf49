/* wait_for's line test on text read from a screen (OCR, a page's text):
 * the first non-empty line with the text or a match of the regex. */
#include "core/pattern.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void text_finds_its_line(void **state)
{
    (void)state;
    char *line =
        pattern_first_line("Welcome\n\nSign in to continue\nSign out", "Sign", NULL, 0, NULL);
    assert_string_equal(line, "Sign in to continue");
    free(line);
    assert_null(pattern_first_line("Welcome\nHome", "sign", NULL, 0, NULL));
    assert_null(pattern_first_line("", "x", NULL, 0, NULL));
}

static void regex_skips_empty_lines(void **state)
{
    (void)state;
    char *err = NULL;
    struct pattern *p = pattern_compile("regex", "^[0-9]*$", false, &err);
    assert_non_null(p);
    /* The empty lines between paragraphs say nothing about the screen. */
    char *line = pattern_first_line("\n\nTotal\n\n42\n", NULL, p, 0, &err);
    assert_string_equal(line, "42");
    assert_null(err);
    free(line);
    pattern_destroy(p);
}

static void a_regex_over_its_limit_says_so_or_goes_on(void **state)
{
    (void)state;
    char *err = NULL;
    struct pattern *p = pattern_compile("regex", "(a+)+b|ok", false, &err);
    assert_non_null(p);
    const char *text = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac\nok";
    assert_null(pattern_first_line(text, NULL, p, 1000, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, "argument \"regex\": regex too complex"));
    free(err);
    /* Without err: that line does not match, the next one does. */
    char *line = pattern_first_line(text, NULL, p, 1000, NULL);
    assert_string_equal(line, "ok");
    free(line);
    pattern_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_finds_its_line),
        cmocka_unit_test(regex_skips_empty_lines),
        cmocka_unit_test(a_regex_over_its_limit_says_so_or_goes_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
