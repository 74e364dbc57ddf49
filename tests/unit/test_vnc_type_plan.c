/* type_text on vnc sessions: which characters go as keys and which are
 * pasted, per via and server; what neither way can carry is refused with
 * the character's offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backend/vnc/type_plan.h"

#include <stdlib.h>
#include <string.h>

/* The plan as a string: k for a key, p for a paste, per character sent. */
static char *plan(const char *text, enum vnc_via via, bool apple, size_t *pasted, char **err)
{
    struct vnc_typed *t;
    size_t n;
    *err = NULL;
    if (!vnc_type_plan(text, via, apple, &t, &n, pasted, err))
        return NULL;
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = t[i].paste ? 'p' : 'k';
    s[n] = '\0';
    free(t);
    return s;
}

static void via_names(void **state)
{
    (void)state;
    enum vnc_via v;
    assert_true(vnc_via_parse("auto", &v) && v == VNC_VIA_AUTO);
    assert_true(vnc_via_parse("keys", &v) && v == VNC_VIA_KEYS);
    assert_true(vnc_via_parse("paste", &v) && v == VNC_VIA_PASTE);
    assert_false(vnc_via_parse("clipboard", &v));
}

static void auto_types_everything_on_x_servers(void **state)
{
    (void)state;
    size_t pasted;
    char *err;
    char *s = plan("a é ж\r\n", VNC_VIA_AUTO, false, &pasted, &err);
    assert_string_equal(s, "kkkkkk"); /* CR LF is one Enter */
    assert_int_equal(pasted, 0);
    free(s);
}

static void auto_pastes_latin1_beyond_ascii_on_apple(void **state)
{
    (void)state;
    size_t pasted;
    char *err;
    char *s = plan("Grüße à!\n", VNC_VIA_AUTO, true, &pasted, &err);
    assert_string_equal(s, "kkppkkpkk");
    assert_int_equal(pasted, 3);
    free(s);
    assert_null(plan("ok ж", VNC_VIA_AUTO, true, &pasted, &err));
    assert_non_null(strstr(err, "character 3 (U+0436)"));
    assert_non_null(strstr(err, "via \"keys\""));
    free(err);
}

static void paste_takes_latin1_only(void **state)
{
    (void)state;
    size_t pasted;
    char *err;
    char *s = plan("é\r\nx", VNC_VIA_PASTE, false, &pasted, &err);
    assert_string_equal(s, "pppp"); /* pasted, CR LF stays as it is */
    assert_int_equal(pasted, 4);
    free(s);
    assert_null(plan("ab €", VNC_VIA_PASTE, false, &pasted, &err));
    assert_non_null(strstr(err, "argument \"text\": character 3 (U+20AC) is outside Latin-1"));
    free(err);
    s = plan("ж", VNC_VIA_KEYS, true, &pasted, &err);
    assert_string_equal(s, "k");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(via_names),
        cmocka_unit_test(auto_types_everything_on_x_servers),
        cmocka_unit_test(auto_pastes_latin1_beyond_ascii_on_apple),
        cmocka_unit_test(paste_takes_latin1_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
