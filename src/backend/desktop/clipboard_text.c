/* The text a clipboard holds or is given: shared (reference-counted) between
 * the selection glovebox owns and the transfers still sending it, with what
 * the STRING and text/plain targets need to know precomputed. */
#include "backend/desktop/clipboard_internal.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

struct text *clip_text_new(const char *s, size_t n)
{
    struct text *t = xmalloc(sizeof *t + n + 1);
    t->refs = 1;
    t->len = n;
    memcpy(t->data, s, n);
    t->data[n] = '\0';
    t->ascii = t->latin1 = true;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t l = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (!l)
            l = 1, cp = 0xFFFD;
        if (cp > 0x7F)
            t->ascii = false;
        if (cp > 0xFF)
            t->latin1 = false;
        i += l;
    }
    return t;
}

struct text *clip_text_ref(struct text *t)
{
    t->refs++;
    return t;
}

void clip_text_unref(struct text *t)
{
    if (t && --t->refs == 0)
        free(t);
}

/* t as ISO 8859-1 (t->latin1 must hold). */
struct text *clip_text_latin1(const struct text *t)
{
    struct text *out = xmalloc(sizeof *out + t->len + 1);
    *out = (struct text){.refs = 1, .latin1 = true, .ascii = t->ascii};
    const unsigned char *s = (const unsigned char *)t->data;
    for (size_t i = 0; i < t->len;) {
        uint32_t cp = 0;
        size_t l = utf8_decode(s + i, t->len - i, &cp);
        out->data[out->len++] = (char)cp;
        i += l ? l : 1;
    }
    out->data[out->len] = '\0';
    return out;
}
