/* The grid: rows of cells, printing, scrolling, erasing, resizing. The
 * sequences that drive it are in vt_control.c. */
#include "backend/terminal/vt_screen.h"

#include "backend/terminal/vt_internal.h"
#include "backend/terminal/vt_width.h"
#include "core/xmalloc.h"

#include <string.h>

/* DEC special graphics (line drawing) for 0x5F-0x7E. */
static const uint16_t dec_graphics[32] = {
    0x0020, 0x25C6, 0x2592, 0x2409, 0x240C, 0x240D, 0x240A, 0x00B0, 0x00B1, 0x2424, 0x240B,
    0x2518, 0x2510, 0x250C, 0x2514, 0x253C, 0x23BA, 0x23BB, 0x2500, 0x23BC, 0x23BD, 0x251C,
    0x2524, 0x2534, 0x252C, 0x2502, 0x2264, 0x2265, 0x03C0, 0x2260, 0x00A3, 0x00B7,
};

static struct vt_row *row_new(const struct vt_screen *s, int cols)
{
    struct vt_row *r = xcalloc(1, sizeof *r);
    r->cells = xcalloc((size_t)cols, sizeof *r->cells);
    r->used = s->lazy ? 0 : cols;
    return r;
}

static void row_free(struct vt_row *r)
{
    if (r) {
        free(r->cells);
        free(r->text);
        free(r);
    }
}

static bool cell_is_zero(const struct vt_cell *c)
{
    static const struct vt_cell zero;
    return !memcmp(c, &zero, sizeof zero);
}

static bool row_blank(const struct vt_row *r)
{
    for (int i = 0; i < r->used; i++)
        if (!cell_is_zero(&r->cells[i]))
            return false;
    return true;
}

/* The half of a wide character left behind when its other half is
 * overwritten becomes a blank in the same colours. */
static void clear_half(struct vt_cell *c)
{
    memset(c->ch, 0, sizeof c->ch);
    c->wide = VT_NARROW;
}

/* Before cells [from, to) of r are overwritten: wide characters cut by
 * either edge lose their other half. */
static void cut_edges(struct vt_screen *s, struct vt_row *r, int from, int to)
{
    if (from > 0 && from < s->cols && r->cells[from].wide == VT_WIDE_RIGHT)
        clear_half(&r->cells[from - 1]);
    if (to > 0 && to < s->cols && r->cells[to].wide == VT_WIDE_RIGHT)
        clear_half(&r->cells[to]);
}

/* Every wide character whole, after cells moved. */
static void repair_row(struct vt_screen *s, struct vt_row *r)
{
    int n = r->used < s->cols ? r->used + 1 : s->cols;
    for (int i = 0; i < n; i++) {
        struct vt_cell *c = &r->cells[i];
        if (c->wide == VT_WIDE_LEFT && (i + 1 >= s->cols || r->cells[i + 1].wide != VT_WIDE_RIGHT))
            clear_half(c);
        else if (c->wide == VT_WIDE_RIGHT && (i == 0 || r->cells[i - 1].wide != VT_WIDE_LEFT))
            clear_half(c);
    }
}

void vt_update_blank(struct vt_screen *s)
{
    memset(&s->blank, 0, sizeof s->blank);
    s->blank.bg = s->pen.bg;
}

static void fill(struct vt_screen *s, struct vt_row *r, int from, int to)
{
    if (from < 0)
        from = 0;
    if (to > s->cols)
        to = s->cols;
    if (from >= to)
        return;
    cut_edges(s, r, from, to);
    r->text_ok = false;
    if (s->blank.bg == 0) {
        int end = to < r->used ? to : r->used;
        if (from < end)
            memset(&r->cells[from], 0, (size_t)(end - from) * sizeof r->cells[0]);
        if (s->lazy && to >= r->used && from < r->used)
            r->used = from;
        return;
    }
    for (int i = from; i < to; i++)
        r->cells[i] = s->blank;
    if (to > r->used)
        r->used = to;
}

void vt_erase(struct vt_screen *s, int r, int from, int to)
{
    if (r < 0 || r >= s->rows)
        return;
    fill(s, s->row[r], from, to);
    s->changes++;
}

void vt_clear_all(struct vt_screen *s)
{
    for (int r = 0; r < s->rows; r++)
        fill(s, s->row[r], 0, s->cols);
    s->changes++;
}

void vt_fill_e(struct vt_screen *s)
{
    for (int r = 0; r < s->rows; r++) {
        struct vt_row *row = s->row[r];
        memset(row->cells, 0, (size_t)s->cols * sizeof row->cells[0]);
        for (int c = 0; c < s->cols; c++)
            row->cells[c].ch[0] = 'E';
        row->used = s->cols;
        row->text_ok = false;
    }
    s->changes++;
}

