/* The android backend's parsers and quoting, without a device: the
 * uiautomator dump parser (what it keeps, what it refuses and where), and
 * the `input text` command line, run through a real POSIX sh with a stub
 * `input` that applies Android's %s rewrite, so the text arrives literally. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/android/internal.h"
#include "backend/android/uixml.h"

static const char DUMP[] =
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    "<node index=\"0\" text=\"\" class=\"android.widget.FrameLayout\" bounds=\"[0,0][360,800]\">"
    "<node index=\"0\" text=\"Tom &amp; Jerry &#233;&#x1F600;\" resource-id=\"a:id/t\" "
    "class=\"android.widget.TextView\" content-desc=\"\" bounds=\"[10,20][110,60]\"/>"
    "<node text=\"\xe2\x80\xa2\xe2\x80\xa2\" class=\"android.widget.EditText\" password=\"true\" "
    "focused=\"true\" enabled=\"true\" checked=\"false\" bounds=\"[0,100][360,150]\"></node>"
    "</node></hierarchy>UI hierchary dumped to: /dev/tty";

static void dump_is_parsed(void **state)
{
    (void)state;
    struct ui_tree t;
    char *err = NULL;
    assert_true(uixml_parse(DUMP, sizeof DUMP - 1, &t, &err));
    assert_int_equal(t.n, 3);
    assert_string_equal(t.nodes[1].text, "Tom & Jerry \xc3\xa9\xf0\x9f\x98\x80");
    assert_string_equal(t.nodes[1].resource_id, "a:id/t");
    assert_int_equal(t.nodes[1].depth, 1);
    assert_int_equal(t.nodes[1].x2, 110);
    assert_true(t.nodes[2].password);
    assert_true(t.nodes[2].focused);
    assert_false(t.nodes[2].checked);
    assert_string_equal(t.nodes[2].desc, "");
    uixml_free(&t);
}

static void bad_dumps_are_refused_with_the_place(void **state)
{
    (void)state;
    static const struct {
        const char *xml, *want;
    } cases[] = {
        {"<hierarchy><node text=\"a",
         "malformed uiautomator XML at byte 22: an attribute value is not closed"},
        {"<hierarchy><node text=\"&x;\"/></hierarchy>", "unknown entity"},
        {"<hierarchy><node text=\"&#0;\"/></hierarchy>", "bad character reference"},
        {"<hierarchy><node></hierarchy>", "closing tags do not match"},
        {"<hierarchy><node a=b/></hierarchy>", "expected a quoted attribute value"},
        {"<hierarchy><script/></hierarchy>", "unexpected element"},
        {"<hierarchy><node/>", "ends before </hierarchy>"},
        {"<hierarchy><node t=\"<\"/></hierarchy>", "'<' inside an attribute value"},
        {"ERROR: could not get idle state.", "no window hierarchy: \"ERROR: could not get idle"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ui_tree t;
        char *err = NULL;
        assert_false(uixml_parse(cases[i].xml, strlen(cases[i].xml), &t, &err));
        if (!strstr(err, cases[i].want))
            fail_msg("%s: got \"%s\", want \"%s\"", cases[i].xml, err, cases[i].want);
        free(err);
    }
}

static void deep_nesting_is_bounded(void **state)
{
    (void)state;
    size_t n = UIXML_MAX_DEPTH + 5;
    char *xml = malloc(n * 6 + 32);
    strcpy(xml, "<hierarchy>");
    for (size_t i = 0; i < n; i++)
        strcat(xml, "<node>");
    struct ui_tree t;
    char *err = NULL;
    assert_false(uixml_parse(xml, strlen(xml), &t, &err));
    assert_non_null(strstr(err, "nested deeper than"));
    free(err);
    free(xml);
}

/* Runs cmd with sh, `input` a function printing its first argument after
 * Android's %s rewrite; returns what it printed. */
static char *typed_by_sh(const char *cmd)
{
    char script[] = "/tmp/gb-android-XXXXXX";
    int fd = mkstemp(script);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "input() { shift; printf '%%s' \"$1\" | sed 's/%%s/ /g'; }\n%s\n", cmd);
    fclose(f);
    char *run;
    assert_true(asprintf(&run, "sh %s", script) > 0);
    FILE *p = popen(run, "r");
    static char out[4096];
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = 0;
    pclose(p);
    unlink(script);
    free(run);
    return out;
}

static void text_is_typed_literally(void **state)
{
    (void)state;
    /* Not "%s" sequences of the user's: sed's rewrite matches Android's for
     * what the command builder emits (no "%%s" arises from user text). */
    static const char *texts[] = {"hello world",     "$(touch /tmp/gb-pwned) `id` $HOME ${x}",
                                  "it's \"quoted\"", "a; b && c | d > e < f & g",
                                  "tab\there",       "100% sure %d",
                                  "back\\slash \\n", "-n",
                                  "*?[a]~#!"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *err = NULL;
        char *cmd = android_input_text_command(texts[i], &err);
        assert_non_null(cmd);
        assert_string_equal(typed_by_sh(cmd), texts[i]);
        free(cmd);
    }
    char *err = NULL;
    char *cmd = android_input_text_command("50%s off", &err);
    assert_string_equal(cmd, "input text '50%' && input text 's%soff'");
    free(cmd);
    assert_null(android_input_text_command("na\xc3\xafve", &err));
    assert_non_null(strstr(err, "character 3 (U+00EF)"));
    free(err);
}

static void keys_map_to_keycodes(void **state)
{
    (void)state;
    int code;
    enum error_code ec;
    char *err = NULL;
    assert_true(android_keycode("Enter", &code, &ec, &err));
    assert_int_equal(code, 66);
    assert_true(android_keycode("Backspace", &code, &ec, &err));
    assert_int_equal(code, 67);
    assert_true(android_keycode("a", &code, &ec, &err));
    assert_int_equal(code, 29);
    assert_true(android_keycode("F12", &code, &ec, &err));
    assert_int_equal(code, 142);
    assert_false(android_keycode("ctrl+c", &code, &ec, &err));
    assert_int_equal(ec, ERROR_NOT_SUPPORTED);
    free(err);
    err = NULL;
    assert_false(android_keycode("Nope", &code, &ec, &err));
    assert_int_equal(ec, ERROR_INVALID_ARGUMENT);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dump_is_parsed),
        cmocka_unit_test(bad_dumps_are_refused_with_the_place),
        cmocka_unit_test(deep_nesting_is_bounded),
        cmocka_unit_test(text_is_typed_literally),
        cmocka_unit_test(keys_map_to_keycodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
