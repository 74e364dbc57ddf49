/* term_feed, the whitelist in front of libvterm: what a program prints either
 * reaches libvterm as a whole sequence known to be safe, or is dropped and
 * counted; split reads make no difference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/terminal/term_feed.h"
#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"

struct sink {
    struct strbuf out, reply;
    int writes;
};

static void on_write(const char *buf, size_t len, void *ud)
{
    struct sink *k = ud;
    strbuf_append(&k->out, buf, len);
    k->writes++;
}

static void on_reply(const char *buf, size_t len, void *ud)
{
    struct sink *k = ud;
    strbuf_append(&((struct sink *)k)->reply, buf, len);
}

struct fixture {
    struct term_feed f;
    struct sink k;
};

static void setup(struct fixture *x)
{
    memset(x, 0, sizeof *x);
    strbuf_init(&x->k.out);
    strbuf_init(&x->k.reply);
    strbuf_append(&x->k.out, "", 0);
    strbuf_append(&x->k.reply, "", 0);
    term_feed_init(&x->f, on_write, on_reply, &x->k);
}

static void teardown(struct fixture *x)
{
    term_feed_finish(&x->f);
    strbuf_finish(&x->k.out);
    strbuf_finish(&x->k.reply);
}

/* What libvterm gets for input fed whole, and how many were dropped. */
static void through(const char *in, size_t len, struct strbuf *out, uint64_t *dropped)
{
    struct fixture x;
    setup(&x);
    term_feed_bytes(&x.f, in, len);
    strbuf_clear(out);
    strbuf_append(out, x.k.out.data, x.k.out.len);
    strbuf_append(out, "", 0);
    *dropped = term_feed_dropped(&x.f);
    teardown(&x);
}

static void assert_passes(const char *in)
{
    struct strbuf out;
    strbuf_init(&out);
    uint64_t dropped;
    through(in, strlen(in), &out, &dropped);
    assert_string_equal(out.data, in);
    assert_int_equal(dropped, 0);
    strbuf_finish(&out);
}

static void assert_becomes(const char *in, const char *want, uint64_t want_dropped)
{
    struct strbuf out;
    strbuf_init(&out);
    uint64_t dropped;
    through(in, strlen(in), &out, &dropped);
    assert_string_equal(out.data, want);
    assert_int_equal(dropped, want_dropped);
    strbuf_finish(&out);
}

static void text_passes_in_one_write(void **state)
{
    (void)state;
    struct fixture x;
    setup(&x);
    const char *text = "hello\tworld\r\n\xe6\x97\xa5\xe6\x9c\xac \xe2\x9c\x93\x07\x08\r\n";
    term_feed_bytes(&x.f, text, strlen(text));
    assert_string_equal(x.k.out.data, text);
    assert_int_equal(x.k.writes, 1);
    assert_int_equal(term_feed_dropped(&x.f), 0);
    teardown(&x);
}