void vt_scroll_up(struct vt_screen *s, int top, int bottom, int n, bool save)
{
    if (top < 0 || bottom >= s->rows || top > bottom)
        return;
    int height = bottom - top + 1;
    if (n > height)
        n = height;
    if (n <= 0)
        return;
    if (save && top == 0 && !s->alt && s->cbs.push_line)
        for (int i = 0; i < n; i++)
            s->cbs.push_line(s->ud, s->row[i]->cells, s->row[i]->used);
    struct vt_row **rows = s->row;
    memcpy(s->scratch, rows + top, (size_t)n * sizeof *rows);
    memmove(rows + top, rows + top + n, (size_t)(height - n) * sizeof *rows);
    memcpy(rows + bottom - n + 1, s->scratch, (size_t)n * sizeof *rows);
    for (int i = bottom - n + 1; i <= bottom; i++)
        fill(s, rows[i], 0, s->cols);
    s->changes++;
}

void vt_scroll_down(struct vt_screen *s, int top, int bottom, int n)
{
    if (top < 0 || bottom >= s->rows || top > bottom)
        return;
    int height = bottom - top + 1;
    if (n > height)
        n = height;
    if (n <= 0)
        return;
    struct vt_row **rows = s->row;
    memcpy(s->scratch, rows + bottom - n + 1, (size_t)n * sizeof *rows);
    memmove(rows + top + n, rows + top, (size_t)(height - n) * sizeof *rows);
    memcpy(rows + top, s->scratch, (size_t)n * sizeof *rows);
    for (int i = top; i < top + n; i++)
        fill(s, rows[i], 0, s->cols);
    s->changes++;
}

void vt_index(struct vt_screen *s)
{
    if (s->cur_row == s->bottom)
        vt_scroll_up(s, s->top, s->bottom, 1, true);
    else if (s->cur_row < s->rows - 1)
        s->cur_row++;
    s->changes++;
}

void vt_reverse_index(struct vt_screen *s)
{
    if (s->cur_row == s->top)
        vt_scroll_down(s, s->top, s->bottom, 1);
    else if (s->cur_row > 0)
        s->cur_row--;
    s->changes++;
}

void vt_insert_cells(struct vt_screen *s, int n)
{
    struct vt_row *r = s->row[s->cur_row];
    int col = s->cur_col;
    if (n > s->cols - col)
        n = s->cols - col;
    if (n <= 0)
        return;
    cut_edges(s, r, col, col);
    memmove(&r->cells[col + n], &r->cells[col], (size_t)(s->cols - col - n) * sizeof r->cells[0]);
    r->used = r->used + n > s->cols ? s->cols : r->used + n;
    memset(&r->cells[col], 0, (size_t)n * sizeof r->cells[0]);
    fill(s, r, col, col + n);
    repair_row(s, r);
    r->text_ok = false;
    s->changes++;
}

void vt_delete_cells(struct vt_screen *s, int n)
{
    struct vt_row *r = s->row[s->cur_row];
    int col = s->cur_col;
    if (n > s->cols - col)
        n = s->cols - col;
    if (n <= 0)
        return;
    memmove(&r->cells[col], &r->cells[col + n], (size_t)(s->cols - col - n) * sizeof r->cells[0]);
    /* The cells moved in at the end are copies: blank them for real. */
    memset(&r->cells[s->cols - n], 0, (size_t)n * sizeof r->cells[0]);
    if (s->blank.bg)
        fill(s, r, s->cols - n, s->cols);
    repair_row(s, r);
    r->text_ok = false;
    s->changes++;
}

/* Wrap to the start of the next line (autowrap). */
static void wrap(struct vt_screen *s)
{
    s->wrap_pending = false;
    s->cur_col = 0;
    vt_index(s);
}

static uint32_t map_charset(const struct vt_screen *s, uint32_t cp)
{
    char set = s->g[s->gl];
    if (set == '0' && cp >= 0x5F && cp <= 0x7E)
        return dec_graphics[cp - 0x5F];
    if (set == 'A' && cp == '#')
        return 0xA3;
    return cp;
}

/* A combining mark joins the character before the cursor. */
static void combine(struct vt_screen *s, uint32_t cp)
{
    int col = s->wrap_pending ? s->cur_col : s->cur_col - 1;
    struct vt_row *r = s->row[s->cur_row];
    if (col >= 0 && r->cells[col].wide == VT_WIDE_RIGHT)
        col--;
    if (col < 0 || !r->cells[col].ch[0])
        return;
    uint32_t *ch = r->cells[col].ch;
    for (int i = 1; i < VT_CELL_CHARS; i++) {
        if (!ch[i]) {
            ch[i] = cp;
            if (s->last_char) {
                s->last_marks[i - 1] = cp;
                if (i < VT_CELL_CHARS - 1)
                    s->last_marks[i] = 0;
            }
            r->text_ok = false;
            s->changes++;
            return;
        }
    }
}

