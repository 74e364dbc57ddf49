#define LOG_MODULE "terminal"
#include "backend/terminal/term_screen.h"

#include "backend/terminal/term_feed.h"
#include "backend/terminal/term_scrollback.h"
#include "backend/terminal/term_text.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/cellgrid.h"

#include <stdio.h>
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

    /* While set, libvterm's output is caught here instead of sent: see ask. */
    struct strbuf *capture;

    /* Plain-line floods skip libvterm's per-line scrolling (see feed). Off
     * for good once the program touches character sets, since then "q"
     * might print a line-drawing glyph. */
    bool fast_scroll;
    bool charsets_touched;
    int scrollback_capacity;

    /* Each row's text as term_screen_append_line makes it, kept until
     * libvterm reports damage on the row. read_text, wait_for and find read
     * the whole screen on every call, and asking libvterm for its cells one
     * by one (4,800 on 120x40) was most of their cost. A cache, so kept up
     * to date from const readers too. */
    struct row_text {
        char *text; /* NULL: stale */
        size_t len;
    } * row_text;
    int row_text_rows, row_text_cols;
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

static void row_text_forget(struct term_screen *s, int from, int to)
{
    for (int r = from < 0 ? 0 : from; r < to && r < s->row_text_rows; r++) {
        free(s->row_text[r].text);
        s->row_text[r].text = NULL;
    }
}

static int on_damage(VTermRect rect, void *ud)
{
    struct term_screen *s = ud;
    row_text_forget(s, rect.start_row, rect.end_row);
    s->changes++;
    return 1;
}

/* libvterm moved a block of the screen (a scroll, inserted or deleted
 * lines): whole rows carry their cached text along, so a terminal that
 * scrolls a line per command does not rebuild every row's text on the next
 * read. Returning 1 tells libvterm not to report the block as damage;
 * rows uncovered by the move are erased, which it does report. */
static int on_moverect(VTermRect dest, VTermRect src, void *ud)
{
    struct term_screen *s = ud;
    s->changes++;
    int n = dest.end_row - dest.start_row;
    bool whole_rows = dest.start_col == 0 && src.start_col == 0 &&
                      dest.end_col >= s->row_text_cols && src.end_col >= s->row_text_cols;
    if (!whole_rows || n <= 0 || src.end_row - src.start_row != n || dest.start_row < 0 ||
        src.start_row < 0 || dest.end_row > s->row_text_rows || src.end_row > s->row_text_rows) {
        row_text_forget(s, dest.start_row, dest.end_row);
        return 1;
    }
    struct row_text *moved = xcalloc((size_t)n, sizeof *moved);
    for (int i = 0; i < n; i++) {
        moved[i] = s->row_text[src.start_row + i];
        s->row_text[src.start_row + i].text = NULL;
    }
    row_text_forget(s, dest.start_row, dest.end_row);
    for (int i = 0; i < n; i++)
        s->row_text[dest.start_row + i] = moved[i];
    free(moved);
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
    .moverect = on_moverect,
    .movecursor = on_movecursor,
    .settermprop = on_settermprop,
    .sb_pushline = on_sb_pushline,
    .sb_popline = on_sb_popline,
};