static void sequences_real_programs_use_pass(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "\x1b[m",
        "\x1b[0m",
        "\x1b[1;31;42m",
        "\x1b[38;5;208m",
        "\x1b[38;2;1;2;3m",
        "\x1b[38:2::1:2:3m",
        "\x1b[H",
        "\x1b[12;40H",
        "\x1b[3A",
        "\x1b[B",
        "\x1b[2C",
        "\x1b[D",
        "\x1b[5G",
        "\x1b[7d",
        "\x1b[2J",
        "\x1b[K",
        "\x1b[1K",
        "\x1b[?2J",
        "\x1b[3L",
        "\x1b[2M",
        "\x1b[4@",
        "\x1b[4P",
        "\x1b[5X",
        "\x1b[2S",
        "\x1b[T",
        "\x1b[3;20r",
        "\x1b[r",
        "\x1b[s",
        "\x1b[I",
        "\x1b[Z",
        "\x1b[g",
        "\x1b[3g",
        "\x1b[6n",
        "\x1b[5n",
        "\x1b[c",
        "\x1b[>c",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[?1h",
        "\x1b[?25l",
        "\x1b[?2004h",
        "\x1b[?1000h",
        "\x1b[?1006h",
        "\x1b[?1004h",
        "\x1b[?7l",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[2 q",
        "\x1b[!p",
        "\x1b[?25$p",
        "\x1b"
        "7",
        "\x1b"
        "8",
        "\x1b=",
        "\x1b>",
        "\x1bM",
        "\x1b"
        "D",
        "\x1b"
        "E",
        "\x1bH",
        "\x1b(0",
        "\x1b(B",
        "\x1b)0",
        "\x1b"
        "c",
        "\x1b]0;title\x1b\\",
        "\x1b]2;\xe2\x9c\x93\x1b\\",
        "\x1bP$qm\x1b\\",
        "\x1bP$q q\x1b\\",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_passes(ok[i]);
    /* A title ended by BEL goes on with ST (one form for libvterm). */
    assert_becomes("a\x1b]2;t\x07"
                   "b",
                   "a\x1b]2;t\x1b\\b", 0);
}

static void unknown_sequences_are_dropped_and_counted(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "\x1b!\x1b[5b",             /* ESC ! then a REP: one drop, REP of nothing */
        "\x1b[>4;2m",               /* modifyOtherKeys */
        "\x1b[22;2t",               /* window operations */
        "\x1b]52;c;aGVsbG8=\x07",   /* clipboard */
        "\x1b]8;;http://x\x1b\\",   /* hyperlink */
        "\x1b]11;?\x07",            /* colour query */
        "\x1bPq#0;2;0;0;0~-\x1b\\", /* sixel */
        "\x1b_Gf=100;AAAA\x1b\\",   /* APC (kitty graphics) */
        "\x1b^privacy\x1b\\",       /* PM */
        "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17m", /* 17 parameters */
        "\x1b[1;2?m",                                      /* a leader in the middle */
        "\x1b[1 2m",                                       /* a parameter after an intermediate */
        "\x1bN",                                           /* SS2 */
        "\x1b G",                                          /* S8C1T-like */
        "\x1b%G",                                          /* select UTF-8 */
        "\x1b(Z",                                          /* an unknown character set */
        "\x1b\\",                                          /* ST alone */
        "\x01",                                            /* SOH */
        "\x7f",                                            /* DEL */
        "\xc2\x9b",                                        /* C1 CSI */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_becomes(bad[i], "", 1);
    /* Text around a dropped sequence still passes. */
    assert_becomes("a\x1b[>4;2mb", "ab", 1);
    /* An ESC cuts what came before it: the cut one is dropped. */
    assert_becomes("\x1b[12\x1b[m", "\x1b[m", 1);
    assert_becomes("\x1b]2;abc\x1b[m", "\x1b[m", 1);
    /* CAN cancels without a trace but counts. */
    assert_becomes("\x1b[12\x18x", "x", 1);
}

static void modes_are_filtered_one_by_one(void **state)
{
    (void)state;
    /* libvterm reads one mode per sequence: each known one goes alone. */
    assert_becomes("\x1b[?1049;2004h", "\x1b[?1049h\x1b[?2004h", 0);
    /* Left/right margins (69) and unknown modes are dropped, each counted. */
    assert_becomes("\x1b[?69;25;9999h", "\x1b[?25h", 2);
    assert_becomes("\x1b[?69h", "", 1);
    assert_becomes("\x1b[4;12l", "\x1b[4l", 1);
}

static void parameters_are_capped(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "\x1b[%dC", TERM_FEED_PARAM_MAX);
    assert_becomes("\x1b[99999999999999999999C", want, 0);
    assert_becomes("\x1b[007;;1H", "\x1b[7;;1H", 0);
    /* Sixteen parameters are fine. */
    assert_passes("\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16m");
}

static void controls_inside_sequences_run(void **state)
{
    (void)state;
    assert_becomes("\x1b[1\r2H", "\r\x1b[12H", 0);
    assert_becomes("\x1b[1\x01"
                   "2H",
                   "\x1b[12H", 1);
    /* Controls in a title are skipped. */
    assert_becomes("\x1b]2;a\x01"
                   "b\x07",
                   "\x1b]2;ab\x1b\\", 0);
}

static void rep_repeats_the_last_character(void **state)
{
    (void)state;
    assert_becomes("x\x1b[3b", "xxxx", 0);
    assert_becomes("\xe6\x97\xa5\x1b[2b", "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5", 0);
    /* Capped at the row's width; nothing after a control. */
    assert_becomes("\r\n\x1b[5b", "\r\n", 0);
    struct fixture x;
    setup(&x);
    x.f.rep_max = 3;
    term_feed_bytes(&x.f, "y\x1b[1000b", 8);
    assert_string_equal(x.k.out.data, "yyyy");
    teardown(&x);
}

static void status_queries(void **state)
{
    (void)state;
    struct fixture x;
    setup(&x);
    const char *q = "\x1bP$qxyz\x1b\\";
    term_feed_bytes(&x.f, q, strlen(q));
    assert_string_equal(x.k.out.data, "");
    assert_string_equal(x.k.reply.data, "\x1bP0$r\x1b\\");
    assert_int_equal(term_feed_dropped(&x.f), 0);
    teardown(&x);
}

static void long_sequences_are_dropped_once(void **state)
{
    (void)state;
    size_t len = TERM_FEED_STRING_MAX * 3;
    char *buf = malloc(len + 16);
    assert_non_null(buf);
    memcpy(buf, "\x1b]2;", 4);
    memset(buf + 4, 'x', len - 4);
    memcpy(buf + len, "\x07ok", 3);
    struct strbuf out;
    strbuf_init(&out);
    uint64_t dropped;
    through(buf, len + 3, &out, &dropped);
    assert_string_equal(out.data, "ok");
    assert_int_equal(dropped, 1);

    memcpy(buf, "\x1b[", 2);
    memset(buf + 2, '1', len - 2);
    memcpy(buf + len, "mok", 3);
    through(buf, len + 3, &out, &dropped);
    assert_string_equal(out.data, "ok");
    assert_int_equal(dropped, 1);
    strbuf_finish(&out);
    free(buf);
}

/* A stream of everything above: fed in two pieces at every cut, and one
 * byte at a time, libvterm gets the same bytes and the same count. */
static void split_reads_change_nothing(void **state)
{
    (void)state;
    static const char stream[] =
        "ab\x1b[1;31mred\x1b[0m\r\n\xe6\x97\xa5\x1b]2;t\xe2\x9c\x93t\x07x\x1b[?1049;69h"
        "\x1b]52;c;QQ==\x1b\\y\x1b[3b\x1bP$qm\x1b\\\x1b(0q\x1b(B\x1b[12\r;5H\x1b_apc\x1b\\"
        "\xff\x1b[>4;2mz\x1b"
        "7\x1b"
        "8end";
    size_t n = sizeof stream - 1;
    struct strbuf whole;
    strbuf_init(&whole);
    uint64_t want_dropped;
    through(stream, n, &whole, &want_dropped);
    assert_int_equal(want_dropped, 4);
    for (size_t cut = 0; cut <= n; cut++) {
        struct fixture x;
        setup(&x);
        term_feed_bytes(&x.f, stream, cut);
        term_feed_bytes(&x.f, stream + cut, n - cut);
        assert_string_equal(x.k.out.data, whole.data);
        assert_int_equal(term_feed_dropped(&x.f), want_dropped);
        assert_true(term_feed_idle(&x.f));
        teardown(&x);
    }
    struct fixture x;
    setup(&x);
    for (size_t i = 0; i < n; i++) {
        term_feed_bytes(&x.f, stream + i, 1);
        if (i + 1 < n && stream[i] == 0x1b)
            assert_false(term_feed_idle(&x.f));
    }
    assert_string_equal(x.k.out.data, whole.data);
    assert_int_equal(term_feed_dropped(&x.f), want_dropped);
    teardown(&x);
    strbuf_finish(&whole);
}

/* What a user sees: a program that prints a sequence libvterm must not get
 * still shows its text, and the screen counts the drop. */
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
        cmocka_unit_test(text_passes_in_one_write),
        cmocka_unit_test(sequences_real_programs_use_pass),
        cmocka_unit_test(unknown_sequences_are_dropped_and_counted),
        cmocka_unit_test(modes_are_filtered_one_by_one),
        cmocka_unit_test(parameters_are_capped),
        cmocka_unit_test(controls_inside_sequences_run),
        cmocka_unit_test(rep_repeats_the_last_character),
        cmocka_unit_test(status_queries),
        cmocka_unit_test(long_sequences_are_dropped_once),
        cmocka_unit_test(split_reads_change_nothing),
        cmocka_unit_test(the_screen_counts_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
