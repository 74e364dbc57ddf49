/* Text from outside (program output, a device's properties) on its way into
 * JSON: jansson takes only valid UTF-8, so it is made valid first. */
#include "core/utf8.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void scrub_keeps_valid_text(void **state)
{
    (void)state;
    char s[] = "Pixel 7 Pro \xC3\xA9\xE2\x82\xAC\xF0\x9F\x93\xB1";
    char want[sizeof s];
    memcpy(want, s, sizeof s);
    assert_string_equal(utf8_scrub(s), want);
}

static void scrub_replaces_each_bad_byte(void **state)
{
    (void)state;
    /* A lone Latin-1 é, a truncated sequence at the end, an overlong '/',
     * a surrogate: each byte that is not part of a valid character becomes
     * '?', the rest stays, the length does not change. */
    char s[] = "caf\xE9 \xC0\xAF \xED\xA0\x80 ok \xE2\x82";
    assert_string_equal(utf8_scrub(s), "caf? ?? ??? ok ??");
    json_t *j = json_string(s);
    assert_non_null(j);
    json_decref(j);
}

static void json_string_replaces_with_fffd(void **state)
{
    (void)state;
    json_t *j = utf8_json_string("a\xFF"
                                 "b",
                                 3);
    assert_non_null(j);
    assert_string_equal(json_string_value(j), "a\xEF\xBF\xBD"
                                              "b");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scrub_keeps_valid_text),
        cmocka_unit_test(scrub_replaces_each_bad_byte),
        cmocka_unit_test(json_string_replaces_with_fffd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
