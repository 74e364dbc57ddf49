#include "backend/terminal/term_screen.h"

#include "backend/terminal/term_feed.h"
#include "backend/terminal/term_scrollback.h"
#include "backend/terminal/term_text.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/cellgrid.h"

#include <string.h>
#include <vterm.h>

#define RIGHT_HALF ((uint32_t)-1)

struct term_screen {
    VTerm *vt;
    VTermScreen *vs;
    VTermState *state;
    struct term_scrollback *sb;
    struct term_feed feed;

    term_screen_output_fn *out_cb;
    void *out_ud;
    void (*damage_cb)(void *ud);
    void *damage_ud;

    uint64_t changes;
    bool cursor_visible;
    bool altscreen;
    char *title; /* never NULL */

    /* While set, output is swallowed and only noted: see bracketed_paste. */
    bool probing, probe_hit;
};

/* A dark theme (VS Code's terminal colours) for the 16 ANSI colours. */
static const uint32_t ansi[16] = {
    0x000000, 0xCD3131, 0x0DBC79, 0xE5E510, 0x2472C8, 0xBC3FBC, 0x11A8CD, 0xE5E5E5,
    0x666666, 0xF14C4C, 0x23D18B, 0xF5F543, 0x3B8EEA, 0xD670D6, 0x29B8DB, 0xFFFFFF,
};

static VTermColor rgb(uint32_t c)
{
    VTermColor v;
    vterm_color_rgb(&v, (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c);
    return v;
}

static int on_damage(VTermRect rect, void *ud)
{
    (void)rect;
    struct term_screen *s = ud;
    s->changes++;
    return 1;
}

static int on_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *ud)
{
    (void)pos, (void)oldpos, (void)visible; /* read from the state when asked */
    struct term_screen *s = ud;
    s->changes++;
    return 1;
}

static int on_settermprop(VTermProp prop, VTermValue *val, void *ud)
{
    struct term_screen *s = ud;
    switch (prop) {
    case VTERM_PROP_CURSORVISIBLE:
        s->cursor_visible = val->boolean;
        break;
    case VTERM_PROP_ALTSCREEN:
        s->altscreen = val->boolean;
        break;
    case VTERM_PROP_TITLE: {
        /* 0.1.4 hands over the whole title at once; term_feed makes sure a
         * title split across reads reaches it whole. */
        struct strbuf t;
        strbuf_init(&t);
        term_text_append_clean(&t, val->string, strlen(val->string));
        free(s->title);
        s->title = strbuf_steal(&t);
        break;
    }
    default:
        break;
    }
    s->changes++;
    return 1;
}

static int on_sb_pushline(int cols, const VTermScreenCell *cells, void *ud)
{
    struct term_screen *s = ud;
    term_scrollback_push(s->sb, cols, cells);
    return 1;
}

static int on_sb_popline(int cols, VTermScreenCell *cells, void *ud)
{
    struct term_screen *s = ud;
    VTermColor fg, bg;
    vterm_state_get_default_colors(s->state, &fg, &bg);
    return term_scrollback_pop(s->sb, cols, cells, fg, bg);
}

static const VTermScreenCallbacks callbacks = {
    .damage = on_damage,
    .movecursor = on_movecursor,
    .settermprop = on_settermprop,
    .sb_pushline = on_sb_pushline,
    .sb_popline = on_sb_popline,
};

static void on_output(const char *buf, size_t len, void *ud)
{
    struct term_screen *s = ud;
    if (s->probing) {
        s->probe_hit = true;
        return;
    }
    if (s->out_cb)
        s->out_cb(buf, len, s->out_ud);
}

