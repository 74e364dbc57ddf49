#include "backend/terminal/term_scrollback.h"

#include "backend/terminal/term_text.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <string.h>

/* Memory the stored lines may hold, whatever their count allows (a million
 * lines of 1000 columns would be 16 GB): the oldest go first. */
#define MAX_BYTES (64u * 1024 * 1024)

/* A cell with combining marks stores an offset into its line's extra array
 * instead of a code point; valid code points never have this bit. */
#define EXTRA_FLAG 0x40000000u

/* 16 bytes against the screen's 28: scrollback can be long. */
struct sb_cell {
    uint32_t ch;
    uint32_t fg, bg;
    uint16_t attrs;
    uint8_t wide;
};

struct sb_line {
    int ncells, cap; /* cells used, cells allocated */
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

static int nchars(const struct vt_cell *c)
{
    int n = 0;
    while (n < VT_CELL_CHARS && c->ch[n])
        n++;
    return n;
}

/* Blank cells that paint nothing but the default background. */
static bool invisible(const struct vt_cell *c)
{
    return (c->ch[0] == 0 || (c->ch[0] == ' ' && !c->ch[1])) && c->bg == 0 &&
           c->wide == VT_NARROW &&
           !(c->attrs & (VT_REVERSE | VT_UNDERLINE | VT_DOUBLE_UNDERLINE | VT_STRIKE));
}

static size_t line_bytes(int cap, size_t nextra)
{
    return sizeof(struct sb_line) + (size_t)cap * sizeof(struct sb_cell) +
           nextra * sizeof(uint32_t);
}

/* The oldest line, taken out of the ring. */
static struct sb_line *take_oldest(struct term_scrollback *sb)
{
    struct sb_line *l = sb->lines[sb->head];
    sb->bytes -= l->bytes;
    sb->lines[sb->head] = NULL;
    sb->head = (sb->head + 1) % sb->capacity;
    sb->count--;
    return l;
}

void term_scrollback_push(struct term_scrollback *sb, const struct vt_cell *cells, int n)
{
    if (!sb->capacity)
        return;
    while (n > 0 && invisible(&cells[n - 1]))
        n--;
    size_t nextra = 0;
    for (int i = 0; i < n; i++) {
        if (cells[i].ch[1]) {
            int k = nchars(&cells[i]);
            nextra += (size_t)k + 1;
        }
    }
    /* A full ring hands its oldest line's memory to the newest: a flood of
     * lines then costs no allocation per line. */
    struct sb_line *l = sb->count == sb->capacity ? take_oldest(sb) : NULL;
    if (l && l->cap < n) {
        line_free(l);
        l = NULL;
    }
    if (!l) {
        l = xmalloc(line_bytes(n, 0));
        l->cap = n;
        l->extra = NULL;
    }
    free(l->extra);
    l->extra = nextra ? xmalloc(nextra * sizeof *l->extra) : NULL;
    l->ncells = n;
    l->bytes = line_bytes(l->cap, nextra);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        const struct vt_cell *c = &cells[i];
        struct sb_cell *d = &l->cells[i];
        if (c->ch[1]) {
            int k = nchars(c);
            d->ch = EXTRA_FLAG | (uint32_t)off;
            memcpy(l->extra + off, c->ch, (size_t)k * sizeof c->ch[0]);
            l->extra[off + (size_t)k] = 0;
            off += (size_t)k + 1;
        } else {
            d->ch = c->ch[0] > 0x10FFFF ? 0xFFFD : c->ch[0];
        }
        d->fg = c->fg;
        d->bg = c->bg;
        d->attrs = c->attrs;
        d->wide = c->wide;
    }
    sb->lines[(sb->head + sb->count) % sb->capacity] = l;
    sb->count++;
    sb->bytes += l->bytes;
    while (sb->bytes > MAX_BYTES && sb->count > 1)
        line_free(take_oldest(sb));
}

/* The characters of a stored cell, 0-terminated within VT_CELL_CHARS. */
static const uint32_t *cell_chars(const struct sb_line *l, const struct sb_cell *c, uint32_t *one)
{
    if (c->ch & EXTRA_FLAG)
        return l->extra + (c->ch & ~EXTRA_FLAG);
    one[0] = c->ch;
    one[1] = 0;
    return one;
}

bool term_scrollback_pop(struct term_scrollback *sb, int cols, struct vt_cell *cells)
{
    if (!sb->count)
        return false;
    int idx = (sb->head + sb->count - 1) % sb->capacity;
    struct sb_line *l = sb->lines[idx];
    sb->lines[idx] = NULL;
    sb->count--;
    sb->bytes -= l->bytes;
    int n = l->ncells < cols ? l->ncells : cols;
    for (int i = 0; i < n; i++) {
        const struct sb_cell *c = &l->cells[i];
        struct vt_cell *d = &cells[i];
        uint32_t one[2];
        const uint32_t *chars = cell_chars(l, c, one);
        for (int k = 0; k < VT_CELL_CHARS && chars[k]; k++)
            d->ch[k] = chars[k];
        d->fg = c->fg;
        d->bg = c->bg;
        d->attrs = c->attrs;
        d->wide = c->wide; /* halves cut by a narrower screen: the screen repairs them */
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
        if (l->cells[i].wide == VT_WIDE_RIGHT)
            continue;
        uint32_t one[2];
        const uint32_t *chars = cell_chars(l, &l->cells[i], one);
        if (chars[0] == 0)
            strbuf_putc(out, ' ');
        else
            term_text_append_chars(out, chars, VT_CELL_CHARS);
    }
    term_text_trim(out, from);
}
