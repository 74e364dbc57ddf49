/* The request parser's fast path (core/json_in.c) against jansson: any text
 * the fast path takes, jansson must take too and read as the same value
 * (the same compact text, key order included, and json_equal, which tells
 * integers from reals). Anything else aborts. */
#include "core/json_in.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const char *text, size_t len, size_t flags)
{
    json_t *fast = json_in_fast(text, len, flags);
    if (!fast)
        return;
    json_t *want = json_loadb(text, len, flags, NULL);
    if (!want)
        abort(); /* accepted what jansson refuses */
    char *a = json_dumps(fast, JSON_COMPACT | JSON_ENCODE_ANY);
    char *b = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!a || !b || strcmp(a, b) != 0 || !json_equal(fast, want))
        abort(); /* read a different value */
    free(a);
    free(b);
    json_decref(fast);
    json_decref(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    same(text, size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL);
    same(text, size, JSON_REJECT_DUPLICATES);
    same(text, size, 0);
    return 0;
}
