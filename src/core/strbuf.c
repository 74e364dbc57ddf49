#include "core/strbuf.h"

#include "core/xmalloc.h"

#include <stdio.h>
#include <string.h>

void strbuf_init(struct strbuf *sb)
{
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void strbuf_finish(struct strbuf *sb)
{
    free(sb->data);
    strbuf_init(sb);
}

void strbuf_reserve(struct strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    sb->data = xrealloc(sb->data, cap);
    sb->cap = cap;
}

void strbuf_append(struct strbuf *sb, const void *data, size_t len)
{
    strbuf_reserve(sb, len);
    if (len)
        memcpy(sb->data + sb->len, data, len);
    sb->len += len;
    sb->data[sb->len] = '\0';
}

void strbuf_put_size(struct strbuf *sb, size_t n)
{
    char digits[24];
    char *p = digits + sizeof digits;
    do {
        *--p = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    strbuf_append(sb, p, (size_t)(digits + sizeof digits - p));
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
    strbuf_append(sb, s, strlen(s));
}

void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n <= 0)
        return;
    strbuf_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(sb, fmt, ap);
    va_end(ap);
}

void strbuf_consume(struct strbuf *sb, size_t n)
{
    if (n >= sb->len) {
        strbuf_clear(sb);
        return;
    }
    memmove(sb->data, sb->data + n, sb->len - n);
    sb->len -= n;
    sb->data[sb->len] = '\0';
}

void strbuf_clear(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->data)
        sb->data[0] = '\0';
}

char *strbuf_steal(struct strbuf *sb)
{
    char *p = sb->data ? sb->data : xstrdup("");
    strbuf_init(sb);
    return p;
}
