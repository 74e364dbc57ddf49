/* The parser in front of the screen: what a program prints is either acted
 * upon or dropped and counted (term_screen_dropped), limits hold whatever
 * the input, and split reads make no difference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/terminal/term_screen.h"
#include "backend/terminal/vt_parse.h"
#include "core/strbuf.h"

/* Parser events, written down as text. */
static void on_ascii(void *ud, const char *t, size_t n)
{
    strbuf_printf(ud, "[%.*s]", (int)n, t);
}
static void on_print(void *ud, uint32_t cp)
{
    strbuf_printf(ud, "<U+%04X>", cp);
}
static void on_execute(void *ud, unsigned char c)
{
    strbuf_printf(ud, "^%02X", c);
}
static void on_esc(void *ud, const char *inter, int ninter, char final)
{
    strbuf_printf(ud, "ESC%.*s%c", ninter, inter, final);
}
static void on_csi(void *ud, const struct vt_csi *q)
{
    strbuf_puts(ud, "CSI");
    if (q->leader)
        strbuf_putc(ud, q->leader);
    for (int i = 0; i < q->nparams; i++)
        strbuf_printf(ud, "%s%d", i == 0 ? "" : (q->sub >> i & 1) ? ":" : ";", q->params[i]);
    strbuf_printf(ud, "%.*s%c", q->ninter, q->inter, q->final);
}
static void on_osc(void *ud, const char *d, size_t n)
{
    strbuf_printf(ud, "OSC(%.*s)", (int)n, d);
}
static void on_dcs(void *ud, const struct vt_csi *h, const char *d, size_t n)
{
    strbuf_printf(ud, "DCS%.*s%c(%.*s)", h->ninter, h->inter, h->final, (int)n, d);
}

static const struct vt_parse_ops ops = {on_ascii, on_print, on_execute, on_esc,
                                        on_csi,   on_osc,   on_dcs};

/* Events for in, fed whole; *dropped the parser's count. */
static char *events(const char *in, size_t len, uint64_t *dropped)
{
    struct strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "", 0);
    struct vt_parser *p = malloc(sizeof *p);
    vt_parse_init(p, &ops, &out);
    vt_parse_feed(p, in, len);
    if (dropped)
        *dropped = vt_parse_dropped(p);
    free(p);
    return strbuf_steal(&out);
}

static void assert_events(const char *in, const char *want, uint64_t want_dropped)
{
    uint64_t dropped;
    char *got = events(in, strlen(in), &dropped);
    assert_string_equal(got, want);
    assert_int_equal(dropped, want_dropped);
    free(got);
}

static void text_arrives_in_runs(void **state)
{
    (void)state;
    assert_events("hello world\r\n", "[hello world]^0D^0A", 0);
    assert_events("a\xc3\xa9"
                  "b\xe6\x97\xa5",
                  "[a]<U+00E9>[b]<U+65E5>", 0);
    /* Invalid UTF-8: one U+FFFD per bad byte or cut character. */
    assert_events("\xff\xe6\x97x\xed\xa0\x80", "<U+FFFD><U+FFFD>[x]<U+FFFD><U+FFFD><U+FFFD>", 0);
    /* C1 controls, encoded or raw, are never acted upon. */
    assert_events("\xc2\x9b"
                  "1m",
                  "[1m]", 1);
    assert_events("\x9b", "<U+FFFD>", 0);
}

static void sequences_are_parsed(void **state)
{
    (void)state;
    assert_events("\x1b[1;31m", "CSI1;31m", 0);
    assert_events("\x1b[m", "CSI-1m", 0);
    assert_events("\x1b[?1049h", "CSI?1049h", 0);
    assert_events("\x1b[38:2::1:2:3m", "CSI38:2:-1:1:2:3m", 0);
    assert_events("\x1b[2 q", "CSI2 q", 0);
    assert_events("\x1b(0\x1b"
                  "7",
                  "ESC(0ESC7", 0);
    assert_events("\x1b]2;t\xe2\x9c\x93\x07", "OSC(2;t\xe2\x9c\x93)", 0);
    assert_events("\x1b]0;x\x1b\\", "OSC(0;x)", 0);
    assert_events("\x1bP$qm\x1b\\", "DCS$q(m)", 0);
    /* Controls inside a sequence run; CAN cancels it and counts. */
    assert_events("\x1b[1\r2H", "^0DCSI12H", 0);
    assert_events("\x1b[12\x18x", "[x]", 1);
    /* An ESC cuts the sequence before it short: the cut one is dropped. */
    assert_events("\x1b[12\x1b[m", "CSI-1m", 1);
    assert_events("\x1b]2;abc\x1b[m", "CSI-1m", 1);
    /* SOS, PM and APC strings are read to their end and dropped. */
    assert_events("\x1b_Gf=100;AAAA\x1b\\ok", "[ok]", 1);
}

