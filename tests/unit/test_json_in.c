/* The request parser's fast path: whatever it accepts, jansson accepts too
 * and reads as the same values (types, key order, bytes of every string);
 * whatever jansson refuses, json_in_loadb refuses with jansson's message.
 * Checked on hand-picked texts and on many thousands of mutations of real
 * requests (a fixed seed: the same texts every run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_in.h"

#define FLAGS (JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL)

/* Same type, same scalars, same keys in the same order, recursively. */
static int identical(const json_t *a, const json_t *b)
{
    if (json_typeof(a) != json_typeof(b))
        return 0;
    switch (json_typeof(a)) {
    case JSON_OBJECT: {
        if (json_object_size(a) != json_object_size(b))
            return 0;
        void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);
        for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
                         ib = json_object_iter_next((json_t *)b, ib)) {
            size_t la = json_object_iter_key_len(ia), lb = json_object_iter_key_len(ib);
            if (la != lb || memcmp(json_object_iter_key(ia), json_object_iter_key(ib), la) != 0 ||
                !identical(json_object_iter_value(ia), json_object_iter_value(ib)))
                return 0;
        }
        return !ia && !ib;
    }
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!identical(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case JSON_INTEGER:
        return json_integer_value(a) == json_integer_value(b);
    case JSON_REAL:
        return json_real_value(a) == json_real_value(b);
    default:
        return 1;
    }
}

/* The property, for one text; returns whether the fast path took it. */
static int check(const char *text, size_t len, size_t flags)
{
    json_error_t want_err, got_err;
    json_t *want = json_loadb(text, len, flags, &want_err);
    json_t *fast = json_in_fast(text, len, flags);
    if (fast) {
        if (!want)
            fail_msg("fast path accepted what jansson refuses (%s): %.*s", want_err.text, (int)len,
                     text);
        if (!identical(fast, want))
            fail_msg("fast path read a different value: %.*s", (int)len, text);
    }
    json_t *got = json_in_loadb(text, len, flags, &got_err);
    assert_int_equal(got != NULL, want != NULL);
    if (!want)
        assert_string_equal(got_err.text, want_err.text);
    else
        assert_true(identical(got, want));
    int took = fast != NULL;
    json_decref(fast);
    json_decref(got);
    json_decref(want);
    return took;
}

static int check_str(const char *text)
{
    return check(text, strlen(text), FLAGS);
}

static const char *const requests[] = {
    "{\"method\":\"tools/call\",\"params\":{\"name\":\"session_list\",\"arguments\":{},\"_meta\":"
    "{\"progressToken\":12}},\"jsonrpc\":\"2.0\",\"id\":12}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"tools/call\",\"params\":{\"name\":\"type_"
    "text\",\"arguments\":{\"text\":\"ls -la\\n\",\"session\":\"s1\",\"secret\":false}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-06-18\",\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"bench\","
    "\"version\":\"1\"}}}",
    "{\"arguments\":{\"keys\":[\"ctrl+c\",\"Enter\"],\"x\":-17,\"y\":0,\"on\":true,\"off\":null},"
    "\"correlation_id\":\"run-7:step.3\"}",
    "[1, [2, [3, {\"a\": [], \"b\": {}}]], \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
    "{\"t\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\",\"\xc3\xa9\":1}",
};

static void requests_are_taken_and_match(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof requests / sizeof *requests; i++)
        assert_true(check_str(requests[i]));
}

static void edge_cases_match_jansson(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "",
        " ",
        "{",
        "}",
        "{}",
        " {} ",
        "[]",
        "{} x",
        "{}{}",
        "{\"a\":1,}",
        "[1,]",
        "{\"a\" 1}",
        "{\"a\":}",
        "{a:1}",
        "{\"a\":1,\"a\":2}",
        "{\"\":0}",
        "0",
        "-0",
        "01",
        "-01",
        "-",
        "1.5",
        "1e3",
        "-1E-3",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775809",
        "true",
        "truex",
        "true1",
        "nul",
        "nulll",
        "falsey",
        "\"abc",
        "\"a\\\"",
        "\"\\u0041\"",
        "\"\\u0000\"",
        "\"\\ud83d\\ude00\"",
        "\"\\x\"",
        "\"\\",
        "\"tab\there\"",
        "\"\x7f\"",
        "\"\xc3\"",
        "\"\xc0\xaf\"",
        "\"\xed\xa0\x80\"",
        "\"\xf4\x90\x80\x80\"",
        "\"\xff\"",
        "{\"\xc3\":1}",
        "{\"k\\n\":1,\"k\\n\":2}",
        "\xc3\xa9",
        "[1 2]",
        "[\"a\" \"b\"]",
        "{\"a\":[{\"b\":[{\"c\":[]}]}]}",
        "\t\r\n[\t\r\n]\t\r\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        check_str(texts[i]);
    /* A NUL byte inside the text, and one inside a string. */
    check("{\"a\":1}\0", 8, FLAGS);
    check("\"a\0b\"", 5, FLAGS);
    /* Without JSON_DECODE_ANY a scalar is refused; other flags go to jansson. */
    check("1", 1, JSON_REJECT_DUPLICATES);
    check("{\"a\":1,\"a\":2}", 13, 0);
    check("{\"a\":1}", 7, JSON_DISABLE_EOF_CHECK);
}

static void deep_nesting_matches_jansson(void **state)
{
    (void)state;
    char text[2 * 3000 + 1];
    for (int depth = 60; depth <= 3000; depth = depth < 70 ? depth + 1 : depth * 2) {
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        check(text, 2 * (size_t)depth, FLAGS);
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* Bytes a mutation puts in: structure, escapes, digits, UTF-8 pieces. */
static const char alphabet[] =
    "{}[]:,\"\\/ \t\n0123456789-+.eEtrufalsn\x01\x7f\xc3\xa9\xed\xa0\x80";

static void mutations_match_jansson(void **state)
{
    (void)state;
    char buf[512];
    int taken = 0, total = 0;
    for (int round = 0; round < 40000; round++) {
        const char *src = requests[next() % (sizeof requests / sizeof *requests)];
        size_t len = strlen(src);
        memcpy(buf, src, len);
        int edits = 1 + (int)(next() % 3);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = next() % len;
            char c = alphabet[next() % (sizeof alphabet - 1)];
            switch (next() % 4) {
            case 0: /* replace */
                buf[at] = c;
                break;
            case 1: /* insert */
                if (len + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = c;
                    len++;
                }
                break;
            case 2: /* delete */
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
                break;
            default: /* truncate */
                len = at;
                break;
            }
        }
        taken += check(buf, len, FLAGS);
        total++;
    }
    /* Both paths were exercised. */
    assert_true(taken > 100);
    assert_true(taken < total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requests_are_taken_and_match),
        cmocka_unit_test(edge_cases_match_jansson),
        cmocka_unit_test(deep_nesting_matches_jansson),
        cmocka_unit_test(mutations_match_jansson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