void vt_print(struct vt_screen *s, uint32_t cp)
{
    if (cp < 0x80)
        cp = map_charset(s, cp);
    int w = cp < 0x80 ? 1 : vt_width(cp);
    if (w == 0) {
        combine(s, cp);
        return;
    }
    if (s->wrap_pending && s->autowrap)
        wrap(s);
    s->wrap_pending = false;
    if (w == 2 && s->cur_col >= s->cols - 1) {
        if (!s->autowrap)
            return; /* it fits nowhere: not shown, as xterm.js */
        fill(s, s->row[s->cur_row], s->cur_col, s->cols);
        wrap(s);
    }
    if (s->insert)
        vt_insert_cells(s, w);
    struct vt_row *r = s->row[s->cur_row];
    int col = s->cur_col;
    cut_edges(s, r, col, col + w);
    struct vt_cell *c = &r->cells[col];
    memset(c, 0, sizeof *c);
    c->ch[0] = cp;
    c->fg = s->pen.fg;
    c->bg = s->pen.bg;
    c->attrs = s->pen.attrs;
    if (w == 2) {
        c->wide = VT_WIDE_LEFT;
        c[1] = *c;
        c[1].ch[0] = 0;
        c[1].wide = VT_WIDE_RIGHT;
    }
    if (col + w > r->used)
        r->used = col + w;
    r->text_ok = false;
    s->last_char = cp;
    s->last_marks[0] = 0;
    if (col + w >= s->cols) {
        /* Pending even without autowrap: the next character then overwrites
         * the last column, and a combining mark joins the one there. */
        s->cur_col = s->cols - 1;
        s->wrap_pending = true;
    } else {
        s->cur_col = col + w;
    }
    s->changes++;
}

void vt_print_ascii(struct vt_screen *s, const char *text, size_t len)
{
    if (!s->plain_charset || s->insert) {
        for (size_t i = 0; i < len; i++)
            vt_print(s, (unsigned char)text[i]);
        return;
    }
    const struct vt_cell pen = {.fg = s->pen.fg, .bg = s->pen.bg, .attrs = s->pen.attrs};
    while (len) {
        if (s->wrap_pending) {
            if (s->autowrap) {
                wrap(s);
            } else {
                /* Without autowrap the rest overwrite the last column. */
                text += len - 1;
                len = 1;
            }
            s->wrap_pending = false;
        }
        struct vt_row *r = s->row[s->cur_row];
        int col = s->cur_col;
        size_t room = (size_t)(s->cols - col);
        int k = (int)(len < room ? len : room);
        cut_edges(s, r, col, col + k);
        struct vt_cell *c = &r->cells[col];
        for (int i = 0; i < k; i++) {
            c[i] = pen;
            c[i].ch[0] = (unsigned char)text[i];
        }
        if (col + k > r->used)
            r->used = col + k;
        r->text_ok = false;
        s->last_char = (unsigned char)text[k - 1];
        s->last_marks[0] = 0;
        text += k;
        len -= (size_t)k;
        if (col + k >= s->cols) {
            s->cur_col = s->cols - 1;
            s->wrap_pending = true; /* see vt_print */
        } else {
            s->cur_col = col + k;
        }
    }
    s->changes++;
}

void vt_set_alt(struct vt_screen *s, bool on)
{
    if (s->alt == on)
        return;
    s->alt = on;
    s->row = on ? s->altb : s->main;
    for (int r = 0; r < s->rows; r++)
        s->row[r]->text_ok = false;
    s->changes++;
}

static struct vt_row **rows_new(struct vt_screen *s, int n, int cols)
{
    struct vt_row **rows = xcalloc((size_t)n, sizeof *rows);
    for (int i = 0; i < n; i++)
        rows[i] = row_new(s, cols);
    return rows;
}

static void set_tabs(struct vt_screen *s, int from)
{
    for (int c = from; c < s->cols; c++)
        s->tabs[c] = c % 8 == 0 && c > 0;
}

void vt_screen_init(struct vt_screen *s, int cols, int rows, const struct vt_screen_cbs *cbs,
                    void *ud)
{
    memset(s, 0, sizeof *s);
    s->cbs = *cbs;
    s->ud = ud;
    s->lazy = true;
    s->cols = cols;
    s->rows = rows;
    s->main = rows_new(s, rows, cols);
    s->altb = rows_new(s, rows, cols);
    s->scratch = xcalloc((size_t)rows, sizeof *s->scratch);
    s->row = s->main;
    s->tabs = xcalloc((size_t)cols, 1);
    set_tabs(s, 0);
    s->bottom = rows - 1;
    s->autowrap = true;
    s->cursor_visible = true;
    s->plain_charset = true;
    memset(s->g, 'B', sizeof s->g);
}

