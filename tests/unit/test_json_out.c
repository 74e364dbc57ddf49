/* The reply serialiser: the same text as json_dumps(JSON_COMPACT) for every
 * kind of value, and a long base64 string copied whole; the base64 of an
 * image in it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "core/json_out.h"

static void same_as_jansson(json_t *v)
{
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t len = 0;
    char *got = json_out_dump(v, &len);
    assert_non_null(want);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    free(want);
    free(got);
    json_decref(v);
}

static void scalars_match_jansson(void **state)
{
    (void)state;
    same_as_jansson(json_integer(0));
    same_as_jansson(json_integer(-9223372036854775807LL - 1));
    same_as_jansson(json_real(0.1));
    same_as_jansson(json_real(1.0));
    same_as_jansson(json_real(-1e300));
    same_as_jansson(json_true());
    same_as_jansson(json_false());
    same_as_jansson(json_null());
    same_as_jansson(json_string(""));
    same_as_jansson(json_string("plain"));
}

static void escapes_match_jansson(void **state)
{
    (void)state;
    same_as_jansson(json_string("quote \" backslash \\ slash / tab \t nl \n cr \r"));
    same_as_jansson(json_string("\x01\x1f bell \a del \x7f"));
    same_as_jansson(json_string("ünïcödé ✓ 😀 \u2028"));
    same_as_jansson(json_stringn("nul\0inside", 10));
    /* Each escaped byte at every place in and across eight-byte words. */
    const char specials[] = {'"', '\\', '\n', 0x1f, 0x01};
    for (size_t k = 0; k < sizeof specials; k++) {
        for (size_t at = 0; at < 20; at++) {
            char s[21];
            memset(s, 'a', 20);
            s[20] = '\0';
            s[at] = specials[k];
            same_as_jansson(json_string(s));
        }
    }
    /* Every control character, alone and between multi-byte characters
     * (terminal text: box drawing and a newline per row). */
    for (int c = 1; c < 0x20; c++) {
        char s[32];
        snprintf(s, sizeof s, "\u2502 %c \u00e9%c", c, c);
        same_as_jansson(json_string(s));
    }
    same_as_jansson(json_string("\u250c\u2500\u2510\n\u2502 ok \u2502\n\u2514\u2500\u2518\n$ "));
    /* Bytes just above each special one need nothing. */
    same_as_jansson(json_string(" !#$%&[]^_`{|}~ABCDEFGHIJKLMNOPQRSTUVWXYZ"));
}

static void nesting_keeps_order(void **state)
{
    (void)state;
    json_t *o = json_pack("{s:i, s:[s, {s:b, s:n}, []], s:{}, s:f}", "z", 1, "a", "x", "k\"ey", 1,
                          "nul", "empty", "scale", 0.5);
    json_object_set_new(o, "esc\nkey", json_string("v"));
    same_as_jansson(o);
    same_as_jansson(json_array());
    same_as_jansson(json_object());
}

/* The shape of a screenshot's reply: the base64 string comes out whole. */
static void long_base64_string(void **state)
{
    (void)state;
    size_t n = 400 * 1024;
    char *b64 = malloc(n);
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i++)
        b64[i] = table[(i * 7) % 64];
    json_t *image = json_pack("{s:s, s:s}", "type", "image", "mimeType", "image/png");
    json_object_set_new(image, "data", json_stringn_nocheck(b64, n));
    json_t *msg =
        json_pack("{s:s, s:i, s:{s:[o]}}", "jsonrpc", "2.0", "id", 7, "result", "content", image);
    size_t len;
    char *text = json_out_dump(msg, &len);
    json_error_t err;
    json_t *back = json_loadb(text, len, 0, &err);
    assert_non_null(back);
    json_t *data = json_object_get(
        json_array_get(json_object_get(json_object_get(back, "result"), "content"), 0), "data");
    assert_int_equal(json_string_length(data), n);
    assert_memory_equal(json_string_value(data), b64, n);
    json_decref(back);
    free(text);
    same_as_jansson(msg);
    free(b64);
}

/* RFC 4648's test vectors, and every byte value through a round trip. */
static void base64_vectors(void **state)
{
    (void)state;
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                        "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < 7; i++) {
        char *b = base64_encode((const uint8_t *)plain[i], strlen(plain[i]));
        assert_string_equal(b, coded[i]);
        free(b);
    }
    uint8_t all[256 * 3 + 2];
    for (size_t i = 0; i < sizeof all; i++)
        all[i] = (uint8_t)(i * 7 + i / 256);
    for (size_t n = sizeof all - 3; n <= sizeof all; n++) {
        char *b = base64_encode(all, n);
        size_t back_len;
        char *back = base64_decode(b, strlen(b), &back_len);
        assert_non_null(back);
        assert_int_equal(back_len, n);
        assert_memory_equal(back, all, n);
        free(back);
        free(b);
    }
}

static void no_value_is_refused(void **state)
{
    (void)state;
    assert_null(json_out_dump(NULL, NULL));
    /* Invalid UTF-8 (a string made unchecked) is refused as json_dumps
     * refuses it, with or without bytes to escape around it. */
    static const char *const bad[] = {"\xff", "a\nb\xc3", "\"\xed\xa0\x80\"", "x\xc0\xaf\ty"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *v = json_stringn_nocheck(bad[i], strlen(bad[i]));
        char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        char *got = json_out_dump(v, NULL);
        assert_null(want);
        if (strpbrk(bad[i], "\n\t\""))
            assert_null(got);
        free(got);
        json_decref(v);
    }
}