static void limits_hold(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "CSI%dC", VT_PARAM_MAX);
    assert_events("\x1b[99999999999999999999C", want, 0);
    /* VT_MAX_PARAMS parameters are fine; one more drops the sequence. */
    struct strbuf in;
    strbuf_init(&in);
    strbuf_puts(&in, "\x1b[");
    for (int i = 0; i < VT_MAX_PARAMS; i++)
        strbuf_printf(&in, "%s1", i ? ";" : "");
    strbuf_puts(&in, "m");
    uint64_t dropped;
    char *got = events(in.data, in.len, &dropped);
    assert_int_equal(dropped, 0);
    free(got);
    in.len--;
    strbuf_puts(&in, ";1mok");
    got = events(in.data, in.len, &dropped);
    assert_string_equal(got, "[ok]");
    assert_int_equal(dropped, 1);
    free(got);
    strbuf_finish(&in);
    /* A string past VT_STRING_MAX is dropped whole, once. */
    size_t len = VT_STRING_MAX * 3;
    char *buf = malloc(len + 16);
    assert_non_null(buf);
    memcpy(buf, "\x1b]2;", 4);
    memset(buf + 4, 'x', len - 4);
    memcpy(buf + len, "\x07ok", 3);
    got = events(buf, len + 3, &dropped);
    assert_string_equal(got, "[ok]");
    assert_int_equal(dropped, 1);
    free(got);
    free(buf);
}

static char *screen_state(struct term_screen *s)
{
    char *text = term_screen_text(s);
    int row, col;
    bool visible;
    term_screen_cursor(s, &row, &col, &visible);
    struct strbuf out;
    strbuf_init(&out);
    strbuf_printf(&out, "%s|%s|%d,%d,%d|%llu", text, term_screen_title(s), row, col, visible,
                  (unsigned long long)term_screen_dropped(s));
    free(text);
    return strbuf_steal(&out);
}

/* What a user sees: sequences the emulator does not implement leave the
 * text around them alone and are counted. */
static void unknown_sequences_are_dropped_and_counted(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "\x1b!\x1b[m",              /* ESC ! cut short by another sequence */
        "\x1b[>4;2m",               /* modifyOtherKeys */
        "\x1b[22;2t",               /* window operations */
        "\x1b]52;c;aGVsbG8=\x07",   /* clipboard */
        "\x1b]8;;http://x\x1b\\",   /* hyperlink */
        "\x1b]11;?\x07",            /* colour query */
        "\x1bPq#0;2;0;0;0~-\x1b\\", /* sixel */
        "\x1b_Gf=100;AAAA\x1b\\",   /* APC (kitty graphics) */
        "\x1b^privacy\x1b\\",       /* PM */
        "\x1b[1;2?m",               /* a leader in the middle */
        "\x1b[1 2m",                /* a parameter after an intermediate */
        "\x1bN",                    /* SS2 */
        "\x1b G",                   /* S8C1T-like */
        "\x1b(Z",                   /* an unknown character set */
        "\x01",                     /* SOH */
        "\xc2\x9b",                 /* C1 CSI */
        "\x1b[?69h",                /* left/right margins */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct term_screen *s = term_screen_create(20, 3, 0);
        char in[64];
        snprintf(in, sizeof in, "a%sb", bad[i]);
        term_screen_feed(s, in, strlen(in));
        char *got = screen_state(s);
        assert_string_equal(got, "ab||0,2,1|1");
        free(got);
        term_screen_destroy(s);
    }
}

/* A stream of all of the above: fed in two pieces at every cut, and one byte
 * at a time, the screen ends the same and counts the same. */
static void split_reads_change_nothing(void **state)
{
    (void)state;
    static const char stream[] =
        "ab\x1b[1;31mred\x1b[0m\r\n\xe6\x97\xa5\x1b]2;t\xe2\x9c\x93t\x07x\x1b[?1049;69h"
        "\x1b]52;c;QQ==\x1b\\y\x1b[3b\x1bP$qm\x1b\\\x1b(0q\x1b(B\x1b[12\r;5H\x1b_apc\x1b\\"
        "\xff\x1b[>4;2mz\x1b"
        "7\x1b"
        "8end\x1b[?1049l";
    size_t n = sizeof stream - 1;
    struct term_screen *whole = term_screen_create(30, 20, 10);
    term_screen_feed(whole, stream, n);
    char *want = screen_state(whole);
    assert_int_equal(term_screen_dropped(whole), 4);
    term_screen_destroy(whole);
    for (size_t cut = 0; cut <= n; cut++) {
        struct term_screen *s = term_screen_create(30, 20, 10);
        term_screen_feed(s, stream, cut);
        term_screen_feed(s, stream + cut, n - cut);
        char *got = screen_state(s);
        assert_string_equal(got, want);
        free(got);
        term_screen_destroy(s);
    }
    struct term_screen *s = term_screen_create(30, 20, 10);
    for (size_t i = 0; i < n; i++)
        term_screen_feed(s, stream + i, 1);
    char *got = screen_state(s);
    assert_string_equal(got, want);
    free(got);
    free(want);
    term_screen_destroy(s);
}

static void the_screen_counts_drops(void **state)
{
    (void)state;
    struct term_screen *s = term_screen_create(40, 5, 0);
    const char *in = "one\x1b]8;;http://example\x1b\\two\x1b[?69h\x1b[31mthree";
    term_screen_feed(s, in, strlen(in));
    char *text = term_screen_text(s);
    assert_string_equal(text, "onetwothree");
    free(text);
    assert_int_equal(term_screen_dropped(s), 2);
    term_screen_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_arrives_in_runs),
        cmocka_unit_test(sequences_are_parsed),
        cmocka_unit_test(limits_hold),
        cmocka_unit_test(unknown_sequences_are_dropped_and_counted),
        cmocka_unit_test(split_reads_change_nothing),
        cmocka_unit_test(the_screen_counts_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
