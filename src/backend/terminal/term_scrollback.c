#include "backend/terminal/term_scrollback.h"

#include "backend/terminal/term_text.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <string.h>

/* Memory the stored lines may hold, whatever their count allows (a million
 * lines of 1000 columns would be 16 GB): the oldest go first. */
#define MAX_BYTES (64u * 1024 * 1024)

/* libvterm marks the right half of a wide character with this. */
#define RIGHT_HALF ((uint32_t)-1)
/* A cell with combining marks stores an offset into its line's extra array
 * instead of a code point; valid code points never have this bit. */
#define EXTRA_FLAG 0x40000000u

enum {
    A_BOLD = 1 << 0,
    A_ITALIC = 1 << 1,
    A_BLINK = 1 << 2,
    A_REVERSE = 1 << 3,
    A_STRIKE = 1 << 4,
    A_UNDERLINE_SHIFT = 5, /* 2 bits */
    A_FONT_SHIFT = 7,      /* 4 bits */
};

/* 16 bytes against libvterm's 40: scrollback can be long. */
struct sb_cell {
    uint32_t ch;
    VTermColor fg, bg;
    uint16_t attrs;
    uint8_t width;
};

struct sb_line {
    int ncells;
    size_t bytes;    /* what this line holds, for MAX_BYTES */
    uint32_t *extra; /* combining sequences, each 0-terminated; usually NULL */
    struct sb_cell cells[];
};

struct term_scrollback {
    struct sb_line **lines; /* ring of capacity */
    int capacity, head, count;
    size_t bytes; /* held by the lines */
};

struct term_scrollback *term_scrollback_create(int capacity)
{
    struct term_scrollback *sb = xcalloc(1, sizeof *sb);
    sb->capacity = capacity > 0 ? capacity : 0;
    if (sb->capacity)
        sb->lines = xcalloc((size_t)sb->capacity, sizeof *sb->lines);
    return sb;
}

static void line_free(struct sb_line *l)
{
    if (l) {
        free(l->extra);
        free(l);
    }
}

void term_scrollback_destroy(struct term_scrollback *sb)
{
    if (!sb)
        return;
    for (int i = 0; i < sb->count; i++)
        line_free(sb->lines[(sb->head + i) % sb->capacity]);
    free(sb->lines);
    free(sb);
}

static int nchars(const VTermScreenCell *c)
{
    int n = 0;
    while (n < VTERM_MAX_CHARS_PER_CELL && c->chars[n])
        n++;
    return n;
}

/* Blank cells that paint nothing but the default background. */
static bool invisible(const VTermScreenCell *c)
{
    return c->chars[0] == 0 && VTERM_COLOR_IS_DEFAULT_BG(&c->bg) && !c->attrs.reverse &&
           !c->attrs.underline && !c->attrs.strike;
}

static struct sb_line *line_from_cells(int cols, const VTermScreenCell *cells)
{
    int n = cols;
    while (n > 0 && invisible(&cells[n - 1]))
        n--;
    size_t nextra = 0;
    for (int i = 0; i < n; i++) {
        int k = nchars(&cells[i]);
        if (k > 1 && cells[i].chars[0] != RIGHT_HALF)
            nextra += (size_t)k + 1;
    }
    struct sb_line *l = xmalloc(sizeof *l + (size_t)n * sizeof l->cells[0]);
    l->ncells = n;
    l->bytes = sizeof *l + (size_t)n * sizeof l->cells[0] + nextra * sizeof *l->extra;
    l->extra = nextra ? xmalloc(nextra * sizeof *l->extra) : NULL;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        const VTermScreenCell *c = &cells[i];
        struct sb_cell *d = &l->cells[i];
        int k = nchars(c);
        if (k > 1 && c->chars[0] != RIGHT_HALF) {
            d->ch = EXTRA_FLAG | (uint32_t)off;
            memcpy(l->extra + off, c->chars, (size_t)k * sizeof c->chars[0]);
            l->extra[off + (size_t)k] = 0;
            off += (size_t)k + 1;
        } else {
            d->ch = k ? c->chars[0] : 0;
            /* Keep EXTRA_FLAG meaningful whatever the decoder let through. */
            if (d->ch != RIGHT_HALF && d->ch > 0x10FFFF)
                d->ch = 0xFFFD;
        }
        d->fg = c->fg;
        d->bg = c->bg;
        d->width = c->width == 2 ? 2 : 1;
        d->attrs =
            (uint16_t)((c->attrs.bold ? A_BOLD : 0) | (c->attrs.italic ? A_ITALIC : 0) |
                       (c->attrs.blink ? A_BLINK : 0) | (c->attrs.reverse ? A_REVERSE : 0) |
                       (c->attrs.strike ? A_STRIKE : 0) | c->attrs.underline << A_UNDERLINE_SHIFT |
                       c->attrs.font << A_FONT_SHIFT);
    }
    return l;
}