static void on_output(const char *buf, size_t len, void *ud)
{
    struct term_screen *s = ud;
    if (s->capture) {
        strbuf_append(s->capture, buf, len);
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
    cols = clamp(cols, TERM_SCREEN_MIN_COLS, TERM_SCREEN_MAX_DIM);
    rows = clamp(rows, 1, TERM_SCREEN_MAX_DIM);
    s->sb = term_scrollback_create(clamp(scrollback_lines, 0, TERM_SCREEN_MAX_SCROLLBACK));
    term_feed_init(&s->feed, on_feed_write, on_output, s);
    s->title = xstrdup("");
    s->cursor_visible = true;

    s->feed.rep_max = cols;
    s->fast_scroll = true;
    s->scrollback_capacity = clamp(scrollback_lines, 0, TERM_SCREEN_MAX_SCROLLBACK);
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
    row_text_forget(s, 0, s->row_text_rows);
    free(s->row_text);
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

static bool ask_pair(struct term_screen *s, char what, int *first, int *last, struct strbuf *a);
static void inject(struct term_screen *s, const char *seq);

/* Length of the plain line at p (printable ASCII, at most cols, then
 * CR LF) including its CR LF, or 0 if it is not one. */
static size_t plain_line(const char *p, size_t n, int cols)
{
    size_t i = 0;
    while (i < n && i <= (size_t)cols && p[i] >= 0x20 && p[i] <= 0x7e)
        i++;
    if (i > (size_t)cols || i + 1 >= n || p[i] != '\r' || p[i + 1] != '\n')
        return 0;
    return i + 2;
}

/* Length of the row-local line at p, including its CR LF, or 0 if it is
 * not one: text (printable ASCII, UTF-8, HT, BS, BEL), SGR and EL sequences,
 * nothing else, so printing it only touches the cursor's row; at most cols
 * columns even if every non-ASCII character were wide, so it cannot wrap;
 * and the pen back to the default (SGR 0) before the line ends, so rows
 * scrolled in are blank the same way. *plain: printable ASCII only. */
static size_t simple_line(const char *p, size_t n, int cols, bool *plain)
{
    size_t i = 0;
    int width = 0, expect = 0; /* continuation bytes the last lead byte wants */
    bool dirty = false;
    *plain = true;
    while (i < n && width <= cols) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x80 || c >= 0xC0)
            expect = 0; /* a character cut short prints as one U+FFFD */
        if (c >= 0x20 && c < 0x7f) {
            width++;
            i++;
        } else if (c >= 0xC2 && c <= 0xF4) {
            width += 2;
            i++;
            *plain = false;
            expect = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
        } else if (c >= 0x80 && c < 0xC0) {
            /* A continuation, or a stray one, which prints as U+FFFD. */
            width += expect ? 0 : 1;
            expect -= expect ? 1 : 0;
            i++;
            *plain = false;
        } else if (c == '\t' || c == '\b' || c == 0x07) {
            width += c == '\t' ? 8 - width % 8 : 0;
            i++;
            *plain = false;
        } else if (c == 0x1b && i + 1 < n && p[i + 1] == '[') {
            size_t j = i + 2;
            bool reset = true;
            while (j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == ';')) {
                reset &= p[j] == '0' || p[j] == ';';
                j++;
            }
            if (j >= n || (p[j] != 'm' && p[j] != 'K') || j - i > 32)
                return 0;
            if (p[j] == 'm')
                dirty = !reset;
            i = j + 1;
            *plain = false;
        } else if (c == '\r' && i + 1 < n && p[i + 1] == '\n') {
            return dirty || width > cols ? 0 : i + 2;
        } else {
            return 0;
        }
    }
    return 0;
}

static bool pen_is_default(struct term_screen *s)
{
    VTermValue v;
    static const VTermAttr flags[] = {VTERM_ATTR_BOLD,  VTERM_ATTR_UNDERLINE, VTERM_ATTR_ITALIC,
                                      VTERM_ATTR_BLINK, VTERM_ATTR_REVERSE,   VTERM_ATTR_STRIKE};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (vterm_state_get_penattr(s->state, flags[i], &v) && (v.boolean || v.number))
            return false;
    }
    if (vterm_state_get_penattr(s->state, VTERM_ATTR_FONT, &v) && v.number)
        return false;
    vterm_state_get_penattr(s->state, VTERM_ATTR_FOREGROUND, &v);
    if (!VTERM_COLOR_IS_DEFAULT_FG(&v.color))
        return false;
    vterm_state_get_penattr(s->state, VTERM_ATTR_BACKGROUND, &v);
    return VTERM_COLOR_IS_DEFAULT_BG(&v.color);
}

/* Whether printing plain lines from here is the same as the fast path: the
 * parser at rest, the normal screen, the cursor at the start of a line with
 * only blank rows from it down, the default pen, the whole screen scrolling. */
