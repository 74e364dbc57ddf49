#include "image/glyphs.h"

#include "core/xmalloc.h"
#include "image/font.h"
#include "image/palette.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct glyph_renderer {
    struct font_set *fonts;
    struct font_metrics m;
};

/* One cell span as it will be painted. */
struct span {
    const struct cell *cell;
    int col, cols; /* first column, 1 or 2 columns */
    uint32_t fg, bg;
    bool ink;
};

struct glyph_renderer *glyph_renderer_create(const char *family, int pixel_size, char **err)
{
    struct font_set *fs = font_set_create(family, pixel_size, err);
    if (!fs)
        return NULL;
    struct glyph_renderer *r = xmalloc(sizeof(*r));
    r->fonts = fs;
    r->m = *font_set_metrics(fs);
    return r;
}

void glyph_renderer_destroy(struct glyph_renderer *r)
{
    if (!r)
        return;
    font_set_destroy(r->fonts);
    free(r);
}

void glyph_renderer_cell_size(const struct glyph_renderer *r, int *width, int *height)
{
    *width = r->m.cell_w;
    *height = r->m.cell_h;
}

/* Walk one row's spans: a wide character and its right half are one span. */
static int next_span(const struct cell_grid *g, int row, int col, int cursor_col, struct span *s)
{
    const struct cell *c = g->cells + (long)row * g->cols + col;
    s->cell = c;
    s->col = col;
    s->cols = c->width == 2 && col + 1 < g->cols ? 2 : 1;
    bool cursor = row == g->cursor_row && col == cursor_col;
    cellgrid_cell_colors(g, c, cursor, &s->fg, &s->bg);
    s->ink = cellgrid_cell_has_ink(c);
    return col + (c->width == 2 ? 2 : 1);
}

/* Packed pixel whose bytes in memory are R, G, B, 255. */
static uint32_t pack(uint32_t rgb)
{
    uint32_t r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return r << 24 | g << 16 | b << 8 | 0xff;
#else
    return 0xffu << 24 | b << 16 | g << 8 | r;
#endif
}

/* s over d with coverage a, two channels per multiply: they sit 16 bits apart,
 * so an 8-bit value times a 9-bit coverage cannot spill into its neighbour. */
static inline uint32_t blend(uint32_t s, uint32_t d, uint32_t a)
{
    a += a >> 7; /* 0..256 */
    uint32_t na = 256 - a;
    uint32_t rb = ((s & 0x00ff00ff) * a + (d & 0x00ff00ff) * na) >> 8;
    uint32_t ga = (((s >> 8) & 0x00ff00ff) * a + ((d >> 8) & 0x00ff00ff) * na) >> 8;
    return (rb & 0x00ff00ff) | ((ga & 0x00ff00ff) << 8);
}

/* Each decoration as a row range of the cell, for both painters. */
static int decorations(const struct font_metrics *m, uint16_t attrs, int ys[3], int hs[3])
{
    int n = 0;
    if (attrs & CELL_DOUBLE_UNDERLINE) {
        int y2 = m->underline_y + 2 * m->underline_h;
        int y1 = m->underline_y;
        if (y2 + m->underline_h > m->cell_h) {
            y2 = m->cell_h - m->underline_h;
            y1 = y2 - 2 * m->underline_h;
        }
        ys[n] = y1 < 0 ? 0 : y1, hs[n++] = m->underline_h;
        ys[n] = y2, hs[n++] = m->underline_h;
    } else if (attrs & CELL_UNDERLINE) {
        ys[n] = m->underline_y, hs[n++] = m->underline_h;
    }
    if (attrs & CELL_STRIKE)
        ys[n] = m->strike_y, hs[n++] = m->strike_h;
    return n;
}

static void paint_rgba(struct glyph_renderer *r, const struct span *s, uint32_t *px,
                       uint32_t stride_px)
{
    const struct cell *c = s->cell;
    uint32_t fg = pack(s->fg);
    unsigned style = c->attrs & (CELL_BOLD | CELL_ITALIC);
    for (int i = 0; i < CELL_MAX_CHARS && c->chars[i]; i++) {
        if (i == 0 && (c->chars[0] <= ' ' || c->width == 0))
            break;
        const struct glyph *g = font_set_glyph(r->fonts, c->chars[i], style, s->cols);
        for (int y = 0; y < g->h; y++) {
            const uint8_t *a = g->alpha + y * g->w;
            uint32_t *d = px + (uint32_t)(g->y + y) * stride_px + g->x;
            for (int x = 0; x < g->w; x++) {
                if (a[x] == 255)
                    d[x] = fg;
                else if (a[x])
                    d[x] = blend(fg, d[x], a[x]);
            }
        }
    }
    int ys[3], hs[3], n = decorations(&r->m, c->attrs, ys, hs);
    int w = s->cols * r->m.cell_w;
    for (int i = 0; i < n; i++)
        for (int y = ys[i]; y < ys[i] + hs[i]; y++)
            for (int x = 0; x < w; x++)
                px[(uint32_t)y * stride_px + x] = fg;
}

