/* A growable byte buffer, always NUL-terminated so it can be read as text. */
#pragma once
#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *data; /* NULL until the first append */
    size_t len; /* bytes used, not counting the terminating NUL */
    size_t cap; /* bytes allocated */
};

void strbuf_init(struct strbuf *sb);
void strbuf_finish(struct strbuf *sb);
void strbuf_reserve(struct strbuf *sb, size_t extra);
void strbuf_append(struct strbuf *sb, const void *data, size_t len);
void strbuf_puts(struct strbuf *sb, const char *s);
/* Inline: JSON writing puts a brace, comma or colon this way for every
 * value of every answer. */
static inline void strbuf_putc(struct strbuf *sb, char c)
{
    if (sb->len + 2 > sb->cap)
        strbuf_reserve(sb, 1);
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
}
/* n in decimal, without printf (for paths run on every request). */
void strbuf_put_size(struct strbuf *sb, size_t n);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Drop the first n bytes (consumed input). */
void strbuf_consume(struct strbuf *sb, size_t n);
void strbuf_clear(struct strbuf *sb);
/* Hand the buffer to the caller (who frees it) and reset sb. Never NULL. */
char *strbuf_steal(struct strbuf *sb);
