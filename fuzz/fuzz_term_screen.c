/* Fuzzes the terminal screen with arbitrary program output: glovebox's own
 * emulator (vt_parse, vt_screen, vt_control) and its scrollback must take any
 * bytes a program can print, at any screen size, resized at any point.
 * Input layout: byte 0 picks the screen size, then each chunk is one length
 * byte and that many bytes of output; a length of 0 resizes the screen (from
 * the next two bytes) instead, as a client's resize would in the middle of
 * output. Every reader runs after each chunk, and a key is pressed (encoded
 * by the modes the output set).
 *
 * Two screens take the same input: one clearing only the cells its rows used
 * (the default, fast) and one treating every row as full (the plain way).
 * Their text, cells, cursor and scrollback must agree: a difference aborts. */
#include "backend/terminal/term_keys.h"
#include "backend/terminal/term_screen.h"
#include "core/strbuf.h"
#include "image/cellgrid.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(const char *buf, size_t len, void *ud)
{
    (void)buf, (void)len, (void)ud;
}

static void same(struct term_screen *a, struct term_screen *b)
{
    char *ta = term_screen_text(a), *tb = term_screen_text(b);
    if (strcmp(ta, tb)) {
        fprintf(stderr, "text differs:\n%s\n----\n%s\n", ta, tb);
        abort();
    }
    free(ta);
    free(tb);
    char *ha = term_screen_scrollback_text(a, 5), *hb = term_screen_scrollback_text(b, 5);
    if (strcmp(ha, hb) || term_screen_scrollback_count(a) != term_screen_scrollback_count(b)) {
        fprintf(stderr, "scrollback differs:\n%s\n----\n%s\n", ha, hb);
        abort();
    }
    free(ha);
    free(hb);
    struct cell_grid ga, gb;
    term_screen_grid(a, &ga);
    term_screen_grid(b, &gb);
    if (ga.cols != gb.cols || ga.rows != gb.rows || ga.cursor_row != gb.cursor_row ||
        ga.cursor_col != gb.cursor_col || ga.cursor_visible != gb.cursor_visible ||
        memcmp(ga.cells, gb.cells, (size_t)ga.cols * (size_t)ga.rows * sizeof *ga.cells)) {
        fprintf(stderr, "cells or cursor differ\n");
        abort();
    }
    if (ga.cursor_row < 0 || ga.cursor_row >= ga.rows || ga.cursor_col < 0 ||
        ga.cursor_col >= ga.cols) {
        fprintf(stderr, "cursor off the screen\n");
        abort();
    }
    free(ga.cells);
    free(gb.cells);
    if (strcmp(term_screen_title(a), term_screen_title(b)) ||
        term_screen_altscreen(a) != term_screen_altscreen(b) ||
        term_screen_bracketed_paste(a) != term_screen_bracketed_paste(b) ||
        term_screen_dropped(a) != term_screen_dropped(b)) {
        fprintf(stderr, "title or modes differ\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"Up", "Home", "Enter", "shift+Tab", "ctrl+F5", "alt+x"};
    if (size < 1)
        return 0;
    int cols = 2 + data[0] % 100, rows = 1 + (data[0] / 100) * 10;
    struct term_screen *s = term_screen_create(cols, rows, 20);
    struct term_screen *plain = term_screen_create(cols, rows, 20);
    term_screen_set_fast_scroll(plain, false);
    term_screen_set_output(s, discard, NULL);
    term_screen_set_output(plain, discard, NULL);
    size_t i = 1;
    while (i < size) {
        size_t n = data[i++];
        if (n == 0) {
            if (i + 2 > size)
                break;
            term_screen_resize(s, 2 + data[i] % 120, 1 + data[i + 1] % 50);
            term_screen_resize(plain, 2 + data[i] % 120, 1 + data[i + 1] % 50);
            i += 2;
        } else {
            if (n > size - i)
                n = size - i;
            term_screen_feed(s, (const char *)data + i, n);
            term_screen_feed(plain, (const char *)data + i, n);
            term_keys_press(s, keys[n % (sizeof keys / sizeof keys[0])], NULL);
            i += n;
        }
        same(s, plain);
    }
    term_screen_destroy(s);
    term_screen_destroy(plain);
    return 0;
}
