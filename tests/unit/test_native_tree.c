/* Native page sources (Appium) read as elements: iOS's XCUITest shape, the
 * roles and states both platforms' words map to, and what a hostile or
 * broken source does (nothing but fewer elements). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/webdriver/native_tree.h"

static struct native_tree parse(const char *xml)
{
    struct native_tree t;
    char *err = NULL;
    assert_true(native_tree_parse(xml, strlen(xml), &t, &err));
    return t;
}

static void test_ios_source(void **state)
{
    (void)state;
    struct native_tree t = parse(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><AppiumAUT>"
        "<XCUIElementTypeApplication type=\"XCUIElementTypeApplication\" name=\"Shop\" "
        "x=\"0\" y=\"0\" width=\"390\" height=\"844\">"
        "<XCUIElementTypeButton type=\"XCUIElementTypeButton\" name=\"buy\" label=\"Buy "
        "&lt;now&gt;\" "
        "enabled=\"true\" visible=\"true\" x=\"20\" y=\"100\" width=\"150\" height=\"44\"/>"
        "<XCUIElementTypeSecureTextField type=\"XCUIElementTypeSecureTextField\" value=\"••••\" "
        "name=\"pin\" x=\"20\" y=\"160\" width=\"300\" height=\"40\"/>"
        "<XCUIElementTypeSwitch type=\"XCUIElementTypeSwitch\" label=\"Gift\" value=\"1\" "
        "visible=\"false\" x=\"20\" y=\"220\" width=\"50\" height=\"30\"/>"
        "<!-- a comment with <tags> --><XCUIElementTypeOther x=\"0\" y=\"0\" width=\"1\" "
        "height=\"1\"/>"
        "</XCUIElementTypeApplication></AppiumAUT>");
    assert_int_equal(t.n, 4);
    assert_string_equal(t.els[0].role, "application");
    assert_string_equal(t.els[1].role, "push button");
    assert_string_equal(t.els[1].name, "Buy <now>");
    assert_int_equal(t.els[1].x, 20);
    assert_int_equal(t.els[1].height, 44);
    assert_int_equal(t.els[0].depth, 1);
    assert_int_equal(t.els[1].depth, 2);
    assert_string_equal(t.els[2].role, "text");
    assert_true(t.els[2].password);
    assert_null(t.els[2].value);
    assert_string_equal(t.els[2].name, "pin");
    assert_string_equal(t.els[3].role, "toggle button");
    assert_true(t.els[3].checked);
    assert_true(t.els[3].hidden);
    native_tree_finish(&t);
}

static void test_broken_sources(void **state)
{
    (void)state;
    const char *bad[] = {
        "",
        "<",
        "<a",
        "<a bounds=\"[0,0][10,10]\" text=\"x",
        "<a bounds='[0,0][10,10]' text='y' clickable",
        "<a bounds=\"[5,5][1,1]\" text=\"inverted\"/>",
        "<a text=\"&#0;&#x110000;&#xd800;&bogus;&amp\" bounds=\"[0,0][2,2]\"/>",
        "</close></close><a bounds=\"[0,0][3,3]\" text=\"after\"/>",
        "<!-- never closed <a bounds=\"[0,0][3,3]\" text=\"z\"/>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct native_tree t = parse(bad[i]);
        for (size_t k = 0; k < t.n; k++)
            assert_true(t.els[k].width > 0 && t.els[k].height > 0);
        native_tree_finish(&t);
    }
    struct native_tree t = parse("<a text=\"&#0;&#x41;&#233;&bogus;\" bounds=\"[0,0][2,2]\"/>");
    assert_int_equal(t.n, 1);
    assert_string_equal(t.els[0].name, "Aé&bogus;");
    native_tree_finish(&t);
    t = parse("</close></close><a bounds=\"[0,0][3,3]\" text=\"after\"/>");
    assert_int_equal(t.n, 1);
    assert_int_equal(t.els[0].depth, 0);
    native_tree_finish(&t);
}

static void test_bounds_on_size(void **state)
{
    (void)state;
    char *big = malloc(NATIVE_MAX_SOURCE + 2);
    memset(big, ' ', NATIVE_MAX_SOURCE + 1);
    big[NATIVE_MAX_SOURCE + 1] = '\0';
    struct native_tree t;
    char *err = NULL;
    assert_false(native_tree_parse(big, NATIVE_MAX_SOURCE + 1, &t, &err));
    assert_non_null(strstr(err, "more than"));
    free(err);
    free(big);
    /* More meaningful elements than are kept: the rest are counted. */
    size_t n = NATIVE_MAX_ELEMENTS + 10;
    char *many = malloc(n * 64 + 16);
    char *p = many;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "<b text=\"%zu\" bounds=\"[0,0][4,4]\"/>", i);
    *p = '\0';
    t = parse(many);
    assert_int_equal(t.n, NATIVE_MAX_ELEMENTS);
    assert_int_equal(t.cut, 10);
    native_tree_finish(&t);
    free(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ios_source),
        cmocka_unit_test(test_broken_sources),
        cmocka_unit_test(test_bounds_on_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