static bool can_fast_scroll(struct term_screen *s, int *cursor_row)
{
    if (!s->fast_scroll || s->altscreen || !term_feed_idle(&s->feed))
        return false;
    VTermPos pos;
    vterm_state_get_cursorpos(s->state, &pos);
    if (pos.col != 0 || !pen_is_default(s))
        return false;
    int rows, cols;
    vterm_get_size(s->vt, &rows, &cols);
    /* libvterm keeps no scrollback for a one-row screen, and the region
     * path needs two rows and one more: tiny screens go the usual way. */
    if (rows < 3)
        return false;
    for (int r = pos.row; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            VTermScreenCell cell;
            vterm_screen_get_cell(s->vs, (VTermPos){r, c}, &cell);
            if (cell.chars[0] && cell.chars[0] != ' ')
                return false;
        }
    }
    struct strbuf a;
    strbuf_init(&a);
    int top = 1, bottom = rows;
    bool region = ask_pair(s, 'r', &top, &bottom, &a);
    strbuf_finish(&a);
    if (region && (top != 1 || bottom != rows))
        return false;
    *cursor_row = pos.row;
    return true;
}

/* The rows above the cursor, which scroll off first, go to scrollback.
 * cells: scratch of cols cells. */
static void push_rows_above(struct term_screen *s, int cursor_row, int cols, VTermScreenCell *cells)
{
    for (int r = 0; r < cursor_row; r++) {
        for (int c = 0; c < cols; c++)
            vterm_screen_get_cell(s->vs, (VTermPos){r, c}, &cells[c]);
        term_scrollback_push(s->sb, cols, cells);
    }
}

/* Prints count plain lines (lines[0..len)) the fast way: the rows that would
 * scroll off the top, then all but the last rows-1 lines, go straight to
 * scrollback; the screen is cleared and given only the last rows-1 lines.
 * The result is the same as feeding them, without libvterm moving the whole
 * screen once per line. */
static void fast_scroll(struct term_screen *s, int cursor_row, const char *lines, size_t len,
                        size_t count)
{
    int rows, cols;
    vterm_get_size(s->vt, &rows, &cols);
    VTermScreenCell *cells = xcalloc((size_t)cols, sizeof *cells);
    push_rows_above(s, cursor_row, cols, cells);
    term_feed_inject(&s->feed, "\x1b[H\x1b[2J", 7);
    VTermScreenCell blank_cell;
    vterm_screen_get_cell(s->vs, (VTermPos){0, 0}, &blank_cell);
    /* Then the lines that do not stay on screen; only the newest the
     * scrollback can hold are worth building. */
    size_t off_screen = count - (size_t)(rows - 1);
    size_t skip = off_screen > (size_t)s->scrollback_capacity
                      ? off_screen - (size_t)s->scrollback_capacity
                      : 0;
    const char *p = lines;
    for (int c = 0; c < cols; c++)
        cells[c] = blank_cell;
    for (size_t i = 0; i < off_screen; i++) {
        size_t n = plain_line(p, len - (size_t)(p - lines), cols);
        if (n < 2)
            break; /* not a plain line after all: the rest goes the usual way */
        if (i >= skip) {
            /* Only the line's own cells change: the rest stay blank. */
            for (size_t c = 0; c < n - 2; c++)
                cells[c].chars[0] = (uint32_t)(unsigned char)p[c];
            /* Blank cells in the default pen are trimmed from a stored
             * line anyway: hand over the line's own only. */
            term_scrollback_push(s->sb, (int)(n - 2), cells);
            for (size_t c = 0; c < n - 2; c++)
                cells[c].chars[0] = blank_cell.chars[0];
        }
        p += n;
    }
    free(cells);
    /* The rest is printed as usual, from the top-left of the cleared screen. */
    term_feed_bytes(&s->feed, p, len - (size_t)(p - lines));
    s->changes++;
}

/* Prints count row-local lines (see simple_line) so that libvterm scrolls
 * two rows per line instead of the whole screen: the rows above the cursor
 * go to scrollback, the screen is cleared, and all but the last rows-1 lines
 * are printed in a scroll region of the top two rows (each line feed pushes
 * the top row to scrollback, as a full scroll would); then the region is
 * reset and the rest printed from the second row, as usual. The lines never
 * wrap and the pen is the default at each line end, so the screen and
 * scrollback come out the same as feeding them. */
static void region_scroll(struct term_screen *s, int cursor_row, const char *lines, size_t len,
                          size_t count)
{
    int rows, cols;
    vterm_get_size(s->vt, &rows, &cols);
    VTermScreenCell *cells = xcalloc((size_t)cols, sizeof *cells);
    push_rows_above(s, cursor_row, cols, cells);
    free(cells);
    inject(s, "\x1b[H\x1b[2J\x1b[1;2r");
    size_t off_screen = count - (size_t)(rows - 1), split = 0;
    for (size_t i = 0; i < off_screen; i++) {
        const char *nl = memchr(lines + split, '\n', len - split);
        split = (size_t)(nl - lines) + 1;
    }
    term_feed_bytes(&s->feed, lines, split);
    inject(s, "\x1b[r\x1b[2;1H");
    term_feed_bytes(&s->feed, lines + split, len - split);
    s->changes++;
}

