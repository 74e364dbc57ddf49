#include "backend/terminal/term_text.h"

#include "core/strbuf.h"
#include "core/utf8.h"

#include <stdbool.h>

static void put_utf8(struct strbuf *out, uint32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18);
        b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    strbuf_append(out, b, n);
}

void term_text_append_chars(struct strbuf *out, const uint32_t *chars, int max)
{
    for (int i = 0; i < max && chars[i]; i++)
        put_utf8(out, chars[i]);
}

void term_text_trim(struct strbuf *out, size_t from)
{
    while (out->len > from && out->data[out->len - 1] == ' ')
        out->len--;
    if (out->data)
        out->data[out->len] = '\0';
}

void term_text_append_clean(struct strbuf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        if (!len) {
            put_utf8(out, 0xFFFD);
            i++;
            continue;
        }
        bool control = cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
        if (!control)
            strbuf_append(out, p + i, len);
        i += len;
    }
}