void vt_screen_finish(struct vt_screen *s)
{
    for (int i = 0; i < s->rows; i++) {
        row_free(s->main[i]);
        row_free(s->altb[i]);
    }
    free(s->main);
    free(s->altb);
    free(s->scratch);
    free(s->tabs);
}

static void row_set_cols(struct vt_screen *s, struct vt_row *r, int cols)
{
    struct vt_cell *cells = xcalloc((size_t)cols, sizeof *cells);
    int keep = cols < s->cols ? cols : s->cols;
    memcpy(cells, r->cells, (size_t)keep * sizeof *cells);
    if (cells[cols - 1].wide == VT_WIDE_LEFT)
        memset(&cells[cols - 1], 0, sizeof *cells);
    free(r->cells);
    r->cells = cells;
    if (!s->lazy || r->used > cols)
        r->used = cols;
    r->text_ok = false;
}

/* Fewer rows for one buffer: blank rows at the bottom go first, then lines
 * off the top (into scrollback when save), so the cursor's row stays. */
static int shrink(struct vt_screen *s, struct vt_row **rows, int new_rows, int cursor, bool save)
{
    int r = s->rows - 1;
    for (; r >= new_rows; r--)
        if (!row_blank(rows[r]) || r == cursor)
            break;
    int off = r + 1 - new_rows; /* lines leaving the top */
    if (off < 0)
        off = 0;
    for (int i = 0; i < off; i++) {
        if (save && s->cbs.push_line)
            s->cbs.push_line(s->ud, rows[i]->cells, rows[i]->used);
        row_free(rows[i]);
    }
    memmove(rows, rows + off, (size_t)(s->rows - off) * sizeof *rows);
    for (int i = new_rows; i < s->rows - off; i++)
        row_free(rows[i]);
    return off;
}

/* More rows for one buffer: lines come back from scrollback at the top when
 * pop, blank rows at the bottom otherwise. Returns the lines popped. */
static int grow(struct vt_screen *s, struct vt_row ***rowsp, int new_rows, bool pop)
{
    struct vt_row **rows = xrealloc(*rowsp, (size_t)new_rows * sizeof *rows);
    int have = s->rows, popped = 0;
    while (have < new_rows && pop && s->cbs.pop_line) {
        struct vt_row *r = row_new(s, s->cols);
        if (!s->cbs.pop_line(s->ud, r->cells, s->cols)) {
            row_free(r);
            break;
        }
        r->used = s->cols;
        repair_row(s, r);
        memmove(rows + 1, rows, (size_t)have * sizeof *rows);
        rows[0] = r;
        have++;
        popped++;
    }
    for (; have < new_rows; have++)
        rows[have] = row_new(s, s->cols);
    *rowsp = rows;
    return popped;
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void vt_screen_resize(struct vt_screen *s, int cols, int rows)
{
    if (cols == s->cols && rows == s->rows)
        return;
    if (cols != s->cols) {
        for (int i = 0; i < s->rows; i++) {
            row_set_cols(s, s->main[i], cols);
            row_set_cols(s, s->altb[i], cols);
        }
        s->tabs = xrealloc(s->tabs, (size_t)cols);
        int old = s->cols;
        s->cols = cols;
        if (cols > old)
            set_tabs(s, old);
    }
    if (rows < s->rows) {
        int main_cursor = s->alt ? s->saved[0].row : s->cur_row;
        int off = shrink(s, s->main, rows, main_cursor, true);
        int alt_off = shrink(s, s->altb, rows, s->alt ? s->cur_row : -1, false);
        if (s->alt) {
            s->cur_row -= alt_off;
            s->saved[0].row -= off;
        } else {
            s->cur_row -= off;
        }
    } else if (rows > s->rows) {
        int popped = grow(s, &s->main, rows, !s->alt);
        grow(s, &s->altb, rows, false);
        if (!s->alt)
            s->cur_row += popped;
    }
    s->scratch = xrealloc(s->scratch, (size_t)rows * sizeof *s->scratch);
    s->rows = rows;
    s->row = s->alt ? s->altb : s->main;
    s->top = 0;
    s->bottom = rows - 1;
    s->wrap_pending = false;
    s->cur_row = clamp(s->cur_row, 0, rows - 1);
    s->cur_col = clamp(s->cur_col, 0, cols - 1);
    for (int i = 0; i < 2; i++) {
        s->saved[i].row = clamp(s->saved[i].row, 0, rows - 1);
        s->saved[i].col = clamp(s->saved[i].col, 0, cols - 1);
        s->saved[i].wrap_pending = false;
    }
    for (int i = 0; i < rows; i++) {
        s->main[i]->text_ok = false;
        s->altb[i]->text_ok = false;
    }
    s->changes++;
}

uint64_t vt_screen_dropped(const struct vt_screen *s)
{
    return s->dropped + vt_parse_dropped(&s->parser);
}
