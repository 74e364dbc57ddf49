/* Small parsers for command-line values. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

/* "16M", "512K", "1048576" -> bytes. */
bool options_parse_size(const char *s, size_t *out);
/* A decimal integer in [min, max]. */
bool options_parse_int(const char *s, long min, long max, long *out);
