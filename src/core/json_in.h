/* A fast path in front of jansson's parser for the JSON every call brings
 * (a JSON-RPC message, a REST body). json_loadb reads its input a byte at
 * a time through a callback and was a quarter of the server's instructions
 * per trivial tools/call; this one walks the buffer directly and builds
 * the same jansson values.
 *
 * It only ever answers with exactly what json_loadb would have returned:
 * for anything it does not handle itself — any error, a number with a
 * fraction or exponent, a \u escape, an integer of more than 18 digits,
 * nesting deeper than 64 — it hands the whole text to json_loadb, so
 * errors and their messages are jansson's. */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* json_loadb(data, len, flags, err), faster for common messages. flags:
 * those of json_loadb; the fast path knows JSON_REJECT_DUPLICATES,
 * JSON_DECODE_ANY and JSON_ALLOW_NUL, and leaves any other to jansson. */
json_t *json_in_loadb(const char *data, size_t len, size_t flags, json_error_t *err);

/* The fast path alone: the value, or NULL when it left the text to
 * jansson (for tests). */
json_t *json_in_fast(const char *data, size_t len, size_t flags);
