#include "core/utf8.h"

#include "core/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t c = s[0], min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, c &= 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, c &= 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, c &= 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

size_t utf8_truncate(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t i = max;
    /* Step back over continuation bytes to the start of a character. */
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
}

json_t *utf8_json_string(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    struct strbuf sb;
    strbuf_init(&sb);
    size_t i = 0, clean = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        if (len) {
            i += len;
            continue;
        }
        strbuf_append(&sb, s + clean, i - clean);
        strbuf_puts(&sb, "\xEF\xBF\xBD");
        i++;
        clean = i;
    }
    json_t *out;
    if (clean == 0) {
        out = json_stringn_nocheck(s, n);
    } else {
        strbuf_append(&sb, s + clean, n - clean);
        out = json_stringn_nocheck(sb.data, sb.len);
    }
    strbuf_finish(&sb);
    return out;
}

char *utf8_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        if (len) {
            i += len;
        } else {
            p[i++] = '?';
        }
    }
    return s;
}

size_t utf8_length(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += ((unsigned char)s[i] & 0xC0) != 0x80;
    return count;
}
