/* Key names and chords (src/input): one parser for every kind of screen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "input/keys.h"

static struct input_key parse(const char *spec)
{
    struct input_key k;
    char *err = NULL;
    if (!input_keys_parse("key", spec, &k, &err))
        fail_msg("%s: %s", spec, err);
    return k;
}

static void modifiers_and_their_aliases(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        unsigned mods;
    } cases[] = {
        {"ctrl+shift+t", INPUT_MOD_CTRL | INPUT_MOD_SHIFT},
        {"ctrl+super+t", INPUT_MOD_CTRL | INPUT_MOD_SUPER},
        {"super+l", INPUT_MOD_SUPER},
        {"Win+l", INPUT_MOD_SUPER},
        {"cmd+l", INPUT_MOD_SUPER},
        {"COMMAND+l", INPUT_MOD_SUPER},
        {"meta+x", INPUT_MOD_META},
        {"hyper+a", INPUT_MOD_HYPER},
        {"option+a", INPUT_MOD_ALT},
        {"Control+Alt+a", INPUT_MOD_CTRL | INPUT_MOD_ALT},
        {" ctrl + a", INPUT_MOD_CTRL},
        {"ctrl+ctrl+a", INPUT_MOD_CTRL},
        {"a", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct input_key k = parse(cases[i].spec);
        if (k.mods != cases[i].mods)
            fail_msg("%s: mods %#x, expected %#x", cases[i].spec, k.mods, cases[i].mods);
        assert_int_equal(k.named, INPUT_KEY_CHAR);
        assert_int_equal(k.codepoint, cases[i].spec[strlen(cases[i].spec) - 1]);
    }
}

static void named_keys_and_their_aliases(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        enum input_key_name key;
    } cases[] = {
        {"Enter", INPUT_KEY_ENTER},
        {"return", INPUT_KEY_ENTER},
        {"esc", INPUT_KEY_ESCAPE},
        {"Escape", INPUT_KEY_ESCAPE},
        {"del", INPUT_KEY_DELETE},
        {"Delete", INPUT_KEY_DELETE},
        {"PageUp", INPUT_KEY_PAGEUP},
        {"pgdn", INPUT_KEY_PAGEDOWN},
        {"Home", INPUT_KEY_HOME},
        {"End", INPUT_KEY_END},
        {"ArrowLeft", INPUT_KEY_LEFT},
        {"up", INPUT_KEY_UP},
        {"F1", INPUT_KEY_F1},
        {"f12", INPUT_KEY_F1 + 11},
        {"F24", INPUT_KEY_F24},
        {"Tab", INPUT_KEY_TAB},
        {"Backspace", INPUT_KEY_BACKSPACE},
        {"ins", INPUT_KEY_INSERT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct input_key k = parse(cases[i].spec);
        if (k.named != cases[i].key || k.mods)
            fail_msg("%s: key %d mods %#x", cases[i].spec, (int)k.named, k.mods);
    }
    struct input_key k = parse("alt+F4");
    assert_int_equal(k.named, INPUT_KEY_F1 + 3);
    assert_int_equal(k.mods, INPUT_MOD_ALT);
}

static void characters_spaces_and_plus(void **state)
{
    (void)state;
    assert_int_equal(parse("Space").codepoint, ' ');
    assert_int_equal(parse(" ").codepoint, ' ');
    assert_int_equal(parse("+").codepoint, '+');
    struct input_key k = parse("ctrl++");
    assert_int_equal(k.codepoint, '+');
    assert_int_equal(k.mods, INPUT_MOD_CTRL);
    k = parse("shift+\xc3\xa9"); /* é */
    assert_int_equal(k.codepoint, 0xe9);
    assert_int_equal(k.mods, INPUT_MOD_SHIFT);
    assert_int_equal(parse("\xe2\x9c\x93").codepoint, 0x2713);
}

/* Errors name the field, the bad part and the whole chord, and list the
 * valid keys (with super, meta, hyper and F24). */
static void bad_chords_say_which_part(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *says;
    } cases[] = {
        {"ctrl+Foo", "unknown key \"Foo\" in \"ctrl+Foo\""},
        {"hyp+x", "unknown modifier \"hyp\" in \"hyp+x\""},
        {"F25", "unknown key \"F25\""},
        {"F0", "unknown key \"F0\""},
        {"ab", "unknown key \"ab\""},
        {"ctrl+", "no key in \"ctrl+\""},
        {"", "no key in \"\""},
        {"ctrl+\x01", "unknown key"},
        {"\xff", "unknown key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct input_key k;
        char *err = NULL;
        assert_false(input_keys_parse("keys", cases[i].spec, &k, &err));
        assert_non_null(err);
        if (!strstr(err, cases[i].says) || strncmp(err, "argument \"keys\": ", 17) ||
            !strstr(err, "valid keys: Enter") || !strstr(err, "super") || !strstr(err, "hyper") ||
            !strstr(err, "F13-F24"))
            fail_msg("%s: %s", cases[i].spec, err);
        free(err);
    }
    struct input_key k;
    assert_false(input_keys_parse("key", "nope", &k, NULL)); /* no message asked for */
}

/* What models trained on xdotool send (computer tool): X keysym names. */
static void xdotool_keysym_names(void **state)
{
    (void)state;
    struct input_key k = parse("Return");
    assert_int_equal(k.named, INPUT_KEY_ENTER);
    k = parse("ctrl+s");
    assert_int_equal(k.mods, INPUT_MOD_CTRL);
    assert_int_equal(k.codepoint, 's');
    k = parse("KP_0");
    assert_int_equal(k.named, INPUT_KEY_CHAR);
    assert_int_equal(k.codepoint, '0');
    k = parse("KP_Enter");
    assert_int_equal(k.named, INPUT_KEY_ENTER);
    k = parse("Page_Down");
    assert_int_equal(k.named, INPUT_KEY_PAGEDOWN);
    k = parse("Prior");
    assert_int_equal(k.named, INPUT_KEY_PAGEUP);
    k = parse("ctrl+minus");
    assert_int_equal(k.codepoint, '-');
    assert_int_equal(k.mods, INPUT_MOD_CTRL);
    k = parse("shift+KP_Add");
    assert_int_equal(k.codepoint, '+');
    k = parse("Super_L+l");
    assert_int_equal(k.mods, INPUT_MOD_SUPER);
    assert_int_equal(k.codepoint, 'l');
    k = parse("BackSpace");
    assert_int_equal(k.named, INPUT_KEY_BACKSPACE);
}

static void modifiers_alone(void **state)
{
    (void)state;
    unsigned mods;
    char *err = NULL;
    assert_true(input_keys_parse_mods("text", "shift", &mods, &err));
    assert_int_equal(mods, INPUT_MOD_SHIFT);
    assert_true(input_keys_parse_mods("text", "ctrl+Shift_L", &mods, &err));
    assert_int_equal(mods, INPUT_MOD_CTRL | INPUT_MOD_SHIFT);
    assert_false(input_keys_parse_mods("text", "ctrl+a", &mods, &err));
    assert_non_null(strstr(err, "\"a\" in \"ctrl+a\" is not a modifier"));
    free(err);
    err = NULL;
    assert_false(input_keys_parse_mods("text", "ctrl+", &mods, &err));
    assert_non_null(strstr(err, "argument \"text\""));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(modifiers_and_their_aliases),
        cmocka_unit_test(named_keys_and_their_aliases),
        cmocka_unit_test(characters_spaces_and_plus),
        cmocka_unit_test(bad_chords_say_which_part),
        cmocka_unit_test(xdotool_keysym_names),
        cmocka_unit_test(modifiers_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
