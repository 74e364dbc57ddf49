/* Where a window's content is, from where its title text is. What every
 * window manager draws around a title (openbox, xfwm, GNOME's client-side
 * decorations, macOS) has the same few traits, and only those are relied
 * on:
 * - the title bar's bottom is a horizontal edge across the text's columns
 *   (a separator line, or the bar meeting the content);
 * - along the bar's last row, below the text, the colour changes only
 *   smoothly (gradients) up to the window's sides: a border, a shadow or
 *   the desktop. Buttons and icons sit higher, beside the text, and the
 *   text may be anywhere along the bar (left, or centred as on macOS);
 * - the content ends at the first row below it that is an edge across the
 *   window's width and looks like what is beside the window: the bottom
 *   border, openbox's handle line, the desktop under a borderless window. */
#include "backend/vnc/window_region.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <stdint.h>
#include <stdlib.h>

/* A change sharper than this (|dR| + |dG| + |dB|) is an edge: a title
 * bar's gradient changes a few levels a row, a border line far more. */
#define EDGE 48
/* The share of a row's pixels, in percent, that make it an edge. */
#define MOST 90
/* Lines between a title bar and its content (separators, a border). */
#define SEPARATOR_ROWS 3
/* The smallest content taken for a window, each way. */
#define MIN_SIDE 16

static const uint8_t *px(const struct frame *f, int x, int y)
{
    return f->rgba + (size_t)y * f->stride + (size_t)x * 4;
}

static int diff(const uint8_t *a, const uint8_t *b)
{
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}

/* Row y differs sharply from row y - 1 in most columns of [x0, x1). */
static bool row_edge(const struct frame *f, int x0, int x1, int y)
{
    int n = 0;
    for (int x = x0; x < x1; x++)
        n += diff(px(f, x, y), px(f, x, y - 1)) > EDGE;
    return n * 100 >= (x1 - x0) * MOST;
}

/* Most of row y over [x0, x1) looks like a pixel just beside it: the row
 * is no longer the window's. */
static bool row_like_side(const struct frame *f, int x0, int x1, int y)
{
    const uint8_t *l = x0 > 0 ? px(f, x0 - 1, y) : NULL;
    const uint8_t *r = x1 < (int)f->width ? px(f, x1, y) : NULL;
    if (!l && !r)
        return false;
    int n = 0;
    for (int x = x0; x < x1; x++) {
        const uint8_t *p = px(f, x, y);
        n += (l && diff(p, l) <= EDGE) || (r && diff(p, r) <= EDGE);
    }
    return n * 100 >= (x1 - x0) * MOST;
}

/* From x along row y, step dx while the colour changes only smoothly: the
 * last x before a sharp change (or the screen's edge). */
static int walk(const struct frame *f, int x, int y, int dx)
{
    while (x + dx >= 0 && x + dx < (int)f->width && diff(px(f, x + dx, y), px(f, x, y)) <= EDGE)
        x += dx;
    return x;
}

/* The content's side near the bar's end x: its first row's own end when
 * that is within a few pixels (past a bevel at the bar's end, or inside
 * a border line drawn under the bar), else the bar's. */
static int side(const struct frame *f, int x, int cx, int top, int dx)
{
    int c = walk(f, cx, top, dx);
    return abs(c - x) <= 3 ? c : x;
}