static void drop_oldest(struct term_scrollback *sb)
{
    struct sb_line *l = sb->lines[sb->head];
    sb->bytes -= l->bytes;
    line_free(l);
    sb->lines[sb->head] = NULL;
    sb->head = (sb->head + 1) % sb->capacity;
    sb->count--;
}

void term_scrollback_push(struct term_scrollback *sb, int cols, const VTermScreenCell *cells)
{
    if (!sb->capacity)
        return;
    struct sb_line *l = line_from_cells(cols, cells);
    if (sb->count == sb->capacity)
        drop_oldest(sb);
    sb->lines[(sb->head + sb->count) % sb->capacity] = l;
    sb->count++;
    sb->bytes += l->bytes;
    while (sb->bytes > MAX_BYTES && sb->count > 1)
        drop_oldest(sb);
}

/* The characters of a stored cell, 0-terminated within max. */
static const uint32_t *cell_chars(const struct sb_line *l, const struct sb_cell *c, uint32_t *one)
{
    if (c->ch != RIGHT_HALF && (c->ch & EXTRA_FLAG))
        return l->extra + (c->ch & ~EXTRA_FLAG);
    one[0] = c->ch;
    one[1] = 0;
    return one;
}

static void blank(VTermScreenCell *c, VTermColor fg, VTermColor bg)
{
    memset(c, 0, sizeof *c);
    c->width = 1;
    c->fg = fg;
    c->bg = bg;
}

bool term_scrollback_pop(struct term_scrollback *sb, int cols, VTermScreenCell *cells,
                         VTermColor default_fg, VTermColor default_bg)
{
    if (!sb->count)
        return false;
    int idx = (sb->head + sb->count - 1) % sb->capacity;
    struct sb_line *l = sb->lines[idx];
    sb->lines[idx] = NULL;
    sb->count--;
    sb->bytes -= l->bytes;

    for (int i = 0; i < cols; i++) {
        VTermScreenCell *d = &cells[i];
        blank(d, default_fg, default_bg);
        if (i >= l->ncells)
            continue;
        const struct sb_cell *c = &l->cells[i];
        uint32_t one[2];
        const uint32_t *chars = cell_chars(l, c, one);
        /* A right half without its left (the line was cut) stays blank:
         * libvterm steps over cells by width and must never see a stray. */
        bool orphan = chars[0] == RIGHT_HALF && (i == 0 || cells[i - 1].width != 2);
        for (int k = 0; !orphan && k < VTERM_MAX_CHARS_PER_CELL && chars[k]; k++)
            d->chars[k] = chars[k];
        d->fg = c->fg;
        d->bg = c->bg;
        /* libvterm writes the right half of a wide cell unchecked, so a wide
         * character may not start in the last column. */
        d->width = c->width == 2 && i + 1 < cols ? 2 : 1;
        d->attrs.bold = !!(c->attrs & A_BOLD);
        d->attrs.italic = !!(c->attrs & A_ITALIC);
        d->attrs.blink = !!(c->attrs & A_BLINK);
        d->attrs.reverse = !!(c->attrs & A_REVERSE);
        d->attrs.strike = !!(c->attrs & A_STRIKE);
        d->attrs.underline = c->attrs >> A_UNDERLINE_SHIFT & 3;
        d->attrs.font = c->attrs >> A_FONT_SHIFT & 15;
    }
    line_free(l);
    return true;
}

int term_scrollback_count(const struct term_scrollback *sb)
{
    return sb->count;
}

void term_scrollback_append_text(const struct term_scrollback *sb, int index, struct strbuf *out)
{
    if (index < 0 || index >= sb->count)
        return;
    const struct sb_line *l = sb->lines[(sb->head + index) % sb->capacity];
    size_t from = out->len;
    for (int i = 0; i < l->ncells; i++) {
        uint32_t one[2];
        const uint32_t *chars = cell_chars(l, &l->cells[i], one);
        if (chars[0] == RIGHT_HALF)
            continue;
        if (chars[0] == 0)
            strbuf_putc(out, ' ');
        else
            term_text_append_chars(out, chars, VTERM_MAX_CHARS_PER_CELL);
    }
    term_text_trim(out, from);
}
