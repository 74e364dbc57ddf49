/* Keys an agent presses reach the program as the bytes a real terminal
 * (xterm) would send, in whatever mode the program has put the terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/terminal/term_keys.h"
#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"

struct fixture {
    struct term_screen *screen;
    struct strbuf out;
};

static void collect(const char *buf, size_t len, void *ud)
{
    strbuf_append(ud, buf, len);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->screen = term_screen_create(80, 24, 0);
    strbuf_init(&f->out);
    strbuf_append(&f->out, "", 0);
    term_screen_set_output(f->screen, collect, &f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    term_screen_destroy(f->screen);
    strbuf_finish(&f->out);
    free(f);
    return 0;
}

/* The bytes pressing spec sends. */
static const char *press(struct fixture *f, const char *spec)
{
    strbuf_clear(&f->out);
    char *err = NULL;
    bool ok = term_keys_press(f->screen, spec, &err);
    if (!ok)
        fail_msg("%s: %s", spec, err);
    return f->out.data;
}

static void feed(struct fixture *f, const char *s)
{
    term_screen_feed(f->screen, s, strlen(s));
}

static void control_letters_send_c0_bytes(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(press(f, "ctrl+c"), "\x03");
    assert_string_equal(press(f, "Ctrl+C"), "\x03");
    assert_string_equal(press(f, "control+d"), "\x04");
    assert_string_equal(press(f, "ctrl+shift+c"), "\x03");
    assert_string_equal(press(f, "ctrl+i"), "\t");
    assert_string_equal(press(f, "ctrl+m"), "\r");
    assert_string_equal(press(f, "ctrl+["), "\x1b");
    assert_string_equal(press(f, "ctrl+z"), "\x1a");
    assert_string_equal(press(f, "ctrl+alt+c"), "\x1b\x03");
    strbuf_clear(&f->out);
    assert_true(term_keys_press(f->screen, "ctrl+space", NULL));
    assert_int_equal(f->out.len, 1);
    assert_int_equal(f->out.data[0], 0);
}

static void named_keys_send_xterm_sequences(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(press(f, "Enter"), "\r");
    assert_string_equal(press(f, "return"), "\r");
    assert_string_equal(press(f, "Tab"), "\t");
    assert_string_equal(press(f, "shift+tab"), "\x1b[Z");
    assert_string_equal(press(f, "Escape"), "\x1b");
    assert_string_equal(press(f, "esc"), "\x1b");
    assert_string_equal(press(f, "Backspace"), "\x7f");
    assert_string_equal(press(f, "ctrl+Backspace"), "\x08");
    assert_string_equal(press(f, "alt+Backspace"), "\x1b\x7f");
    assert_string_equal(press(f, "Delete"), "\x1b[3~");
    assert_string_equal(press(f, "Insert"), "\x1b[2~");
    assert_string_equal(press(f, "PageUp"), "\x1b[5~");
    assert_string_equal(press(f, "PageDown"), "\x1b[6~");
    assert_string_equal(press(f, "Home"), "\x1b[H");
    assert_string_equal(press(f, "End"), "\x1b[F");
    assert_string_equal(press(f, "F1"), "\x1bOP");
    assert_string_equal(press(f, "F5"), "\x1b[15~");
    assert_string_equal(press(f, "f12"), "\x1b[24~");
    assert_string_equal(press(f, "ctrl+Up"), "\x1b[1;5A");
    assert_string_equal(press(f, "shift+F5"), "\x1b[15;2~");
    assert_string_equal(press(f, "Space"), " ");
}

static void cursor_keys_follow_application_mode(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(press(f, "Up"), "\x1b[A");
    assert_string_equal(press(f, "Left"), "\x1b[D");
    feed(f, "\x1b[?1h");
    assert_string_equal(press(f, "Up"), "\x1bOA");
    assert_string_equal(press(f, "Down"), "\x1bOB");
    assert_string_equal(press(f, "Home"), "\x1bOH");
    feed(f, "\x1b[?1l");
    assert_string_equal(press(f, "Up"), "\x1b[A");
}

static void alt_prefixes_escape(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(press(f, "alt+x"), "\x1bx");
    assert_string_equal(press(f, "meta+x"), "\x1bx");
    assert_string_equal(press(f, "option+X"), "\x1bX");
    assert_string_equal(press(f, "alt+\xc3\xa9"), "\x1b\xc3\xa9");
    assert_string_equal(press(f, "alt+Enter"), "\x1b\r");
}

static void characters_are_sent_as_utf8(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(press(f, "a"), "a");
    assert_string_equal(press(f, "A"), "A");
    assert_string_equal(press(f, "shift+a"), "A");
    assert_string_equal(press(f, "+"), "+");
    assert_string_equal(press(f, "alt++"), "\x1b+");
    assert_string_equal(press(f, "\xe6\x97\xa5"), "\xe6\x97\xa5");
    assert_string_equal(press(f, " ctrl + c "), "\x03");
}