static char *dump(const json_t *v)
{
    char *text = json_out_dump(v, NULL);
    assert_non_null(text);
    return text;
}

/* A frozen value is written as before, alone or inside another, from its
 * kept text (seen here by changing it, which its owner must never do),
 * until it is forgotten; the memo holds one reference meanwhile. */
static void frozen_values_are_written_from_the_memo(void **state)
{
    (void)state;
    json_t *lines = json_pack("[s, s, s]", "first \"line\"", "", "tab\there");
    json_t *answer = json_pack("{s:s, s:O, s:{s:i, s:b}}", "session", "terminal-1", "lines", lines,
                               "cursor", "row", 2, "visible", 1);
    char *want = json_dumps(answer, JSON_COMPACT);
    json_out_freeze(answer);
    json_out_freeze(answer); /* twice: still one reference */
    assert_int_equal(answer->refcount, 2);
    for (int i = 0; i < 3; i++) {
        char *got = dump(answer);
        assert_string_equal(got, want);
        free(got);
    }
    json_t *outer = json_pack("{s:O, s:[O]}", "result", answer, "again", answer);
    char *outer_want = json_dumps(outer, JSON_COMPACT);
    char *outer_got = dump(outer);
    assert_string_equal(outer_got, outer_want);

    json_array_append_new(lines, json_string("later"));
    char *kept = dump(answer);
    assert_string_equal(kept, want);
    size_t refs = answer->refcount; /* ours, outer's two and the memo's */
    json_out_forget(answer);
    assert_int_equal(answer->refcount, refs - 1);
    char *fresh = dump(answer);
    char *fresh_want = json_dumps(answer, JSON_COMPACT);
    assert_string_equal(fresh, fresh_want);
    assert_string_not_equal(fresh, want);
    json_out_forget(answer); /* not kept: nothing */

    free(want);
    free(outer_want);
    free(outer_got);
    free(kept);
    free(fresh);
    free(fresh_want);
    json_decref(outer);
    json_decref(lines);
    json_decref(answer);
}

/* More frozen values than the memo has slots: those that lose their slot
 * are written anew, every one as jansson writes it. Scalars are not kept. */
static void many_frozen_values(void **state)
{
    (void)state;
    enum { N = 300 };
    json_t *v[N];
    for (int i = 0; i < N; i++) {
        v[i] = json_pack("{s:i, s:[i, s]}", "n", i, "a", i * 7, "x\ny");
        json_out_freeze(v[i]);
    }
    json_t *scalar = json_string("plain");
    json_out_freeze(scalar);
    assert_int_equal(scalar->refcount, 1);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N; i++) {
            char *want = json_dumps(v[i], JSON_COMPACT);
            char *got = dump(v[i]);
            assert_string_equal(got, want);
            free(want);
            free(got);
        }
    for (int i = 0; i < N; i++) {
        json_out_forget(v[i]);
        assert_int_equal(v[i]->refcount, 1);
        json_decref(v[i]);
    }
    json_decref(scalar);
}

/* The memo's slot for v, as json_out.c picks it (a hash of the address). */
static unsigned home_of(const json_t *v)
{
    return (unsigned)(((uint64_t)(uintptr_t)v * 0x9E3779B97F4A7C15ULL) >> 58);
}

/* Values whose addresses hash alike (a terminal's answer and its content
 * did, now and then) are all kept: each is still written from its memo. */
static void frozen_values_sharing_a_slot(void **state)
{
    (void)state;
    enum { POOL = 2048, SAME = 3 };
    json_t **pool = calloc(POOL, sizeof *pool);
    json_t *same[SAME];
    int found = 0;
    for (int i = 0; i < POOL && found < SAME; i++) {
        pool[i] = json_pack("[i]", i);
        if (found == 0 || home_of(pool[i]) == home_of(same[0]))
            same[found++] = pool[i];
    }
    assert_int_equal(found, SAME);
    char *want[SAME];
    for (int i = 0; i < SAME; i++)
        json_out_freeze(same[i]);
    for (int i = 0; i < SAME; i++) {
        want[i] = dump(same[i]);
        json_array_append_new(same[i], json_string("changed")); /* shows the memo */
    }
    for (int i = 0; i < SAME; i++) {
        char *got = dump(same[i]);
        assert_string_equal(got, want[i]);
        free(got);
        free(want[i]);
        json_out_forget(same[i]);
    }
    for (int i = 0; i < POOL; i++)
        json_decref(pool[i]);
    free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_match_jansson),
        cmocka_unit_test(escapes_match_jansson),
        cmocka_unit_test(nesting_keeps_order),
        cmocka_unit_test(long_base64_string),
        cmocka_unit_test(base64_vectors),
        cmocka_unit_test(no_value_is_refused),
        cmocka_unit_test(frozen_values_are_written_from_the_memo),
        cmocka_unit_test(many_frozen_values),
        cmocka_unit_test(frozen_values_sharing_a_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