static void paint_index(struct glyph_renderer *r, const struct span *s, uint8_t fg, uint8_t *px,
                        int stride)
{
    const struct cell *c = s->cell;
    unsigned style = c->attrs & (CELL_BOLD | CELL_ITALIC);
    for (int i = 0; i < CELL_MAX_CHARS && c->chars[i]; i++) {
        if (i == 0 && (c->chars[0] <= ' ' || c->width == 0))
            break;
        const struct glyph *g = font_set_glyph(r->fonts, c->chars[i], style, s->cols);
        for (int y = 0; y < g->h; y++) {
            const uint8_t *a = g->alpha + y * g->w;
            uint8_t *d = px + (g->y + y) * stride + g->x;
            for (int x = 0; x < g->w; x++)
                if (a[x] >= 128)
                    d[x] = fg;
        }
    }
    int ys[3], hs[3], n = decorations(&r->m, c->attrs, ys, hs);
    for (int i = 0; i < n; i++)
        for (int y = ys[i]; y < ys[i] + hs[i]; y++)
            memset(px + y * stride, fg, (size_t)(s->cols * r->m.cell_w));
}

/* Every glyph the grid shows, looked up once so it is in the cache: after
 * this, painting only reads the cache, and two threads may paint. */
static void warm(struct glyph_renderer *r, const struct cell_grid *grid, int rows, int cols)
{
    for (int row = 0; row < rows; row++) {
        for (int col = 0; col < cols;) {
            const struct cell *c = grid->cells + (long)row * grid->cols + col;
            int span = c->width == 2 && col + 1 < grid->cols ? 2 : 1;
            if (cellgrid_cell_has_ink(c) && c->chars[0] > ' ' && c->width != 0) {
                unsigned style = c->attrs & (CELL_BOLD | CELL_ITALIC);
                for (int i = 0; i < CELL_MAX_CHARS && c->chars[i]; i++)
                    font_set_glyph(r->fonts, c->chars[i], style, span);
            }
            col += c->width == 2 ? 2 : 1;
        }
    }
}

struct rows_job {
    struct glyph_renderer *r;
    const struct cell_grid *grid;
    struct frame *out;
    int row0, row1, cols;
};

static void *render_rows(void *arg)
{
    const struct rows_job *j = arg;
    int cw = j->r->m.cell_w, ch = j->r->m.cell_h;
    uint32_t stride_px = j->out->width;
    int cursor_col = cellgrid_cursor_col(j->grid);
    struct span s;
    for (int row = j->row0; row < j->row1; row++) {
        uint32_t *top = (uint32_t *)(void *)j->out->rgba + (size_t)row * ch * stride_px;
        /* Backgrounds: fill the cell row's first pixel row, then copy it down. */
        for (int col = 0; col < j->cols;) {
            int next = next_span(j->grid, row, col, cursor_col, &s);
            uint32_t bg = pack(s.bg);
            for (int x = col * cw; x < (col + s.cols) * cw; x++)
                top[x] = bg;
            col = next;
        }
        for (int y = 1; y < ch; y++)
            memcpy(top + (size_t)y * stride_px, top, (size_t)stride_px * 4);
        for (int col = 0; col < j->cols;) {
            int next = next_span(j->grid, row, col, cursor_col, &s);
            if (s.ink)
                paint_rgba(j->r, &s, top + col * cw, stride_px);
            col = next;
        }
    }
    return NULL;
}

/* From this many cell rows on, the lower half is painted on a thread of its
 * own (a 120×40 screen: about 0.8 ms of painting and page faults on one
 * core). */
#define PARALLEL_ROWS 16

void glyph_renderer_render(struct glyph_renderer *r, const struct cell_grid *grid,
                           struct frame *out)
{
    int cw = r->m.cell_w, ch = r->m.cell_h;
    int cols = grid->cols > 0 ? grid->cols : 0, rows = grid->rows > 0 ? grid->rows : 0;
    out->width = (uint32_t)(cols * cw);
    out->height = (uint32_t)(rows * ch);
    out->stride = out->width * 4;
    /* Every pixel is written below, so skip frame_init's black fill. */
    out->rgba = xmalloc((size_t)out->stride * out->height);
    struct rows_job top = {r, grid, out, 0, rows, cols}, bottom = top;
    pthread_t thread;
    bool split = false;
    if (rows >= PARALLEL_ROWS && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        warm(r, grid, rows, cols);
        top.row1 = bottom.row0 = rows / 2;
        split = pthread_create(&thread, NULL, render_rows, &bottom) == 0;
        if (!split)
            top.row1 = rows;
    }
    render_rows(&top);
    if (split)
        pthread_join(thread, NULL);
}

void glyph_renderer_render_indexed(struct glyph_renderer *r, const struct cell_grid *grid,
                                   uint32_t *palette, int *palette_len, uint8_t **indices,
                                   int *width, int *height)
{
    int cw = r->m.cell_w, ch = r->m.cell_h;
    int cols = grid->cols > 0 ? grid->cols : 0, rows = grid->rows > 0 ? grid->rows : 0;
    int w = cols * cw;
    *width = w;
    *height = rows * ch;
    uint8_t *px = xmalloc((size_t)w * (size_t)*height);
    *indices = px;
    struct palette_map *map = xmalloc(sizeof(*map));
    palette_map_init(map, palette, palette_len);
    int cursor_col = cellgrid_cursor_col(grid);
    struct span s;
    for (int row = 0; row < rows; row++) {
        uint8_t *top = px + (size_t)row * ch * w;
        for (int col = 0; col < cols;) {
            int next = next_span(grid, row, col, cursor_col, &s);
            memset(top + col * cw, palette_map_index(map, s.bg), (size_t)(s.cols * cw));
            col = next;
        }
        for (int y = 1; y < ch; y++)
            memcpy(top + (size_t)y * w, top, (size_t)w);
        for (int col = 0; col < cols;) {
            int next = next_span(grid, row, col, cursor_col, &s);
            if (s.ink)
                paint_index(r, &s, palette_map_index(map, s.fg), top + col * cw, w);
            col = next;
        }
    }
    free(map);
}