static void unknown_keys_are_refused_with_the_valid_names(void **state)
{
    struct fixture *f = *state;
    static const char *const bad[] = {"Foo", "ctrl+", "hyp+x", "F25", "ab", "", "ctrl+\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        strbuf_clear(&f->out);
        assert_false(term_keys_press(f->screen, bad[i], &err));
        assert_non_null(err);
        assert_non_null(strstr(err, "Enter"));
        assert_non_null(strstr(err, "PageDown"));
        assert_non_null(strstr(err, "F1-F12"));
        assert_non_null(strstr(err, "ctrl"));
        assert_int_equal(f->out.len, 0);
        free(err);
    }
    char *err = NULL;
    assert_false(term_keys_press(f->screen, "Foo", &err));
    assert_non_null(strstr(err, "unknown key \"Foo\""));
    free(err);
    assert_false(term_keys_press(f->screen, "hyp+x", &err));
    assert_non_null(strstr(err, "unknown modifier \"hyp\""));
    free(err);
}

/* Modifiers and keys a terminal cannot encode are refused by name, and
 * nothing reaches the program: a dropped modifier would run a different
 * command than the one asked for. */
static void super_and_hyper_are_refused_not_dropped(void **state)
{
    struct fixture *f = *state;
    static const struct {
        const char *spec, *part;
    } cases[] = {
        {"ctrl+super+t", "super"},
        {"win+l", "super"},
        {"hyper+a", "hyper"},
        {"F13", "F13"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *err = NULL;
        strbuf_clear(&f->out);
        assert_false(term_keys_press(f->screen, cases[i].spec, &err));
        assert_non_null(strstr(err, "argument \"key\""));
        assert_non_null(strstr(err, cases[i].part));
        assert_non_null(strstr(err, "not supported by terminal sessions"));
        assert_int_equal(f->out.len, 0);
        free(err);
    }
}

static void parsed_keys_name_what_was_asked(void **state)
{
    (void)state;
    struct input_key k;
    char *err = NULL;
    assert_true(term_keys_parse("key", "ctrl+shift+T", &k, &err));
    assert_int_equal(k.named, INPUT_KEY_CHAR);
    assert_int_equal(k.codepoint, 'T');
    assert_int_equal(k.mods, INPUT_MOD_CTRL | INPUT_MOD_SHIFT);
    assert_true(term_keys_parse("key", "F10", &k, &err));
    assert_int_equal(k.named, INPUT_KEY_F1 + 9);
    assert_int_equal(k.mods, 0);
}

static void typed_text_is_sent_with_newlines_as_enter(void **state)
{
    struct fixture *f = *state;
    strbuf_clear(&f->out);
    term_keys_type(f->screen, "ls -l\n", 6);
    assert_string_equal(f->out.data, "ls -l\r");
    strbuf_clear(&f->out);
    term_keys_type(f->screen, "a\r\nb\xc3\xa9", 6);
    assert_string_equal(f->out.data, "a\rb\xc3\xa9");
}

static void typed_text_is_bracketed_when_the_program_asks(void **state)
{
    struct fixture *f = *state;
    feed(f, "\x1b[?2004h");
    assert_true(term_screen_bracketed_paste(f->screen));
    strbuf_clear(&f->out);
    term_keys_type(f->screen, "echo hi\n", 8);
    assert_string_equal(f->out.data, "\x1b[200~echo hi\x1b[201~\r");
    strbuf_clear(&f->out);
    term_keys_type(f->screen, "one\ntwo", 7);
    assert_string_equal(f->out.data, "\x1b[200~one\x1b[201~\r\x1b[200~two\x1b[201~");
    feed(f, "\x1b[?2004l");
    strbuf_clear(&f->out);
    term_keys_type(f->screen, "plain", 5);
    assert_string_equal(f->out.data, "plain");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(control_letters_send_c0_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(named_keys_send_xterm_sequences, setup, teardown),
        cmocka_unit_test_setup_teardown(cursor_keys_follow_application_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(alt_prefixes_escape, setup, teardown),
        cmocka_unit_test_setup_teardown(characters_are_sent_as_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_keys_are_refused_with_the_valid_names, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(super_and_hyper_are_refused_not_dropped, setup, teardown),
        cmocka_unit_test(parsed_keys_name_what_was_asked),
        cmocka_unit_test_setup_teardown(typed_text_is_sent_with_newlines_as_enter, setup, teardown),
        cmocka_unit_test_setup_teardown(typed_text_is_bracketed_when_the_program_asks, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
