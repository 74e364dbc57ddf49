/* Terminal cells rendered to pixels: what a user sees in a screenshot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "image/glyphs.h"

#include <stdlib.h>
#include <string.h>

#define BG     0x102030u
#define FG     0xf0e0d0u
#define RED    0xff0000u
#define CURSOR 0x00ff00u

struct fixture {
    struct glyph_renderer *r;
    int cw, ch;
    struct cell_grid grid;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    char *err = NULL;
    fx->r = glyph_renderer_create(NULL, 16, &err);
    if (!fx->r) {
        print_error("no font: %s\n", err);
        free(err);
        free(fx);
        return -1;
    }
    glyph_renderer_cell_size(fx->r, &fx->cw, &fx->ch);
    fx->grid.cols = 4;
    fx->grid.rows = 2;
    fx->grid.cells = calloc(8, sizeof(struct cell));
    for (int i = 0; i < 8; i++)
        fx->grid.cells[i] = (struct cell){.fg = FG, .bg = BG, .width = 1};
    fx->grid.cursor_color = CURSOR;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    glyph_renderer_destroy(fx->r);
    free(fx->grid.cells);
    free(fx);
    return 0;
}

static struct cell *cell(struct fixture *fx, int row, int col)
{
    return &fx->grid.cells[row * fx->grid.cols + col];
}

static uint32_t pixel(const struct frame *f, int x, int y)
{
    const uint8_t *p = f->rgba + (size_t)y * f->stride + (size_t)x * 4;
    assert_int_equal(p[3], 255);
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* How many pixels of the w×h cell-aligned box at (col,row) have colour rgb. */
static int count_colour(struct fixture *fx, const struct frame *f, int row, int col, int cols,
                        uint32_t rgb)
{
    int n = 0;
    for (int y = row * fx->ch; y < (row + 1) * fx->ch; y++)
        for (int x = col * fx->cw; x < (col + cols) * fx->cw; x++)
            n += pixel(f, x, y) == rgb;
    return n;
}

static void test_cell_size_is_sane_for_16px(void **state)
{
    struct fixture *fx = *state;
    assert_in_range(fx->cw, 6, 14);
    assert_in_range(fx->ch, 14, 24);
}

static void test_frame_covers_the_grid(void **state)
{
    struct fixture *fx = *state;
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_int_equal(f.width, 4 * fx->cw);
    assert_int_equal(f.height, 2 * fx->ch);
    assert_true(f.stride >= f.width * 4);
    frame_finish(&f);
}

static void test_blank_cell_is_its_background(void **state)
{
    struct fixture *fx = *state;
    cell(fx, 0, 1)->bg = RED;
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_int_equal(count_colour(fx, &f, 0, 0, 1, BG), fx->cw * fx->ch);
    assert_int_equal(count_colour(fx, &f, 0, 1, 1, RED), fx->cw * fx->ch);
    frame_finish(&f);
}

static void test_letter_has_foreground_pixels(void **state)
{
    struct fixture *fx = *state;
    cell(fx, 0, 0)->chars[0] = 'M';
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    /* Vertical stems of M are solid: some pixels are exactly fg. */
    assert_true(count_colour(fx, &f, 0, 0, 1, FG) > 4);
    assert_true(count_colour(fx, &f, 0, 0, 1, BG) > fx->cw * fx->ch / 3);
    /* Antialiased edges blend between the two. */
    int other =
        fx->cw * fx->ch - count_colour(fx, &f, 0, 0, 1, FG) - count_colour(fx, &f, 0, 0, 1, BG);
    assert_true(other > 0);
    frame_finish(&f);
}

/* Edges take 16 steps of coverage: one colour pair makes at most 17
 * colours, so a screen of up to 15 pairs fits a PNG palette. */
static void test_edges_have_sixteen_steps(void **state)
{
    struct fixture *fx = *state;
    const char *text = "@gMW&%#a";
    for (int i = 0; i < 8; i++)
        fx->grid.cells[i].chars[0] = (uint32_t)text[i];
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    uint32_t seen[64];
    int n = 0;
    for (uint32_t y = 0; y < f.height; y++)
        for (uint32_t x = 0; x < f.width; x++) {
            uint32_t c = pixel(&f, (int)x, (int)y);
            int i = 0;
            while (i < n && seen[i] != c)
                i++;
            if (i == n) {
                assert_true(n < 17);
                seen[n++] = c;
            }
        }
    assert_true(n > 2); /* still antialiased */
    frame_finish(&f);
}