static void on_feed_write(const char *buf, size_t len, void *ud)
{
    struct term_screen *s = ud;
    vterm_input_write(s->vt, buf, len);
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

struct term_screen *term_screen_create(int cols, int rows, int scrollback_lines)
{
    struct term_screen *s = xcalloc(1, sizeof *s);
    cols = clamp(cols, 1, TERM_SCREEN_MAX_DIM);
    rows = clamp(rows, 1, TERM_SCREEN_MAX_DIM);
    s->sb = term_scrollback_create(clamp(scrollback_lines, 0, TERM_SCREEN_MAX_SCROLLBACK));
    term_feed_init(&s->feed, on_feed_write, on_output, s);
    s->title = xstrdup("");
    s->cursor_visible = true;

    s->vt = vterm_new(rows, cols);
    if (!s->vt)
        abort(); /* vterm_new only fails when out of memory */
    vterm_set_utf8(s->vt, 1);
    vterm_output_set_callback(s->vt, on_output, s);
    s->state = vterm_obtain_state(s->vt);
    s->vs = vterm_obtain_screen(s->vt);

    VTermColor fg = rgb(TERM_SCREEN_DEFAULT_FG), bg = rgb(TERM_SCREEN_DEFAULT_BG);
    vterm_state_set_default_colors(s->state, &fg, &bg);
    for (int i = 0; i < 16; i++) {
        VTermColor c = rgb(ansi[i]);
        vterm_state_set_palette_color(s->state, i, &c);
    }
    vterm_screen_set_callbacks(s->vs, &callbacks, s);
    /* Damage is only counted, so merge it all and flush once per feed. */
    vterm_screen_set_damage_merge(s->vs, VTERM_DAMAGE_SCROLL);
    vterm_screen_enable_altscreen(s->vs, 1);
    vterm_screen_reset(s->vs, 1);
    s->changes = 0;
    return s;
}

void term_screen_destroy(struct term_screen *s)
{
    if (!s)
        return;
    vterm_free(s->vt);
    term_scrollback_destroy(s->sb);
    term_feed_finish(&s->feed);
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

static void finish_change(struct term_screen *s, uint64_t before)
{
    vterm_screen_flush_damage(s->vs);
    if (s->changes != before && s->damage_cb)
        s->damage_cb(s->damage_ud);
}

void term_screen_feed(struct term_screen *s, const char *bytes, size_t len)
{
    uint64_t before = s->changes;
    term_feed_bytes(&s->feed, bytes, len);
    finish_change(s, before);
}

void term_screen_resize(struct term_screen *s, int cols, int rows)
{
    uint64_t before = s->changes;
    cols = clamp(cols, 1, TERM_SCREEN_MAX_DIM);
    rows = clamp(rows, 1, TERM_SCREEN_MAX_DIM);
    int old_cols, old_rows;
    term_screen_size(s, &old_cols, &old_rows);
    if (cols == old_cols && rows == old_rows)
        return;
    vterm_set_size(s->vt, rows, cols);
    s->changes++;
    finish_change(s, before);
}

void term_screen_send(struct term_screen *s, const char *bytes, size_t len)
{
    if (len && s->out_cb)
        s->out_cb(bytes, len, s->out_ud);
}

void term_screen_size(const struct term_screen *s, int *cols, int *rows)
{
    vterm_get_size(s->vt, rows, cols);
}

uint64_t term_screen_changes(const struct term_screen *s)
{
    return s->changes;
}

void term_screen_append_line(const struct term_screen *s, int row, struct strbuf *out)
{
    int cols, rows;
    term_screen_size(s, &cols, &rows);
    if (row < 0 || row >= rows)
        return;
    size_t from = out->len;
    for (VTermPos pos = {.row = row, .col = 0}; pos.col < cols; pos.col++) {
        VTermScreenCell c;
        vterm_screen_get_cell(s->vs, pos, &c);
        if (c.chars[0] == RIGHT_HALF)
            continue;
        if (c.chars[0] == 0)
            strbuf_putc(out, ' ');
        else
            term_text_append_chars(out, c.chars, VTERM_MAX_CHARS_PER_CELL);
    }
    term_text_trim(out, from);
}

char *term_screen_text(const struct term_screen *s)
{
    int cols, rows;
    term_screen_size(s, &cols, &rows);
    struct strbuf out;
    strbuf_init(&out);
    size_t keep = 0; /* length up to the last non-empty row */
    for (int r = 0; r < rows; r++) {
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

void term_screen_append_scrollback_line(const struct term_screen *s, int index,
                                        struct strbuf *out)
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
    VTermPos pos;
    vterm_state_get_cursorpos(s->state, &pos);
    *row = pos.row;
    *col = pos.col;
    *visible = s->cursor_visible;
}

const char *term_screen_title(const struct term_screen *s)
{
    return s->title;
}

bool term_screen_altscreen(const struct term_screen *s)
{
    return s->altscreen;
}

bool term_screen_bracketed_paste(struct term_screen *s)
{
    /* libvterm 0.1.4 tracks DECSET 2004 but has no way to read it. Starting
     * a paste writes ESC[200~ exactly when it is on, so try one and keep the
     * bytes: the answer is libvterm's own, resets and all. */
    s->probing = true;
    s->probe_hit = false;
    vterm_keyboard_start_paste(s->vt);
    s->probing = false;
    return s->probe_hit;
}

static uint32_t to_rgb(const struct term_screen *s, VTermColor c)
{
    vterm_screen_convert_color_to_rgb(s->vs, &c);
    return (uint32_t)c.rgb.red << 16 | (uint32_t)c.rgb.green << 8 | c.rgb.blue;
}

static void fill_cell(const struct term_screen *s, const VTermScreenCell *c, struct cell *d)
{
    for (int i = 0; i < CELL_MAX_CHARS; i++)
        d->chars[i] = 0;
    for (int i = 0; i < CELL_MAX_CHARS && i < VTERM_MAX_CHARS_PER_CELL && c->chars[i]; i++)
        d->chars[i] = c->chars[i] > 0x10FFFF ? 0xFFFD : c->chars[i];
    d->width = c->width == 2 ? 2 : 1;
    uint32_t fg = to_rgb(s, c->fg), bg = to_rgb(s, c->bg);
    d->fg = c->attrs.reverse ? bg : fg;
    d->bg = c->attrs.reverse ? fg : bg;
    /* 0.1.4 has no dim (SGR 2) or conceal (SGR 8): those never show. */
    d->attrs = (uint16_t)((c->attrs.bold ? CELL_BOLD : 0) | (c->attrs.italic ? CELL_ITALIC : 0) |
                          (c->attrs.strike ? CELL_STRIKE : 0) | (c->attrs.blink ? CELL_BLINK : 0));
    if (c->attrs.underline == VTERM_UNDERLINE_DOUBLE)
        d->attrs |= CELL_DOUBLE_UNDERLINE;
    else if (c->attrs.underline)
        d->attrs |= CELL_UNDERLINE;
}

void term_screen_grid(const struct term_screen *s, struct cell_grid *out)
{
    int cols, rows;
    term_screen_size(s, &cols, &rows);
    out->cols = cols;
    out->rows = rows;
    out->cells = xcalloc((size_t)cols * (size_t)rows, sizeof *out->cells);
    for (int r = 0; r < rows; r++) {
        struct cell *row = out->cells + (size_t)r * (size_t)cols;
        for (VTermPos pos = {.row = r, .col = 0}; pos.col < cols; pos.col++) {
            VTermScreenCell c;
            vterm_screen_get_cell(s->vs, pos, &c);
            struct cell *d = &row[pos.col];
            if (c.chars[0] == RIGHT_HALF && pos.col > 0 && row[pos.col - 1].width == 2) {
                /* Paint the right half like its character. */
                *d = row[pos.col - 1];
                for (int i = 0; i < CELL_MAX_CHARS; i++)
                    d->chars[i] = 0;
                d->width = 0;
                continue;
            }
            if (c.chars[0] == RIGHT_HALF)
                c.chars[0] = 0;
            fill_cell(s, &c, d);
        }
    }
    term_screen_cursor(s, &out->cursor_row, &out->cursor_col, &out->cursor_visible);
    out->cursor_color = TERM_SCREEN_CURSOR;
}

struct VTerm *term_screen_vterm(struct term_screen *s)
{
    return s->vt;
}
