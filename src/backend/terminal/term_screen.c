#define LOG_MODULE "terminal"
#include "backend/terminal/term_screen.h"

#include "backend/terminal/term_scrollback.h"
#include "backend/terminal/term_text.h"
#include "backend/terminal/vt_screen.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/cellgrid.h"

#include <string.h>

struct term_screen {
    struct vt_screen vt;
    struct term_scrollback *sb;

    term_screen_output_fn *out_cb;
    void *out_ud;
    void (*damage_cb)(void *ud);
    void *damage_ud;

    char *title; /* never NULL */
};

/* A dark theme (VS Code's terminal colours) for the 16 ANSI colours. */
static const uint32_t ansi[16] = {
    0x000000, 0xCD3131, 0x0DBC79, 0xE5E510, 0x2472C8, 0xBC3FBC, 0x11A8CD, 0xE5E5E5,
    0x666666, 0xF14C4C, 0x23D18B, 0xF5F543, 0x3B8EEA, 0xD670D6, 0x29B8DB, 0xFFFFFF,
};

static void on_output(void *ud, const char *buf, size_t len)
{
    struct term_screen *s = ud;
    if (s->out_cb)
        s->out_cb(buf, len, s->out_ud);
}

static void on_push_line(void *ud, const struct vt_cell *cells, int n)
{
    struct term_screen *s = ud;
    term_scrollback_push(s->sb, cells, n);
}

static bool on_pop_line(void *ud, struct vt_cell *cells, int cols)
{
    struct term_screen *s = ud;
    return term_scrollback_pop(s->sb, cols, cells);
}

static void on_title(void *ud, const char *text, size_t len)
{
    struct term_screen *s = ud;
    struct strbuf t;
    strbuf_init(&t);
    term_text_append_clean(&t, text, len);
    strbuf_append(&t, "", 0);
    free(s->title);
    s->title = strbuf_steal(&t);
}

static const struct vt_screen_cbs callbacks = {
    .output = on_output,
    .push_line = on_push_line,
    .pop_line = on_pop_line,
    .title = on_title,
};

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

struct term_screen *term_screen_create(int cols, int rows, int scrollback_lines)
{
    struct term_screen *s = xcalloc(1, sizeof *s);
    cols = clamp(cols, TERM_SCREEN_MIN_COLS, TERM_SCREEN_MAX_DIM);
    rows = clamp(rows, 1, TERM_SCREEN_MAX_DIM);
    s->sb = term_scrollback_create(clamp(scrollback_lines, 0, TERM_SCREEN_MAX_SCROLLBACK));
    s->title = xstrdup("");
    vt_screen_init(&s->vt, cols, rows, &callbacks, s);
    return s;
}

void term_screen_destroy(struct term_screen *s)
{
    if (!s)
        return;
    vt_screen_finish(&s->vt);
    term_scrollback_destroy(s->sb);
    free(s->title);
    free(s);
}

void term_screen_set_output(struct term_screen *s, term_screen_output_fn *cb, void *ud)
{
    s->out_cb = cb;
    s->out_ud = ud;
}

void term_screen_set_damage_cb(struct term_screen *s, void (*cb)(void *ud), void *ud)
{
    s->damage_cb = cb;
    s->damage_ud = ud;
}

void term_screen_feed(struct term_screen *s, const char *bytes, size_t len)
{
    uint64_t before = s->vt.changes, dropped = vt_screen_dropped(&s->vt);
    vt_screen_feed(&s->vt, bytes, len);
    if (s->vt.changes != before && s->damage_cb)
        s->damage_cb(s->damage_ud);
    /* Say so at the first drop and at each power of two after it: enough to
     * explain a program that looks wrong, never a flood. */
    uint64_t now = vt_screen_dropped(&s->vt);
    if (now != dropped && (1ULL << (63 - __builtin_clzll(now))) > dropped)
        log_info("dropped %llu escape sequences or controls so far that the terminal does "
                 "not implement",
                 (unsigned long long)now);
}

uint64_t term_screen_dropped(const struct term_screen *s)
{
    return vt_screen_dropped(&s->vt);
}