/* Prints count (fewer than rows) row-local lines with one scroll instead of
 * one per line feed: libvterm moves the whole screen for each, so a few
 * lines at the bottom of a full screen cost a screenful each. Scrolling up
 * by as many rows as the lines will need (SU, which pushes the top rows to
 * scrollback as line feeds would) and printing them from there gives the
 * same screen: the rows below the cursor are blank, the lines never wrap
 * and end with the default pen, so every row they land in is blank the
 * same way. */
static void batch_scroll(struct term_screen *s, int cursor_row, const char *lines, size_t len,
                         size_t count)
{
    int rows, cols;
    vterm_get_size(s->vt, &rows, &cols);
    int k = (int)count - (rows - 1 - cursor_row);
    if (k > 0) {
        char seq[40];
        snprintf(seq, sizeof seq, "\x1b[%dS\x1b[%d;1H", k, cursor_row - k + 1);
        inject(s, seq);
    }
    term_feed_bytes(&s->feed, lines, len);
}

/* Feeds bytes, taking runs of many plain lines the fast way when the screen
 * allows it. Anything else goes through term_feed. */
static void feed_bytes(struct term_screen *s, const char *bytes, size_t len)
{
    int rows, cols;
    vterm_get_size(s->vt, &rows, &cols);
    /* A screenful or more of lines takes the fast or the region path;
     * fewer, one scroll for them all. */
    size_t threshold = (size_t)rows;
    size_t done = 0, i = 0;
    /* The first bytes may end a line an earlier read began. */
    VTermPos pos;
    vterm_state_get_cursorpos(s->state, &pos);
    bool at_line_start = pos.col == 0 && term_feed_idle(&s->feed);
    while (i < len) {
        bool line_start = i == 0 ? at_line_start : bytes[i - 1] == '\n';
        size_t count = 0, j = i;
        bool all_plain = true;
        if (line_start) {
            size_t n;
            bool plain;
            while ((n = simple_line(bytes + j, len - j, cols, &plain)) > 0) {
                j += n;
                count++;
                all_plain &= plain;
            }
        }
        if (count < 2) {
            /* A run starting later inside this one ends where it does. */
            const char *nl = count ? NULL : memchr(bytes + i, '\n', len - i);
            i = count ? j : nl ? (size_t)(nl - bytes) + 1 : len;
            continue;
        }
        term_feed_bytes(&s->feed, bytes + done, i - done);
        int cursor_row;
        if (!can_fast_scroll(s, &cursor_row))
            term_feed_bytes(&s->feed, bytes + i, j - i);
        else if (count < threshold)
            batch_scroll(s, cursor_row, bytes + i, j - i, count);
        else if (all_plain && !s->charsets_touched)
            fast_scroll(s, cursor_row, bytes + i, j - i, count);
        else
            region_scroll(s, cursor_row, bytes + i, j - i, count);
        done = i = j;
    }
    term_feed_bytes(&s->feed, bytes + done, len - done);
}

static void note_charsets(struct term_screen *s, const char *bytes, size_t len)
{
    /* SO/SI, or ESC ( ) * + designating a character set. */
    if (memchr(bytes, 0x0e, len) || memchr(bytes, 0x0f, len))
        s->charsets_touched = true;
    for (const char *p = bytes;
         !s->charsets_touched && (p = memchr(p, 0x1b, len - (size_t)(p - bytes))); p++) {
        if ((size_t)(p - bytes) + 1 < len && strchr("()*+", p[1]) && p[1])
            s->charsets_touched = true;
    }
}

