#include "backend/terminal/vt_width.h"

#include "backend/terminal/vt_width_table.h"

#include <stdbool.h>
#include <stddef.h>

static bool in(const struct vt_width_range *r, size_t n, uint32_t cp)
{
    if (cp < r[0].first || cp > r[n - 1].last)
        return false;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp > r[mid].last)
            lo = mid + 1;
        else if (cp < r[mid].first)
            hi = mid;
        else
            return true;
    }
    return false;
}

int vt_width(uint32_t cp)
{
    if (cp < 0x300)
        return 1; /* nothing below U+0300 is zero-width or wide, bar U+00AD (shown) */
    if (in(vt_zero_width, sizeof vt_zero_width / sizeof vt_zero_width[0], cp))
        return 0;
    if (in(vt_double_width, sizeof vt_double_width / sizeof vt_double_width[0], cp))
        return 2;
    return 1;
}
