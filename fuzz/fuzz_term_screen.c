/* Fuzzes the terminal screen with arbitrary program output: glovebox's own
 * emulator (vt_parse, vt_screen, vt_control) and its scrollback must take any
 * bytes a program can print, at any screen size, resized at any point. Input layout: byte 0 picks the
 * screen size, then each chunk is one length byte and that many bytes of
 * output; a length of 0 resizes the screen (from the next two bytes) instead,
 * as a client's resize would in the middle of output. Every reader runs after
 * each chunk. */
#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"
#include "image/cellgrid.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(const char *buf, size_t len, void *ud)
{
    (void)buf, (void)len, (void)ud;
}

static void read_everything(struct term_screen *s)
{
    char *text = term_screen_text(s);
    free(text);
    char *history = term_screen_scrollback_text(s, 5);
    free(history);
    struct cell_grid g;
    term_screen_grid(s, &g);
    free(g.cells);
    int row, col;
    bool visible;
    term_screen_cursor(s, &row, &col, &visible);
    (void)term_screen_title(s);
    (void)term_screen_altscreen(s);
    (void)term_screen_bracketed_paste(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int cols = 2 + data[0] % 100, rows = 1 + (data[0] / 100) * 10;
    struct term_screen *s = term_screen_create(cols, rows, 20);
    term_screen_set_output(s, discard, NULL);
    size_t i = 1;
    while (i < size) {
        size_t n = data[i++];
        if (n == 0) {
            if (i + 2 > size)
                break;
            term_screen_resize(s, 2 + data[i] % 120, 1 + data[i + 1] % 50);
            i += 2;
        } else {
            if (n > size - i)
                n = size - i;
            term_screen_feed(s, (const char *)data + i, n);
            i += n;
        }
        read_everything(s);
    }
    term_screen_destroy(s);
    return 0;
}
