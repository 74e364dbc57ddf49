#include "core/xmalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t size)
{
    fprintf(stderr, "glovebox: out of memory allocating %zu bytes\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    /* glibc's calloc (2.36) skips the per-thread cache that malloc takes
     * blocks from: a small zeroed struct (a call, a row, a connection,
     * several per request) cost 300 instructions that way. Large blocks
     * still come from calloc, which need not clear fresh pages. */
    size_t bytes;
    if (!__builtin_mul_overflow(count, size, &bytes) && bytes && bytes <= 1024) {
        void *small = malloc(bytes);
        if (!small)
            oom(bytes);
        /* Or the compiler turns malloc + memset back into calloc. */
        __asm__ volatile("" : : "r"(small) : "memory");
        return memset(small, 0, bytes);
    }
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *out = NULL;
    if (vasprintf(&out, fmt, ap) < 0)
        oom(0);
    return out;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = xvasprintf(fmt, ap);
    va_end(ap);
    return out;
}
