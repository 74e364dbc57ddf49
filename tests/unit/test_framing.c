/* Framing: splitting stdin bytes into messages, both framings, limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "mcp/framing.h"

static void expect_message(struct framing *f, const char *want)
{
    const char *msg;
    size_t len;
    assert_int_equal(framing_next(f, &msg, &len), FRAMING_MESSAGE);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(msg, want, len);
}

static void expect_need_more(struct framing *f)
{
    const char *msg;
    size_t len;
    assert_int_equal(framing_next(f, &msg, &len), FRAMING_NEED_MORE);
}

static void ndjson_lines_become_messages(void **state)
{
    struct framing f;
    framing_init(&f, 1024);
    const char *in = "{\"a\":1}\n{\"b\":2}\r\n\n  \n{\"c\"";
    framing_push(&f, in, strlen(in));
    assert_int_equal(f.mode, FRAMING_NDJSON);
    expect_message(&f, "{\"a\":1}");
    expect_message(&f, "{\"b\":2}");
    expect_need_more(&f);
    framing_push(&f, ":3}\n", 4);
    expect_message(&f, "{\"c\":3}");
    expect_need_more(&f);
    framing_finish(&f);
}

static void ndjson_byte_by_byte(void **state)
{
    struct framing f;
    framing_init(&f, 1024);
    const char *in = "{\"x\":\"y\"}\n";
    for (size_t i = 0; i < strlen(in) - 1; i++) {
        framing_push(&f, in + i, 1);
        expect_need_more(&f);
    }
    framing_push(&f, "\n", 1);
    expect_message(&f, "{\"x\":\"y\"}");
    framing_finish(&f);
}

static void ndjson_oversized_line_is_skipped(void **state)
{
    struct framing f;
    framing_init(&f, 16);
    char big[100];
    memset(big, 'x', sizeof big);
    framing_push(&f, big, sizeof big);
    expect_need_more(&f);
    /* Nothing of the oversized line is kept in memory. */
    assert_true(framing_pending(&f) <= 16);
    framing_push(&f, big, 10);
    framing_push(&f, "\n{\"ok\":1}\n", 10);
    const char *msg;
    size_t len;
    assert_int_equal(framing_next(&f, &msg, &len), FRAMING_TOO_LARGE);
    assert_int_equal(len, 110);
    expect_message(&f, "{\"ok\":1}");
    framing_finish(&f);
}

static void content_length_detected_by_first_byte(void **state)
{
    struct framing f;
    framing_init(&f, 1024);
    const char *in = "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 7\r\nContent-Type: "
                     "application/json\r\n\r\n{\"b\":2}";
    framing_push(&f, in, strlen(in));
    assert_int_equal(f.mode, FRAMING_CONTENT_LENGTH);
    expect_message(&f, "{\"a\":1}");
    expect_message(&f, "{\"b\":2}");
    expect_need_more(&f);
    framing_finish(&f);
}

static void content_length_split_anywhere(void **state)
{
    const char *in = "Content-Length: 9\r\n\r\n{\"k\":\"v\"}";
    size_t n = strlen(in);
    for (size_t cut = 1; cut < n; cut++) {
        struct framing f;
        framing_init(&f, 1024);
        framing_push(&f, in, cut);
        const char *msg;
        size_t len;
        enum framing_event ev = framing_next(&f, &msg, &len);
        assert_int_equal(ev, FRAMING_NEED_MORE);
        framing_push(&f, in + cut, n - cut);
        expect_message(&f, "{\"k\":\"v\"}");
        framing_finish(&f);
    }
}

static void content_length_oversized_body_is_skipped(void **state)
{
    struct framing f;
    framing_init(&f, 8);
    const char *head = "Content-Length: 20\r\n\r\n0123456789";
    framing_push(&f, head, strlen(head));
    expect_need_more(&f);
    framing_push(&f, "0123456789Content-Length: 2\r\n\r\n{}", 34);
    const char *msg;
    size_t len;
    assert_int_equal(framing_next(&f, &msg, &len), FRAMING_TOO_LARGE);
    assert_int_equal(len, 20);
    expect_message(&f, "{}");
    framing_finish(&f);
}

static void content_length_bad_header(void **state)
{
    struct framing f;
    framing_init(&f, 1024);
    const char *in = "Content-Length: abc\r\n\r\nContent-Length: 2\r\n\r\n{}";
    framing_push(&f, in, strlen(in));
    const char *msg;
    size_t len;
    assert_int_equal(framing_next(&f, &msg, &len), FRAMING_BAD_HEADER);
    expect_message(&f, "{}");
    framing_finish(&f);
}

static void encode_matches_mode(void **state)
{
    struct strbuf sb;
    strbuf_init(&sb);
    framing_encode(FRAMING_NDJSON, "{}", 2, &sb);
    assert_string_equal(sb.data, "{}\n");
    strbuf_clear(&sb);
    framing_encode(FRAMING_CONTENT_LENGTH, "{}", 2, &sb);
    assert_string_equal(sb.data, "Content-Length: 2\r\n\r\n{}");
    strbuf_finish(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ndjson_lines_become_messages),
        cmocka_unit_test(ndjson_byte_by_byte),
        cmocka_unit_test(ndjson_oversized_line_is_skipped),
        cmocka_unit_test(content_length_detected_by_first_byte),
        cmocka_unit_test(content_length_split_anywhere),
        cmocka_unit_test(content_length_oversized_body_is_skipped),
        cmocka_unit_test(content_length_bad_header),
        cmocka_unit_test(encode_matches_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
