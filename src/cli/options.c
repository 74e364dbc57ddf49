#include "cli/options.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

bool options_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return false;
    unsigned long long mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1024ULL, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1024ULL * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1024ULL * 1024 * 1024, end++;
    if (*end != '\0' || v == 0 || v > SIZE_MAX / mult)
        return false;
    *out = (size_t)(v * mult);
    return true;
}

bool options_parse_int(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}
