/* Allocation that never returns NULL: out of memory aborts, because no code
 * path in a server can do anything useful without memory. */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h> /* free() goes with these */

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string the caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