/* A tall screen is painted in two halves on two threads: the same pixels
 * as each row painted alone, glyphs first seen in either half included. */
static void test_tall_screen_is_each_row_alone(void **state)
{
    struct fixture *fx = *state;
    enum { COLS = 12, ROWS = 30 };
    struct cell cells[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        cells[i] = (struct cell){.fg = FG - (uint32_t)(i % 7) * 0x100,
                                 .bg = i % 5 ? BG : RED,
                                 .width = 1,
                                 .chars = {(uint32_t)(0x21 + (i * 13) % 94)}};
    cells[3].attrs = CELL_BOLD | CELL_UNDERLINE;
    cells[ROWS * COLS - 5].chars[0] = 0x4e2d; /* a wide CJK glyph, last half */
    cells[ROWS * COLS - 5].width = 2;
    cells[ROWS * COLS - 4].width = 0;
    struct cell_grid tall = {.cols = COLS, .rows = ROWS, .cells = cells};
    struct frame f;
    glyph_renderer_render(fx->r, &tall, &f);
    for (int row = 0; row < ROWS; row++) {
        struct cell_grid one = {.cols = COLS, .rows = 1, .cells = cells + row * COLS};
        struct frame g;
        glyph_renderer_render(fx->r, &one, &g);
        assert_memory_equal(g.rgba, f.rgba + (size_t)row * fx->ch * f.stride,
                            (size_t)g.stride * g.height);
        frame_finish(&g);
    }
    frame_finish(&f);
}

static void test_wide_character_spans_two_cells(void **state)
{
    struct fixture *fx = *state;
    *cell(fx, 1, 1) = (struct cell){.chars = {0x4e2d}, .fg = FG, .bg = BG, .width = 2};
    /* The right half's own colours must not show through. */
    *cell(fx, 1, 2) = (struct cell){.fg = RED, .bg = RED, .width = 0};
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_int_equal(count_colour(fx, &f, 1, 2, 1, RED), 0);
    /* 中 (or the box drawn when no font has it) reaches into both halves. */
    assert_true(fx->cw * fx->ch - count_colour(fx, &f, 1, 1, 1, BG) > 0);
    assert_true(fx->cw * fx->ch - count_colour(fx, &f, 1, 2, 1, BG) > 0);
    frame_finish(&f);
}

static void test_cursor_cell_is_inverted(void **state)
{
    struct fixture *fx = *state;
    cell(fx, 0, 2)->chars[0] = 'M';
    fx->grid.cursor_visible = true;
    fx->grid.cursor_row = 0;
    fx->grid.cursor_col = 2;
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    /* Block in the cursor colour, glyph in the cell's background colour. */
    assert_true(count_colour(fx, &f, 0, 2, 1, CURSOR) > fx->cw * fx->ch / 3);
    assert_true(count_colour(fx, &f, 0, 2, 1, BG) > 4);
    assert_int_equal(count_colour(fx, &f, 0, 2, 1, FG), 0);
    frame_finish(&f);

    fx->grid.cursor_visible = false;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_int_equal(count_colour(fx, &f, 0, 2, 1, CURSOR), 0);
    frame_finish(&f);
}

static void test_cursor_on_right_half_covers_wide_character(void **state)
{
    struct fixture *fx = *state;
    *cell(fx, 0, 0) = (struct cell){.chars = {0x4e2d}, .fg = FG, .bg = BG, .width = 2};
    *cell(fx, 0, 1) = (struct cell){.fg = FG, .bg = BG, .width = 0};
    fx->grid.cursor_visible = true;
    fx->grid.cursor_col = 1;
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_true(count_colour(fx, &f, 0, 0, 1, CURSOR) > 0);
    assert_true(count_colour(fx, &f, 0, 1, 1, CURSOR) > 0);
    frame_finish(&f);
}

static void test_underline_and_conceal(void **state)
{
    struct fixture *fx = *state;
    cell(fx, 0, 0)->attrs = CELL_UNDERLINE; /* blank but underlined */
    cell(fx, 0, 1)->chars[0] = 'M';
    cell(fx, 0, 1)->attrs = CELL_CONCEAL | CELL_UNDERLINE; /* hidden entirely */
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_true(count_colour(fx, &f, 0, 0, 1, FG) >= fx->cw);
    assert_int_equal(count_colour(fx, &f, 0, 1, 1, BG), fx->cw * fx->ch);
    frame_finish(&f);
}

static void test_dim_blends_foreground_toward_background(void **state)
{
    struct fixture *fx = *state;
    *cell(fx, 0, 0) = (struct cell){
        .chars = {'M'}, .fg = 0xffffff, .bg = 0x000000, .width = 1, .attrs = CELL_DIM};
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_int_equal(count_colour(fx, &f, 0, 0, 1, 0xffffff), 0);
    assert_true(count_colour(fx, &f, 0, 0, 1, 0x7f7f7f) > 4);
    frame_finish(&f);
}

static void test_unknown_code_point_draws_a_box(void **state)
{
    struct fixture *fx = *state;
    cell(fx, 0, 0)->chars[0] = 0x10fffd; /* private use: no font has it */
    cell(fx, 0, 1)->chars[0] = 0x110000; /* not Unicode at all */
    struct frame f;
    glyph_renderer_render(fx->r, &fx->grid, &f);
    assert_true(count_colour(fx, &f, 0, 0, 1, FG) > fx->cw);
    assert_true(count_colour(fx, &f, 0, 1, 1, FG) > 0);
    frame_finish(&f);
}

static void test_indexed_render_uses_only_cell_colours(void **state)
{
    struct fixture *fx = *state;
    cell(fx, 0, 0)->chars[0] = 'g';
    cell(fx, 0, 1)->chars[0] = 'W';
    cell(fx, 0, 1)->fg = RED;
    fx->grid.cursor_visible = true;
    fx->grid.cursor_row = 1;
    fx->grid.cursor_col = 3;
    uint32_t palette[256];
    int len = 0;
    cellgrid_collect_palette(&fx->grid, palette, &len);
    assert_int_equal(len, 4); /* BG, FG, RED, CURSOR */
    uint8_t *idx;
    int w, h;
    glyph_renderer_render_indexed(fx->r, &fx->grid, palette, &len, &idx, &w, &h);
    assert_int_equal(len, 4); /* collect_palette already had every colour */
    assert_int_equal(w, 4 * fx->cw);
    assert_int_equal(h, 2 * fx->ch);
    int seen[4] = {0};
    for (int i = 0; i < w * h; i++) {
        assert_in_range(idx[i], 0, 3);
        seen[idx[i]]++;
    }
    for (int i = 0; i < 4; i++)
        assert_true(seen[i] > 0);
    /* The cursor cell is solid cursor colour. */
    for (int y = fx->ch; y < 2 * fx->ch; y++)
        for (int x = 3 * fx->cw; x < 4 * fx->cw; x++)
            assert_int_equal(palette[idx[y * w + x]], CURSOR);
    free(idx);
}

static void test_indexed_palette_overflow_maps_to_nearest(void **state)
{
    struct fixture *fx = *state;
    uint32_t palette[256];
    for (int i = 0; i < 256; i++)
        palette[i] = (uint32_t)i; /* shades of blue, 0x000000..0x0000ff */
    int len = 256;
    cell(fx, 0, 0)->bg = 0x010180; /* not present: nearest is 0x000080 */
    uint8_t *idx;
    int w, h;
    glyph_renderer_render_indexed(fx->r, &fx->grid, palette, &len, &idx, &w, &h);
    assert_int_equal(len, 256);
    assert_int_equal(palette[idx[0]], 0x000080);
    free(idx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cell_size_is_sane_for_16px, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_covers_the_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blank_cell_is_its_background, setup, teardown),
        cmocka_unit_test_setup_teardown(test_letter_has_foreground_pixels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_edges_have_sixteen_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tall_screen_is_each_row_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wide_character_spans_two_cells, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cursor_cell_is_inverted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cursor_on_right_half_covers_wide_character, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_underline_and_conceal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dim_blends_foreground_toward_background, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unknown_code_point_draws_a_box, setup, teardown),
        cmocka_unit_test_setup_teardown(test_indexed_render_uses_only_cell_colours, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_indexed_palette_overflow_maps_to_nearest, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