void term_screen_set_fast_scroll(struct term_screen *s, bool on)
{
    s->vt.lazy = on;
    if (!on) {
        /* Every row then counts as written to its end. */
        for (int r = 0; r < s->vt.rows; r++) {
            s->vt.main[r]->used = s->vt.cols;
            s->vt.altb[r]->used = s->vt.cols;
        }
    }
}

void term_screen_resize(struct term_screen *s, int cols, int rows)
{
    cols = clamp(cols, TERM_SCREEN_MIN_COLS, TERM_SCREEN_MAX_DIM);
    rows = clamp(rows, 1, TERM_SCREEN_MAX_DIM);
    if (cols == s->vt.cols && rows == s->vt.rows)
        return;
    vt_screen_resize(&s->vt, cols, rows);
    if (s->damage_cb)
        s->damage_cb(s->damage_ud);
}

void term_screen_send(struct term_screen *s, const char *bytes, size_t len)
{
    if (len && s->out_cb)
        s->out_cb(bytes, len, s->out_ud);
}

void term_screen_size(const struct term_screen *s, int *cols, int *rows)
{
    *cols = s->vt.cols;
    *rows = s->vt.rows;
}

uint64_t term_screen_changes(const struct term_screen *s)
{
    return s->vt.changes;
}

static void append_cells(const struct vt_row *r, struct strbuf *out)
{
    size_t from = out->len;
    /* Room for a row of one-byte cells: those (nearly all of them) are
     * stored directly, not appended a byte at a time. */
    strbuf_reserve(out, (size_t)r->used + 1);
    for (int i = 0; i < r->used; i++) {
        const struct vt_cell *c = &r->cells[i];
        if (c->wide == VT_WIDE_RIGHT)
            continue;
        uint32_t ch = c->ch[0];
        if (ch < 0x80 && (ch == 0 || c->ch[1] == 0)) {
            if (out->len + 2 > out->cap) /* wide characters took the room */
                strbuf_reserve(out, 1);
            out->data[out->len++] = ch ? (char)ch : ' ';
        } else {
            term_text_append_chars(out, c->ch, VT_CELL_CHARS);
        }
    }
    if (out->data)
        out->data[out->len] = '\0';
    term_text_trim(out, from);
}

/* read_text, wait_for and find read the whole screen on every call: each
 * row keeps its text until it changes, and carries it when lines scroll. */
void term_screen_append_line(const struct term_screen *cs, int row, struct strbuf *out)
{
    if (row < 0 || row >= cs->vt.rows)
        return;
    struct vt_row *r = cs->vt.row[row]; /* only the cache changes */
    if (!r->text_ok) {
        struct strbuf line = {.data = r->text, .len = 0, .cap = r->text_cap};
        append_cells(r, &line);
        strbuf_reserve(&line, 1); /* allocate when empty */
        line.data[line.len] = '\0';
        r->text = line.data;
        r->text_len = (uint32_t)line.len;
        r->text_cap = (uint32_t)line.cap;
        r->text_ok = true;
    }
    strbuf_append(out, r->text, r->text_len);
}

char *term_screen_text(const struct term_screen *s)
{
    struct strbuf out;
    strbuf_init(&out);
    size_t keep = 0; /* length up to the last non-empty row */
    for (int r = 0; r < s->vt.rows; r++) {
        if (r)
            strbuf_putc(&out, '\n');
        size_t start = out.len;
        term_screen_append_line(s, r, &out);
        if (out.len > start)
            keep = out.len;
    }
    out.len = keep;
    strbuf_append(&out, "", 0); /* terminate; allocate when empty */
    return strbuf_steal(&out);
}

int term_screen_scrollback_count(const struct term_screen *s)
{
    return term_scrollback_count(s->sb);
}

void term_screen_append_scrollback_line(const struct term_screen *s, int index, struct strbuf *out)
{
    term_scrollback_append_text(s->sb, index, out);
}

char *term_screen_scrollback_text(const struct term_screen *s, int n)
{
    int count = term_scrollback_count(s->sb);
    if (n > count)
        n = count;
    struct strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "", 0);
    for (int i = count - (n > 0 ? n : 0); i < count; i++) {
        if (i > count - n)
            strbuf_putc(&out, '\n');
        term_scrollback_append_text(s->sb, i, &out);
    }
    return strbuf_steal(&out);
}

