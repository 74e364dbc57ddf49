/* WebDriver URLs as users see them (credentials never), which are accepted,
 * and glovebox keys as WebDriver keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/webdriver/internal.h"
#include "backend/webdriver/url.h"
#include "input/keys.h"

static void display_is(const char *url, const char *want)
{
    char *got = wd_url_display(url);
    assert_string_equal(got, want);
    free(got);
}

static void test_display_drops_userinfo(void **state)
{
    (void)state;
    display_is("http://alice:pw@hub:4444/wd/hub", "http://hub:4444/wd/hub");
    display_is("https://user@hub", "https://hub");
    /* An '@' in the password, and one in the path that is not userinfo. */
    display_is("https://a:p@ss@hub/x", "https://hub/x");
    display_is("https://hub/@me?x=a@b", "https://hub/@me?x=a@b");
    display_is("http://127.0.0.1:9515", "http://127.0.0.1:9515");
    display_is("not a url", "not a url");
}

static void accepted(const char *url, const char *err_part)
{
    char *err = NULL;
    bool ok = wd_url_check_http("url", url, &err);
    if (!err_part) {
        assert_true(ok);
        assert_null(err);
        return;
    }
    assert_false(ok);
    assert_non_null(strstr(err, err_part));
    assert_non_null(strstr(err, "argument \"url\""));
    /* Refusals show the URL without its credentials. */
    assert_null(strstr(err, "secret"));
    free(err);
}

static void test_check_http(void **state)
{
    (void)state;
    accepted("http://127.0.0.1:4444", NULL);
    accepted("HTTPS://u:secret@hub.example.com/wd/hub", NULL);
    accepted("file:///etc/passwd", "scheme \"file:\"");
    accepted("javascript:alert(1)", "scheme \"javascript:\"");
    accepted("chrome://settings", "scheme \"chrome:\"");
    accepted("ftp://u:secret@host/", "scheme \"ftp:\"");
    accepted("http:///path", "no host");
    accepted("http://u:secret@/path", "no host");
    accepted("http://host/a b", "spaces");
    accepted("hub.example.com", "expected an http: or https: URL");
}

static void test_keys(void **state)
{
    (void)state;
    assert_string_equal(wd_key_for(INPUT_KEY_ENTER), "\xee\x80\x87");
    assert_string_equal(wd_key_for(INPUT_KEY_F1 + 11), "\xee\x80\xbc"); /* F12 = U+E03C */
    assert_null(wd_key_for(INPUT_KEY_F1 + 12));
    json_t *a = NULL;
    char *err = NULL;
    assert_true(wd_key_actions("ctrl+shift+é", 2, &a, &err));
    /* ctrl, shift, é down and up, shift, ctrl up: 6 per press. */
    assert_int_equal(json_array_size(a), 12);
    assert_string_equal(json_string_value(json_object_get(json_array_get(a, 2), "value")),
                        "\xc3\xa9");
    assert_string_equal(json_string_value(json_object_get(json_array_get(a, 5), "value")),
                        "\xee\x80\x89");
    json_decref(a);
    assert_false(wd_key_actions("hyper+a", 1, &a, &err));
    assert_non_null(strstr(err, "hyper"));
    free(err);
    err = NULL;
    assert_false(wd_key_actions("F20", 1, &a, &err));
    assert_non_null(strstr(err, "\"key\""));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_display_drops_userinfo),
        cmocka_unit_test(test_check_http),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
