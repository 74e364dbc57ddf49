/* UTF-8 helpers. jansson refuses invalid UTF-8 (json_string returns NULL), so
 * any text that may come from outside — program output, user input, error
 * strings — goes through these before it enters JSON. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at s (of n > 0 bytes) with its code
 * point in *cp, or 0 when the bytes there are not one (overlong forms,
 * surrogates and values past U+10FFFF are not). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* Length of the longest prefix of s[0..n) that is at most max bytes and ends
 * on a character boundary. */
size_t utf8_truncate(const char *s, size_t n, size_t max);
/* A JSON string of s[0..n) with invalid sequences replaced by U+FFFD. */
json_t *utf8_json_string(const char *s, size_t n);
/* Replaces, in place, each byte of s (NUL-terminated) that does not start
 * or continue a valid UTF-8 sequence with '?', so the text can go into JSON
 * as it is; returns s. For short names from outside (a device's model). */
char *utf8_scrub(char *s);
/* Number of code points in valid UTF-8. */
size_t utf8_length(const char *s, size_t n);
