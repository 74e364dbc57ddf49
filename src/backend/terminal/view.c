/* The terminal as the live viewer first shows it (src/viewer/): a page that
 * joins late cannot replay the program's whole output, so it gets the
 * screen redrawn as escape sequences — every cell with its colours and
 * attributes, then the cursor and the modes that change how what follows
 * is drawn (the alternate screen, a hidden cursor, bracketed paste) —
 * after which the raw output continues where this leaves off. */
#include "backend/terminal/internal.h"
#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"
#include "image/cellgrid.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

static int encode_utf8(uint32_t cp, char *u)
{
    if (cp < 0x80) {
        u[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 63));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 63));
        u[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    u[0] = (char)(0xf0 | cp >> 18);
    u[1] = (char)(0x80 | ((cp >> 12) & 63));
    u[2] = (char)(0x80 | ((cp >> 6) & 63));
    u[3] = (char)(0x80 | (cp & 63));
    return 4;
}

static void sgr(struct strbuf *o, const struct cell *c)
{
    strbuf_puts(o, "\x1b[0");
    static const struct {
        uint16_t bit;
        const char *code;
    } attrs[] = {{CELL_BOLD, ";1"},   {CELL_DIM, ";2"},
                 {CELL_ITALIC, ";3"}, {CELL_UNDERLINE, ";4"},
                 {CELL_BLINK, ";5"},  {CELL_CONCEAL, ";8"},
                 {CELL_STRIKE, ";9"}, {CELL_DOUBLE_UNDERLINE, ";21"}};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (c->attrs & attrs[i].bit)
            strbuf_puts(o, attrs[i].code);
    strbuf_printf(o, ";38;2;%u;%u;%u;48;2;%u;%u;%um", c->fg >> 16, (c->fg >> 8) & 255, c->fg & 255,
                  c->bg >> 16, (c->bg >> 8) & 255, c->bg & 255);
}

char *terminal_view_replay(struct session *s, size_t *len, int *cols, int *rows)
{
    struct terminal *t = terminal_of(s);
    struct cell_grid g;
    term_screen_grid(t->screen, &g);
    struct strbuf o;
    strbuf_init(&o);
    /* Reset, then the screen the program draws on now. */
    strbuf_puts(&o, "\x1b[!p\x1b[?1049l\x1b[H\x1b[2J");
    if (term_screen_altscreen(t->screen))
        strbuf_puts(&o, "\x1b[?1049h\x1b[H\x1b[2J");
    const struct cell *prev = NULL;
    for (int r = 0; r < g.rows; r++) {
        strbuf_printf(&o, "\x1b[%d;1H", r + 1);
        for (int c = 0; c < g.cols; c++) {
            const struct cell *cell = &g.cells[r * g.cols + c];
            if (cell->width == 0)
                continue; /* the right half of a wide character */
            if (!prev || prev->fg != cell->fg || prev->bg != cell->bg || prev->attrs != cell->attrs)
                sgr(&o, cell);
            prev = cell;
            if (!cell->chars[0]) {
                strbuf_putc(&o, ' ');
                continue;
            }
            for (int k = 0; k < CELL_MAX_CHARS && cell->chars[k]; k++) {
                char u[4];
                strbuf_append(&o, u, (size_t)encode_utf8(cell->chars[k], u));
            }
        }
    }
    int crow, ccol;
    bool visible;
    term_screen_cursor(t->screen, &crow, &ccol, &visible);
    strbuf_printf(&o, "\x1b[0m\x1b[%d;%dH\x1b[?25%c", crow + 1, ccol + 1, visible ? 'h' : 'l');
    if (term_screen_bracketed_paste(t->screen))
        strbuf_puts(&o, "\x1b[?2004h");
    *cols = g.cols;
    *rows = g.rows;
    free(g.cells);
    *len = o.len;
    return strbuf_steal(&o);
}

/* Past this many bytes queued for a program that does not read, a
 * person's keys are dropped rather than queued without bound. */
#define VIEW_INPUT_MAX_QUEUED (1u << 20)

void terminal_view_input(struct session *s, const char *bytes, size_t len)
{
    struct terminal *t = terminal_of(s);
    if (t->master < 0 || t->outq.len > VIEW_INPUT_MAX_QUEUED)
        return;
    terminal_write(t, bytes, len);
}