void term_screen_cursor(const struct term_screen *s, int *row, int *col, bool *visible)
{
    *row = s->vt.cur_row;
    *col = s->vt.cur_col;
    *visible = s->vt.cursor_visible;
}

const char *term_screen_title(const struct term_screen *s)
{
    return s->title;
}

bool term_screen_altscreen(const struct term_screen *s)
{
    return s->vt.alt;
}

bool term_screen_bracketed_paste(const struct term_screen *s)
{
    return s->vt.bracketed_paste;
}

static uint32_t to_rgb(uint32_t c, uint32_t def)
{
    switch (VT_COLOR_KIND(c)) {
    case 1: {
        unsigned i = c & 0xFF;
        if (i < 16)
            return ansi[i];
        if (i < 232) {
            static const uint8_t level[6] = {0x00, 0x5F, 0x87, 0xAF, 0xD7, 0xFF};
            i -= 16;
            return (uint32_t)level[i / 36] << 16 | (uint32_t)level[i / 6 % 6] << 8 | level[i % 6];
        }
        uint32_t g = 8 + 10 * (i - 232);
        return g << 16 | g << 8 | g;
    }
    case 2:
        return c & 0xFFFFFF;
    default:
        return def;
    }
}

static void fill_cell(const struct vt_cell *c, bool reverse_screen, struct cell *d)
{
    for (int i = 0; i < CELL_MAX_CHARS; i++)
        d->chars[i] = i < VT_CELL_CHARS ? c->ch[i] : 0;
    d->width = c->wide == VT_WIDE_LEFT ? 2 : 1;
    uint32_t fg = to_rgb(c->fg, TERM_SCREEN_DEFAULT_FG), bg = to_rgb(c->bg, TERM_SCREEN_DEFAULT_BG);
    bool reverse = !!(c->attrs & VT_REVERSE) != reverse_screen;
    d->fg = reverse ? bg : fg;
    d->bg = reverse ? fg : bg;
    static const struct {
        uint16_t from, to;
    } map[] = {{VT_BOLD, CELL_BOLD},       {VT_DIM, CELL_DIM},
               {VT_ITALIC, CELL_ITALIC},   {VT_UNDERLINE, CELL_UNDERLINE},
               {VT_STRIKE, CELL_STRIKE},   {VT_BLINK, CELL_BLINK},
               {VT_CONCEAL, CELL_CONCEAL}, {VT_DOUBLE_UNDERLINE, CELL_DOUBLE_UNDERLINE}};
    d->attrs = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (c->attrs & map[i].from)
            d->attrs |= map[i].to;
}

void term_screen_grid(const struct term_screen *s, struct cell_grid *out)
{
    int cols = s->vt.cols, rows = s->vt.rows;
    out->cols = cols;
    out->rows = rows;
    out->cells = xcalloc((size_t)cols * (size_t)rows, sizeof *out->cells);
    for (int r = 0; r < rows; r++) {
        struct cell *row = out->cells + (size_t)r * (size_t)cols;
        const struct vt_row *vr = s->vt.row[r];
        for (int c = 0; c < cols; c++) {
            const struct vt_cell *vc = &vr->cells[c];
            struct cell *d = &row[c];
            if (vc->wide == VT_WIDE_RIGHT && c > 0 && row[c - 1].width == 2) {
                /* Paint the right half like its character. */
                *d = row[c - 1];
                for (int i = 0; i < CELL_MAX_CHARS; i++)
                    d->chars[i] = 0;
                d->width = 0;
                continue;
            }
            fill_cell(vc, s->vt.reverse_screen, d);
            if (vc->wide == VT_WIDE_RIGHT)
                d->chars[0] = 0;
        }
    }
    term_screen_cursor(s, &out->cursor_row, &out->cursor_col, &out->cursor_visible);
    out->cursor_color = TERM_SCREEN_CURSOR;
}

struct vt_screen *term_screen_vt(struct term_screen *s)
{
    return &s->vt;
}