void term_screen_feed(struct term_screen *s, const char *bytes, size_t len)
{
    uint64_t before = s->changes, dropped = term_feed_dropped(&s->feed);
    if (!s->charsets_touched)
        note_charsets(s, bytes, len);
    feed_bytes(s, bytes, len);
    finish_change(s, before);
    /* Say so at the first drop and at each power of two after it: enough to
     * explain a program that looks wrong, never a flood. */
    uint64_t now = term_feed_dropped(&s->feed);
    if (now != dropped && (1ULL << (63 - __builtin_clzll(now))) > dropped)
        log_info("dropped %llu escape sequences or controls so far that libvterm 0.1.4 is not "
                 "known to handle safely",
                 (unsigned long long)now);
}

uint64_t term_screen_dropped(const struct term_screen *s)
{
    return term_feed_dropped(&s->feed);
}

void term_screen_set_fast_scroll(struct term_screen *s, bool on)
{
    s->fast_scroll = on;
}

/* Ask libvterm a question (a DECRQSS query) and catch its answer. */
static void ask(struct term_screen *s, const char *query, struct strbuf *answer)
{
    strbuf_clear(answer);
    strbuf_append(answer, "", 0);
    s->capture = answer;
    term_feed_inject(&s->feed, query, strlen(query));
    s->capture = NULL;
}

/* A DEC private mode's state, asked with DECRQM. */
static bool mode_set(struct term_screen *s, int mode, struct strbuf *a)
{
    char q[32];
    snprintf(q, sizeof q, "\x1b[?%d$p", mode);
    ask(s, q, a);
    /* The answer starts with CSI, 7- or 8-bit (after S8C1T). */
    const char *p = strchr(a->data, '?');
    int m, v;
    return p && sscanf(p, "?%d;%d$y", &m, &v) == 2 && v == 1;
}

/* Two numbers from a DECRQSS answer ("r": scroll region, "s": margins). */
static bool ask_pair(struct term_screen *s, char what, int *first, int *last, struct strbuf *a)
{
    char q[16], final = 0;
    snprintf(q, sizeof q, "\x1bP$q%c\x1b\\", what);
    ask(s, q, a);
    const char *p = strstr(a->data, "1$r"); /* after DCS, 7- or 8-bit */
    return p && sscanf(p, "1$r%d;%d%c", first, last, &final) == 3 && final == what;
}

static void inject(struct term_screen *s, const char *seq)
{
    term_feed_inject(&s->feed, seq, strlen(seq));
}

/* CUP to an absolute position, whether or not origin mode is on. */
static void move_cursor(struct term_screen *s, VTermPos pos, struct strbuf *a)
{
    int top = 1, left = 1, last;
    if (mode_set(s, 6, a)) {
        ask_pair(s, 'r', &top, &last, a);
        ask_pair(s, 's', &left, &last, a);
    }
    char cup[32];
    int row = pos.row + 2 - top, col = pos.col + 2 - left;
    snprintf(cup, sizeof cup, "\x1b[%d;%dH", row < 1 ? 1 : row, col < 1 ? 1 : col);
    inject(s, cup);
}

/* DECRC puts back a position saved before the screen shrank, unchecked. Move
 * the saved position inside, keeping the current pen and cursor. */
static void repair_saved_cursor(struct term_screen *s, int cols, int rows, struct strbuf *a)
{
    ask(s, "\x1bP$qm\x1b\\", a);
    char *pen = NULL;
    const char *p = strstr(a->data, "1$r");
    const char *m = p ? strchr(p, 'm') : NULL;
    if (m)
        pen = xasprintf("\x1b[0;%.*sm", (int)(m - p - 3), p + 3);
    ask(s, "\x1bP$q q\x1b\\", a);
    int shape = 0;
    p = strstr(a->data, "1$r");
    if (!p || sscanf(p, "1$r%d q", &shape) != 1)
        shape = 0;
    bool visible = mode_set(s, 25, a);

    inject(s, "\x1b"
              "8");
    VTermPos saved;
    vterm_state_get_cursorpos(s->state, &saved);
    saved.row = clamp(saved.row, 0, rows - 1);
    saved.col = clamp(saved.col, 0, cols - 1);
    move_cursor(s, saved, a);
    inject(s, "\x1b"
              "7");

    if (pen)
        inject(s, pen);
    free(pen);
    if (shape > 0) {
        char scusr[16];
        snprintf(scusr, sizeof scusr, "\x1b[%d q", shape);
        inject(s, scusr);
    }
    inject(s, visible ? "\x1b[?25h" : "\x1b[?25l");
}

