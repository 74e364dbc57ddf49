/* The sequences: C0 controls, escapes, CSI, OSC and DCS applied to the grid
 * (vt_screen.c), answers to queries written back, modes tracked. What is not
 * implemented is counted in s->dropped. */
#include "backend/terminal/vt_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Parameter i, or def when absent or 0. */
static int arg(const struct vt_csi *q, int i, int def)
{
    return i < q->nparams && q->params[i] > 0 ? q->params[i] : def;
}

/* Parameter i, or 0 when absent. */
static int arg0(const struct vt_csi *q, int i)
{
    return i < q->nparams && q->params[i] > 0 ? q->params[i] : 0;
}

static void reply(struct vt_screen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void reply(struct vt_screen *s, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && s->cbs.output)
        s->cbs.output(s->ud, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void move_to(struct vt_screen *s, int row, int col)
{
    s->cur_row = clamp(row, 0, s->rows - 1);
    s->cur_col = clamp(col, 0, s->cols - 1);
    s->wrap_pending = false;
    s->changes++;
}

/* CUP and VPA count from the top margin in origin mode and stay inside it. */
static void move_origin(struct vt_screen *s, int row, int col)
{
    if (s->origin)
        row = clamp(row + s->top, s->top, s->bottom);
    move_to(s, row, col);
}

static void update_charset(struct vt_screen *s)
{
    s->plain_charset = s->g[s->gl] == 'B';
}

static void save_cursor(struct vt_screen *s)
{
    struct vt_saved *v = &s->saved[s->alt];
    v->row = s->cur_row;
    v->col = s->cur_col;
    v->wrap_pending = s->wrap_pending;
    v->origin = s->origin;
    v->pen = s->pen;
    v->gl = s->gl;
    memcpy(v->g, s->g, sizeof v->g);
}

static void restore_cursor(struct vt_screen *s)
{
    const struct vt_saved *v = &s->saved[s->alt];
    move_to(s, v->row, v->col);
    s->wrap_pending = v->wrap_pending && s->cur_col == s->cols - 1;
    s->origin = v->origin;
    s->pen = v->pen;
    s->gl = v->gl & 1;
    memcpy(s->g, v->g, sizeof s->g);
    update_charset(s);
    vt_update_blank(s);
}

static void reset_saved(struct vt_screen *s)
{
    for (int i = 0; i < 2; i++) {
        memset(&s->saved[i], 0, sizeof s->saved[i]);
        memset(s->saved[i].g, 'B', sizeof s->saved[i].g);
    }
}

static void soft_reset(struct vt_screen *s)
{
    s->insert = false;
    s->origin = false;
    s->autowrap = true;
    s->cursor_visible = true;
    s->app_cursor = false;
    s->app_keypad = false;
    s->top = 0;
    s->bottom = s->rows - 1;
    memset(&s->pen, 0, sizeof s->pen);
    s->gl = 0;
    memset(s->g, 'B', sizeof s->g);
    update_charset(s);
    vt_update_blank(s);
    reset_saved(s);
    s->changes++;
}

static void full_reset(struct vt_screen *s)
{
    soft_reset(s);
    vt_set_alt(s, false);
    vt_clear_all(s);
    s->alt = true; /* clear the alternate screen too */
    s->row = s->altb;
    vt_clear_all(s);
    s->alt = false;
    s->row = s->main;
    s->newline = false;
    s->reverse_screen = false;
    s->bracketed_paste = false;
    s->focus_events = false;
    s->mouse = 0;
    s->cursor_shape = 0;
    s->last_char = 0;
    for (int c = 0; c < s->cols; c++)
        s->tabs[c] = c % 8 == 0 && c > 0;
    move_to(s, 0, 0);
}

static void tab(struct vt_screen *s, int n)
{
    int c = s->cur_col;
    while (n-- > 0 && c < s->cols - 1) {
        c++;
        while (c < s->cols - 1 && !s->tabs[c])
            c++;
    }
    move_to(s, s->cur_row, c);
}

static void back_tab(struct vt_screen *s, int n)
{
    int c = s->cur_col;
    while (n-- > 0 && c > 0) {
        c--;
        while (c > 0 && !s->tabs[c])
            c--;
    }
    move_to(s, s->cur_row, c);
}

static void execute(void *ud, unsigned char c)
{
    struct vt_screen *s = ud;
    s->last_char = 0; /* REP repeats only a character right before it */
    switch (c) {
    case 0x00: /* NUL */
    case 0x05: /* ENQ: no answerback */
    case 0x07: /* BEL */
    case 0x11: /* XON, XOFF */
    case 0x13:
        break;
    case 0x08: /* BS */
        move_to(s, s->cur_row, s->cur_col - 1);
        break;
    case 0x09:
        tab(s, 1);
        break;
    case 0x0A:
    case 0x0B:
    case 0x0C:
        s->wrap_pending = false;
        vt_index(s);
        if (s->newline)
            s->cur_col = 0;
        break;
    case 0x0D:
        move_to(s, s->cur_row, 0);
        break;
    case 0x0E: /* SO */
        s->gl = 1;
        update_charset(s);
        break;
    case 0x0F: /* SI */
        s->gl = 0;
        update_charset(s);
        break;
    default:
        s->dropped++;
        break;
    }
}

static void esc(void *ud, const char *inter, int ninter, char final)
{
    struct vt_screen *s = ud;
    s->last_char = 0;
    if (ninter == 0) {
        switch (final) {
        case '7':
            save_cursor(s);
            return;
        case '8':
            restore_cursor(s);
            return;
        case '=':
            s->app_keypad = true;
            return;
        case '>':
            s->app_keypad = false;
            return;
        case 'D':
            s->wrap_pending = false;
            vt_index(s);
            return;
        case 'E':
            s->wrap_pending = false;
            vt_index(s);
            s->cur_col = 0;
            return;
        case 'H':
            s->tabs[s->cur_col] = 1;
            return;
        case 'M':
            s->wrap_pending = false;
            vt_reverse_index(s);
            return;
        case 'c':
            full_reset(s);
            return;
        case 'Z':
            reply(s, "\x1b[?1;2c");
            return;
        case '\\': /* ST with nothing open */
            return;
        default:
            break;
        }
    } else if (ninter == 1) {
        int slot = inter[0] == '('   ? 0
                   : inter[0] == ')' ? 1
                   : inter[0] == '*' ? 2
                   : inter[0] == '+' ? 3
                                     : -1;
        if (slot >= 0 && (final == '0' || final == 'A' || final == 'B')) {
            s->g[slot] = final;
            update_charset(s);
            return;
        }
        if (inter[0] == '%' && (final == 'G' || final == '@'))
            return; /* UTF-8 is always on */
        if (inter[0] == '#' && final == '8') {
            s->top = 0;
            s->bottom = s->rows - 1;
            s->origin = false;
            s->pen.attrs = 0; /* colours stay */
            vt_update_blank(s);
            vt_fill_e(s);
            move_to(s, 0, 0);
            return;
        }
    }
    s->dropped++;
}

/* Colour from SGR 38/48/58 at params[i]; returns how many parameters it
 * took after the 38 itself. *ok false when malformed. */
static int ext_colour(const struct vt_csi *q, int i, uint32_t *out, bool *ok)
{
    *ok = false;
    bool colon = i + 1 < q->nparams && (q->sub >> (i + 1) & 1);
    if (colon) {
        /* 38:5:n, 38:2:r:g:b or 38:2:cs:r:g:b */
        int n = 0;
        while (i + 1 + n < q->nparams && (q->sub >> (i + 1 + n) & 1))
            n++;
        const int *p = &q->params[i + 1];
        if (p[0] == 5 && n >= 2) {
            *out = VT_COLOR_INDEX(clamp(p[1], 0, 255));
            *ok = true;
        } else if (p[0] == 2 && n >= 4) {
            const int *rgb = n >= 5 ? p + 2 : p + 1;
            *out = VT_COLOR_RGB((uint32_t)clamp(rgb[0], 0, 255) << 16 |
                                (uint32_t)clamp(rgb[1], 0, 255) << 8 |
                                (uint32_t)clamp(rgb[2], 0, 255));
            *ok = true;
        }
        return n;
    }
    if (i + 1 >= q->nparams)
        return 0;
    int kind = q->params[i + 1];
    if (kind == 5 && i + 2 < q->nparams) {
        *out = VT_COLOR_INDEX(clamp(q->params[i + 2], 0, 255));
        *ok = true;
        return 2;
    }
    if (kind == 2 && i + 4 < q->nparams) {
        *out = VT_COLOR_RGB((uint32_t)clamp(q->params[i + 2], 0, 255) << 16 |
                            (uint32_t)clamp(q->params[i + 3], 0, 255) << 8 |
                            (uint32_t)clamp(q->params[i + 4], 0, 255));
        *ok = true;
        return 4;
    }
    return q->nparams - i - 1; /* malformed: the rest is its */
}

static void sgr(struct vt_screen *s, const struct vt_csi *q)
{
    struct vt_pen *pen = &s->pen;
    for (int i = 0; i < q->nparams; i++) {
        if (q->sub >> i & 1)
            continue; /* a sub-parameter of something not understood */
        int p = q->params[i] < 0 ? 0 : q->params[i];
        bool has_sub = i + 1 < q->nparams && (q->sub >> (i + 1) & 1);
        switch (p) {
        case 0:
            memset(pen, 0, sizeof *pen);
            break;
        case 1:
            pen->attrs |= VT_BOLD;
            break;
        case 2:
            pen->attrs |= VT_DIM;
            break;
        case 3:
            pen->attrs |= VT_ITALIC;
            break;
        case 4:
            pen->attrs &= (uint16_t) ~(VT_UNDERLINE | VT_DOUBLE_UNDERLINE);
            if (has_sub) {
                int style = q->params[i + 1];
                if (style == 2)
                    pen->attrs |= VT_DOUBLE_UNDERLINE;
                else if (style > 0)
                    pen->attrs |= VT_UNDERLINE;
            } else {
                pen->attrs |= VT_UNDERLINE;
            }
            break;
        case 5:
        case 6:
            pen->attrs |= VT_BLINK;
            break;
        case 7:
            pen->attrs |= VT_REVERSE;
            break;
        case 8:
            pen->attrs |= VT_CONCEAL;
            break;
        case 9:
            pen->attrs |= VT_STRIKE;
            break;
        case 21:
            pen->attrs &= (uint16_t)~VT_UNDERLINE;
            pen->attrs |= VT_DOUBLE_UNDERLINE;
            break;
        case 22:
            pen->attrs &= (uint16_t) ~(VT_BOLD | VT_DIM);
            break;
        case 23:
            pen->attrs &= (uint16_t)~VT_ITALIC;
            break;
        case 24:
            pen->attrs &= (uint16_t) ~(VT_UNDERLINE | VT_DOUBLE_UNDERLINE);
            break;
        case 25:
            pen->attrs &= (uint16_t)~VT_BLINK;
            break;
        case 27:
            pen->attrs &= (uint16_t)~VT_REVERSE;
            break;
        case 28:
            pen->attrs &= (uint16_t)~VT_CONCEAL;
            break;
        case 29:
            pen->attrs &= (uint16_t)~VT_STRIKE;
            break;
        case 38:
        case 48:
        case 58: {
            uint32_t c = 0;
            bool ok;
            i += ext_colour(q, i, &c, &ok);
            if (ok && p == 38)
                pen->fg = c;
            else if (ok && p == 48)
                pen->bg = c;
            break; /* 58, the underline colour, is not shown */
        }
        case 39:
            pen->fg = VT_COLOR_DEFAULT;
            break;
        case 49:
            pen->bg = VT_COLOR_DEFAULT;
            break;
        default:
            if (p >= 30 && p <= 37)
                pen->fg = VT_COLOR_INDEX(p - 30);
            else if (p >= 40 && p <= 47)
                pen->bg = VT_COLOR_INDEX(p - 40);
            else if (p >= 90 && p <= 97)
                pen->fg = VT_COLOR_INDEX(p - 90 + 8);
            else if (p >= 100 && p <= 107)
                pen->bg = VT_COLOR_INDEX(p - 100 + 8);
            /* Fonts, overline, frames and the like: not shown. */
            break;
        }
        while (i + 1 < q->nparams && (q->sub >> (i + 1) & 1))
            i++;
    }
    vt_update_blank(s);
}

static void colour_sgr(char *buf, size_t size, size_t *len, int base, uint32_t c)
{
    int n = 0;
    if (VT_COLOR_KIND(c) == 1) {
        int i = (int)(c & 0xFF);
        if (i < 8)
            n = snprintf(buf + *len, size - *len, ";%d", base + i);
        else if (i < 16)
            n = snprintf(buf + *len, size - *len, ";%d", base + 60 + i - 8);
        else
            n = snprintf(buf + *len, size - *len, ";%d;5;%d", base + 8, i);
    } else if (VT_COLOR_KIND(c) == 2) {
        n = snprintf(buf + *len, size - *len, ";%d;2;%u;%u;%u", base + 8, c >> 16 & 0xFF,
                     c >> 8 & 0xFF, c & 0xFF);
    }
    if (n > 0 && (size_t)n < size - *len)
        *len += (size_t)n;
}

void vt_screen_sgr_string(const struct vt_screen *s, char *buf, size_t size)
{
    static const struct {
        uint16_t attr;
        const char *code;
    } codes[] = {{VT_BOLD, ";1"},      {VT_DIM, ";2"},    {VT_ITALIC, ";3"},
                 {VT_UNDERLINE, ";4"}, {VT_BLINK, ";5"},  {VT_REVERSE, ";7"},
                 {VT_CONCEAL, ";8"},   {VT_STRIKE, ";9"}, {VT_DOUBLE_UNDERLINE, ";21"}};
    size_t len = (size_t)snprintf(buf, size, "0");
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if ((s->pen.attrs & codes[i].attr) && len + strlen(codes[i].code) < size) {
            memcpy(buf + len, codes[i].code, strlen(codes[i].code) + 1);
            len += strlen(codes[i].code);
        }
    colour_sgr(buf, size, &len, 30, s->pen.fg);
    colour_sgr(buf, size, &len, 40, s->pen.bg);
}

static void set_dec_mode(struct vt_screen *s, int mode, bool on)
{
    switch (mode) {
    case 1:
        s->app_cursor = on;
        break;
    case 5:
        if (s->reverse_screen != on) {
            s->reverse_screen = on;
            s->changes++;
        }
        break;
    case 6:
        s->origin = on;
        move_origin(s, 0, 0);
        break;
    case 7:
        s->autowrap = on;
        if (!on)
            s->wrap_pending = false;
        break;
    case 12: /* cursor blink */
        break;
    case 25:
        if (s->cursor_visible != on) {
            s->cursor_visible = on;
            s->changes++;
        }
        break;
    case 66:
        s->app_keypad = on;
        break;
    case 9:
    case 1000:
    case 1001:
    case 1002:
    case 1003:
        s->mouse = on ? mode : 0;
        break;
    case 1005:
    case 1006:
    case 1015:
        break; /* mouse encodings: tracked with the mode, nothing to send */
    case 1004:
        s->focus_events = on;
        break;
    case 47:
    case 1047: /* 1047 clears the alternate screen when leaving it */
        if (!on && s->alt && mode == 1047)
            vt_clear_all(s);
        vt_set_alt(s, on);
        break;
    case 1048:
        if (on)
            save_cursor(s);
        else
            restore_cursor(s);
        break;
    case 1049: /* as xterm: restored even without a switch */
        if (on && !s->alt) {
            save_cursor(s);
            vt_set_alt(s, true);
            vt_clear_all(s);
        } else if (!on) {
            vt_set_alt(s, false);
            restore_cursor(s);
        }
        break;
    case 2004:
        s->bracketed_paste = on;
        break;
    default:
        s->dropped++;
        break;
    }
}

/* DECRQM: 1 set, 2 reset, 0 not recognised. */
static int dec_mode_state(const struct vt_screen *s, int mode)
{
    bool v;
    switch (mode) {
    case 1:
        v = s->app_cursor;
        break;
    case 5:
        v = s->reverse_screen;
        break;
    case 6:
        v = s->origin;
        break;
    case 7:
        v = s->autowrap;
        break;
    case 25:
        v = s->cursor_visible;
        break;
    case 66:
        v = s->app_keypad;
        break;
    case 47:
    case 1047:
    case 1049:
        v = s->alt;
        break;
    case 1004:
        v = s->focus_events;
        break;
    case 2004:
        v = s->bracketed_paste;
        break;
    case 9:
    case 1000:
    case 1001:
    case 1002:
    case 1003:
        v = s->mouse == mode;
        break;
    default:
        return 0;
    }
    return v ? 1 : 2;
}

static void set_ansi_mode(struct vt_screen *s, int mode, bool on)
{
    if (mode == 4)
        s->insert = on;
    else if (mode == 20)
        s->newline = on;
    else
        s->dropped++;
}

static void erase_display(struct vt_screen *s, int how)
{
    switch (how) {
    case 0:
        vt_erase(s, s->cur_row, s->cur_col, s->cols);
        for (int r = s->cur_row + 1; r < s->rows; r++)
            vt_erase(s, r, 0, s->cols);
        break;
    case 1:
        for (int r = 0; r < s->cur_row; r++)
            vt_erase(s, r, 0, s->cols);
        vt_erase(s, s->cur_row, 0, s->cur_col + 1);
        break;
    case 2:
        vt_clear_all(s);
        break;
    case 3: /* the scrollback: kept, as a reader may still want it */
        break;
    default:
        s->dropped++;
        break;
    }
}

static void erase_line(struct vt_screen *s, int how)
{
    if (how == 0)
        vt_erase(s, s->cur_row, s->cur_col, s->cols);
    else if (how == 1)
        vt_erase(s, s->cur_row, 0, s->cur_col + 1);
    else if (how == 2)
        vt_erase(s, s->cur_row, 0, s->cols);
    else
        s->dropped++;
}

static bool in_region(const struct vt_screen *s)
{
    return s->cur_row >= s->top && s->cur_row <= s->bottom;
}

static void repeat(struct vt_screen *s, int n)
{
    if (!s->last_char)
        return;
    /* At most a row's worth: a program cannot make one sequence cost more
     * than one screen line. */
    if (n > s->cols)
        n = s->cols;
    /* The whole character: its combining marks too. */
    uint32_t c[VT_CELL_CHARS] = {s->last_char};
    memcpy(c + 1, s->last_marks, sizeof s->last_marks);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < VT_CELL_CHARS && c[k]; k++)
            vt_print(s, c[k]);
}

/* CSI with no leader and no intermediate. */
static void csi_plain(struct vt_screen *s, const struct vt_csi *q)
{
    int n = arg(q, 0, 1);
    switch (q->final) {
    case '@':
        s->wrap_pending = false;
        vt_insert_cells(s, n);
        break;
    case 'A':
        move_to(s, s->cur_row - n < s->top && in_region(s) ? s->top : s->cur_row - n, s->cur_col);
        break;
    case 'B':
    case 'e':
        move_to(s, s->cur_row + n > s->bottom && in_region(s) ? s->bottom : s->cur_row + n,
                s->cur_col);
        break;
    case 'C':
    case 'a':
        move_to(s, s->cur_row, s->cur_col + n);
        break;
    case 'D':
        move_to(s, s->cur_row, s->cur_col - n);
        break;
    case 'E':
        move_to(s, s->cur_row + n > s->bottom && in_region(s) ? s->bottom : s->cur_row + n, 0);
        break;
    case 'F':
        move_to(s, s->cur_row - n < s->top && in_region(s) ? s->top : s->cur_row - n, 0);
        break;
    case 'G':
    case '`':
        move_to(s, s->cur_row, n - 1);
        break;
    case 'H':
    case 'f':
        move_origin(s, arg(q, 0, 1) - 1, arg(q, 1, 1) - 1);
        break;
    case 'I':
        tab(s, n);
        break;
    case 'J':
        erase_display(s, arg0(q, 0));
        break;
    case 'K':
        erase_line(s, arg0(q, 0));
        break;
    case 'L':
        if (in_region(s)) {
            vt_scroll_down(s, s->cur_row, s->bottom, n);
            move_to(s, s->cur_row, 0);
        }
        break;
    case 'M':
        if (in_region(s)) {
            vt_scroll_up(s, s->cur_row, s->bottom, n, false);
            move_to(s, s->cur_row, 0);
        }
        break;
    case 'P':
        s->wrap_pending = false;
        vt_delete_cells(s, n);
        break;
    case 'S':
        vt_scroll_up(s, s->top, s->bottom, n, true);
        break;
    case 'T':
        if (q->nparams > 1)
            s->dropped++; /* mouse highlight tracking */
        else
            vt_scroll_down(s, s->top, s->bottom, n);
        break;
    case 'X':
        s->wrap_pending = false;
        vt_erase(s, s->cur_row, s->cur_col, s->cur_col + n);
        break;
    case 'Z':
        back_tab(s, n);
        break;
    case 'b':
        repeat(s, n);
        break;
    case 'c':
        if (arg0(q, 0) == 0)
            reply(s, "\x1b[?1;2c");
        break;
    case 'd':
        move_origin(s, n - 1, s->cur_col);
        break;
    case 'g':
        if (arg0(q, 0) == 0)
            s->tabs[s->cur_col] = 0;
        else if (arg0(q, 0) == 3)
            memset(s->tabs, 0, (size_t)s->cols);
        break;
    case 'h':
    case 'l':
        for (int i = 0; i < q->nparams; i++)
            set_ansi_mode(s, q->params[i], q->final == 'h');
        break;
    case 'm':
        sgr(s, q);
        break;
    case 'n':
        if (arg0(q, 0) == 5) {
            reply(s, "\x1b[0n");
        } else if (arg0(q, 0) == 6) {
            int row = s->origin ? s->cur_row - s->top : s->cur_row;
            reply(s, "\x1b[%d;%dR", row + 1, s->cur_col + 1);
        }
        break;
    case 'r': {
        int top = arg(q, 0, 1) - 1, bottom = arg(q, 1, s->rows) - 1;
        if (bottom > s->rows - 1)
            bottom = s->rows - 1;
        if (top < bottom) {
            s->top = top;
            s->bottom = bottom;
            move_origin(s, 0, 0);
        }
        break;
    }
    case 's':
        save_cursor(s);
        break;
    case 'u':
        restore_cursor(s);
        break;
    default:
        s->dropped++; /* window operations (t) and the rest */
        break;
    }
}

static void csi(void *ud, const struct vt_csi *q)
{
    struct vt_screen *s = ud;
    if (q->ninter == 0 && q->leader == 0) {
        csi_plain(s, q);
        s->last_char = 0; /* after REP too, as xterm */
        return;
    }
    s->last_char = 0;
    if (q->ninter == 0 && q->leader == '?') {
        switch (q->final) {
        case 'h':
        case 'l':
            for (int i = 0; i < q->nparams; i++)
                set_dec_mode(s, q->params[i], q->final == 'h');
            return;
        case 'J':
            erase_display(s, arg0(q, 0));
            return;
        case 'K':
            erase_line(s, arg0(q, 0));
            return;
        case 'n':
            if (arg0(q, 0) == 6) {
                int row = s->origin ? s->cur_row - s->top : s->cur_row;
                reply(s, "\x1b[?%d;%dR", row + 1, s->cur_col + 1);
                return;
            }
            break;
        default:
            break;
        }
    } else if (q->ninter == 0 && q->leader == '>' && q->final == 'c') {
        if (arg0(q, 0) == 0)
            reply(s, "\x1b[>0;100;0c");
        return;
    } else if (q->ninter == 1 && q->inter[0] == '$' && q->final == 'p' &&
               (q->leader == '?' || q->leader == 0)) {
        int mode = q->params[0] < 0 ? 0 : q->params[0];
        int v;
        if (q->leader == '?')
            v = dec_mode_state(s, mode);
        else
            v = mode == 4 ? (s->insert ? 1 : 2) : mode == 20 ? (s->newline ? 1 : 2) : 0;
        reply(s, "\x1b[%s%d;%d$y", q->leader == '?' ? "?" : "", mode, v);
        return;
    } else if (q->ninter == 1 && q->leader == 0) {
        if (q->inter[0] == ' ' && q->final == 'q') {
            s->cursor_shape = clamp(arg0(q, 0), 0, 6);
            return;
        }
        if (q->inter[0] == '!' && q->final == 'p') {
            soft_reset(s);
            return;
        }
        if (q->inter[0] == '"' && q->final == 'q')
            return; /* DECSCA: nothing is protected here */
    }
    s->dropped++;
}

static void osc(void *ud, const char *data, size_t len)
{
    struct vt_screen *s = ud;
    s->last_char = 0;
    size_t i = 0;
    int num = 0;
    while (i < len && i < 6 && data[i] >= '0' && data[i] <= '9')
        num = num * 10 + (data[i++] - '0');
    if (i == 0 || i >= len || data[i] != ';') {
        s->dropped++;
        return;
    }
    i++;
    if (num == 0 || num == 2) {
        if (s->cbs.title)
            s->cbs.title(s->ud, data + i, len - i);
        s->changes++;
    } else if (num != 1) { /* the icon name is not shown anywhere */
        s->dropped++;
    }
}

static void dcs(void *ud, const struct vt_csi *hdr, const char *data, size_t len)
{
    struct vt_screen *s = ud;
    s->last_char = 0;
    if (!(hdr->final == 'q' && hdr->ninter == 1 && hdr->inter[0] == '$' && !hdr->leader)) {
        s->dropped++; /* sixel, tmux passthrough, termcap queries, ... */
        return;
    }
    /* DECRQSS. */
    char buf[96];
    if (len == 1 && data[0] == 'm') {
        vt_screen_sgr_string(s, buf, sizeof buf);
        reply(s, "\x1bP1$r%sm\x1b\\", buf);
    } else if (len == 1 && data[0] == 'r') {
        reply(s, "\x1bP1$r%d;%dr\x1b\\", s->top + 1, s->bottom + 1);
    } else if (len == 2 && data[0] == ' ' && data[1] == 'q') {
        reply(s, "\x1bP1$r%d q\x1b\\", s->cursor_shape ? s->cursor_shape : 1);
    } else {
        reply(s, "\x1bP0$r\x1b\\");
    }
}

static void print_ascii(void *ud, const char *text, size_t len)
{
    vt_print_ascii(ud, text, len);
}

static void print(void *ud, uint32_t cp)
{
    vt_print(ud, cp);
}

static const struct vt_parse_ops ops = {
    .print_ascii = print_ascii,
    .print = print,
    .execute = execute,
    .esc = esc,
    .csi = csi,
    .osc = osc,
    .dcs = dcs,
};

void vt_screen_feed(struct vt_screen *s, const char *bytes, size_t len)
{
    if (!s->parser.ops)
        vt_parse_init(&s->parser, &ops, s);
    vt_parse_feed(&s->parser, bytes, len);
}
