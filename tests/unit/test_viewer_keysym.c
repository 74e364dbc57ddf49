/* A browser's KeyboardEvent key/code as the X11 keysym a desktop taken over
 * in the live viewer receives (src/viewer/keysym.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "viewer/internal.h"

static void characters_are_their_keysyms(void **state)
{
    (void)state;
    bool is_char = false;
    assert_int_equal(viewer_keysym("a", "KeyA", &is_char), 'a');
    assert_true(is_char);
    assert_int_equal(viewer_keysym("A", "KeyA", &is_char), 'A');
    assert_int_equal(viewer_keysym("$", "Digit4", &is_char), '$');
    assert_int_equal(viewer_keysym(" ", "Space", &is_char), ' ');
    /* Latin-1 as itself, the rest of Unicode as 0x01000000 + the code point. */
    assert_int_equal(viewer_keysym("\xc3\xa9", "KeyE", &is_char), 0xe9);
    assert_int_equal(viewer_keysym("\xe2\x82\xac", "KeyE", &is_char), 0x010020ac);
    assert_true(is_char);
}

static void named_keys_and_modifiers(void **state)
{
    (void)state;
    bool is_char = true;
    assert_int_equal(viewer_keysym("Enter", "Enter", &is_char), 0xff0d);
    assert_false(is_char);
    assert_int_equal(viewer_keysym("Backspace", "Backspace", &is_char), 0xff08);
    assert_int_equal(viewer_keysym("ArrowLeft", "ArrowLeft", &is_char), 0xff51);
    assert_int_equal(viewer_keysym("F1", "F1", &is_char), 0xffbe);
    assert_int_equal(viewer_keysym("F12", "F12", &is_char), 0xffc9);
    /* Left and right modifiers by their code. */
    assert_int_equal(viewer_keysym("Shift", "ShiftLeft", &is_char), 0xffe1);
    assert_int_equal(viewer_keysym("Shift", "ShiftRight", &is_char), 0xffe2);
    assert_int_equal(viewer_keysym("Control", "ControlLeft", &is_char), 0xffe3);
    assert_int_equal(viewer_keysym("Alt", "AltRight", &is_char), 0xffea);
    assert_int_equal(viewer_keysym("Meta", "MetaLeft", &is_char), 0xffeb);
    assert_false(is_char);
}

static void keys_without_keysyms_give_none(void **state)
{
    (void)state;
    bool is_char = true;
    assert_int_equal(viewer_keysym("Dead", "Quote", &is_char), 0);
    assert_false(is_char);
    assert_int_equal(viewer_keysym("Unidentified", "", &is_char), 0);
    assert_int_equal(viewer_keysym("", "KeyA", &is_char), 0);
    assert_int_equal(viewer_keysym(NULL, NULL, &is_char), 0);
    assert_int_equal(viewer_keysym("F99", "F99", &is_char), 0);
    assert_int_equal(viewer_keysym("\x7f", "", &is_char), 0);
    assert_false(is_char);
    /* Not valid UTF-8: nothing, never a guess. */
    assert_int_equal(viewer_keysym("\xff", "", &is_char), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(characters_are_their_keysyms),
        cmocka_unit_test(named_keys_and_modifiers),
        cmocka_unit_test(keys_without_keysyms_give_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