/* Shrinking in 0.1.4 (fixed upstream in 0.2) can leave the cursor above the
 * screen, when lines below it scroll off; the scroll region or margins past
 * its edge; and a saved cursor outside it. Printing, scrolling or restoring
 * then reads and writes outside libvterm's buffers. Put them all back in. */
static void repair_after_resize(struct term_screen *s, int cols, int rows, bool shrunk)
{
    VTermPos pos;
    vterm_state_get_cursorpos(s->state, &pos);
    bool moved = pos.row < 0 || pos.col < 0;
    pos.row = clamp(pos.row, 0, rows - 1);
    pos.col = clamp(pos.col, 0, cols - 1);

    struct strbuf a;
    strbuf_init(&a);
    int first, last;
    if (ask_pair(s, 'r', &first, &last, &a) && (last < first || first > rows)) {
        inject(s, "\x1b[r");
        moved = true;
    }
    /* Margins only show (and only matter) while DECLRMM is on, and then CSI s
     * resets them. */
    if (ask_pair(s, 's', &first, &last, &a) && (last < first || first > cols)) {
        inject(s, "\x1b[s");
        moved = true;
    }
    if (shrunk)
        repair_saved_cursor(s, cols, rows, &a);
    if (moved || shrunk)
        move_cursor(s, pos, &a);
    strbuf_finish(&a);
}

void term_screen_resize(struct term_screen *s, int cols, int rows)
{
    uint64_t before = s->changes;
    cols = clamp(cols, TERM_SCREEN_MIN_COLS, TERM_SCREEN_MAX_DIM);
    rows = clamp(rows, 1, TERM_SCREEN_MAX_DIM);
    int old_cols, old_rows;
    term_screen_size(s, &old_cols, &old_rows);
    if (cols == old_cols && rows == old_rows)
        return;
    vterm_set_size(s->vt, rows, cols);
    s->feed.rep_max = cols;
    repair_after_resize(s, cols, rows, cols < old_cols || rows < old_rows);
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

static void append_cells(const struct term_screen *s, int row, int cols, struct strbuf *out)
{
    size_t from = out->len;
    /* Room for a row of one-byte cells: those (nearly all of them) are
     * stored directly, not appended a byte at a time. */
    strbuf_reserve(out, (size_t)cols);
    for (VTermPos pos = {.row = row, .col = 0}; pos.col < cols; pos.col++) {
        VTermScreenCell c;
        vterm_screen_get_cell(s->vs, pos, &c);
        uint32_t ch = c.chars[0];
        if (ch == RIGHT_HALF)
            continue;
        if (ch < 0x80 && (ch == 0 || c.chars[1] == 0)) {
            if (out->len + 2 > out->cap) /* wide characters took the room */
                strbuf_reserve(out, 1);
            out->data[out->len++] = ch ? (char)ch : ' ';
        } else {
            term_text_append_chars(out, c.chars, VTERM_MAX_CHARS_PER_CELL);
        }
    }
    term_text_trim(out, from);
}

void term_screen_append_line(const struct term_screen *cs, int row, struct strbuf *out)
{
    struct term_screen *s = (struct term_screen *)cs; /* only the cache changes */
    int cols, rows;
    term_screen_size(s, &cols, &rows);
    if (row < 0 || row >= rows)
        return;
    if (rows != s->row_text_rows || cols != s->row_text_cols) {
        row_text_forget(s, 0, s->row_text_rows);
        s->row_text = xrealloc(s->row_text, (size_t)rows * sizeof *s->row_text);
        memset(s->row_text, 0, (size_t)rows * sizeof *s->row_text);
        s->row_text_rows = rows;
        s->row_text_cols = cols;
    }
    struct row_text *rt = &s->row_text[row];
    if (!rt->text) {
        struct strbuf line;
        strbuf_init(&line);
        append_cells(s, row, cols, &line);
        rt->len = line.len;
        strbuf_append(&line, "", 0); /* terminate; allocate when empty */
        rt->text = strbuf_steal(&line);
    }
    strbuf_append(out, rt->text, rt->len);
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
    struct strbuf out;
    strbuf_init(&out);
    s->capture = &out;
    vterm_keyboard_start_paste(s->vt);
    s->capture = NULL;
    bool on = out.len > 0;
    strbuf_finish(&out);
    return on;
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