bool vnc_window_region(const struct frame *f, const struct vnc_rect *text, struct vnc_rect *out)
{
    int W = (int)f->width, H = (int)f->height;
    int tx0 = text->x < 0 ? 0 : text->x;
    int tx1 = text->x + text->w > W ? W : text->x + text->w;
    if (tx1 - tx0 < 2 || text->h < 1 || text->y < 0)
        return false;
    /* The bar's bottom: the first edge below the text, within about a
     * text's height (a title bar is not much taller than its text). */
    int edge = -1;
    /* From the text's middle: OCR's boxes are often taller than the glyphs,
     * and a glyph's strokes never make a whole row an edge. */
    int from = text->y + text->h / 2 + 1;
    for (int y = from; y < H && y <= text->y + 2 * text->h + 8; y++)
        if (row_edge(f, tx0, tx1, y)) {
            edge = y;
            break;
        }
    if (edge < 0)
        return false;
    int top = edge;
    for (int y = edge + 1; y < H && y < edge + SEPARATOR_ROWS; y++)
        if (row_edge(f, tx0, tx1, y))
            top = y;
    if (top + 1 >= H)
        return false;
    /* The sides, along the bar's last row. */
    int cx = (tx0 + tx1) / 2;
    int xl = walk(f, cx, edge - 1, -1), xr = walk(f, cx, edge - 1, 1);
    /* The bar runs under (most of) the text: else the text sits within
     * something else. OCR's boxes may reach past the bar's ends. */
    if ((xr - xl + 1) * 4 < (tx1 - tx0) * 3)
        return false;
    xl = side(f, xl, cx, top, -1);
    xr = side(f, xr, cx, top, 1);
    /* The bottom. */
    int bottom = H;
    for (int y = top + 1; y < H; y++)
        if (row_edge(f, xl, xr + 1, y) && row_like_side(f, xl, xr + 1, y)) {
            bottom = y;
            break;
        }
    *out = (struct vnc_rect){xl, top, xr - xl + 1, bottom - top};
    return out->w >= MIN_SIDE && out->h >= MIN_SIDE;
}

/* Bars' limits, in pixels. */
#define BAR_MIN_W 48
#define BAR_MIN_H 10
#define BAR_MAX_H 64
/* Holes in a bar's bottom edge (a bevel's pixel, a button's shadow). */
#define EDGE_GAP 3

static bool overlaps(const struct vnc_rect *a, const struct vnc_rect *b)
{
    int w = (a->x + a->w < b->x + b->w ? a->x + a->w : b->x + b->w) - (a->x > b->x ? a->x : b->x);
    int h = (a->y + a->h < b->y + b->h ? a->y + a->h : b->y + b->h) - (a->y > b->y ? a->y : b->y);
    return w > 0 && h > 0 && (long long)w * h * 2 > (long long)a->w * a->h;
}

int vnc_title_bars(const struct frame *f, struct vnc_rect *out, int max)
{
    int W = (int)f->width, H = (int)f->height, n = 0;
    for (int y = BAR_MIN_H + 1; y < H && n < max; y++)
        for (int x = 0; x < W && n < max;) {
            if (diff(px(f, x, y), px(f, x, y - 1)) <= EDGE) {
                x++;
                continue;
            }
            /* A run of edge pixels along row y, small holes allowed. */
            int x0 = x, x1 = x, hole = 0;
            for (x++; x < W && hole <= EDGE_GAP; x++)
                if (diff(px(f, x, y), px(f, x, y - 1)) > EDGE)
                    x1 = x, hole = 0;
                else
                    hole++;
            if (x1 - x0 + 1 < BAR_MIN_W)
                continue;
            /* The band's top: the nearest edge across the run above. */
            for (int top = y - 2; top > 0 && top >= y - BAR_MAX_H; top--)
                if (row_edge(f, x0, x1 + 1, top)) {
                    struct vnc_rect bar = {x0, top, x1 - x0 + 1, y - top};
                    bool seen = false;
                    for (int i = 0; i < n && !seen; i++)
                        seen = overlaps(&bar, &out[i]);
                    if (bar.h >= BAR_MIN_H && !seen)
                        out[n++] = bar;
                    break;
                }
        }
    return n;
}

static int cmp_byte(const void *a, const void *b)
{
    return *(const uint8_t *)a - *(const uint8_t *)b;
}

void vnc_bar_contrast(const struct frame *f, const struct vnc_rect *r, struct frame *out)
{
    frame_alloc(out, (uint32_t)r->w, (uint32_t)r->h);
    uint8_t *ch = xmalloc((size_t)r->w);
    for (int y = 0; y < r->h; y++) {
        uint8_t bg[3];
        for (int c = 0; c < 3; c++) {
            for (int x = 0; x < r->w; x++)
                ch[x] = px(f, r->x + x, r->y + y)[c];
            qsort(ch, (size_t)r->w, 1, cmp_byte);
            bg[c] = ch[r->w / 2];
        }
        uint8_t *dst = out->rgba + (size_t)y * out->stride;
        for (int x = 0; x < r->w; x++, dst += 4) {
            int d = diff(px(f, r->x + x, r->y + y), bg) * 2;
            dst[0] = dst[1] = dst[2] = (uint8_t)(d > 255 ? 0 : 255 - d);
            dst[3] = 255;
        }
    }
    free(ch);
}
