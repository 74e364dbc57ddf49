/* vnc_connect's viewport {window}: the window's content from where its
 * title text is, on synthetic screens drawn the way window managers draw
 * them — macOS (no border, a centred title, traffic lights, a soft shadow,
 * a wallpaper gradient) and openbox (a 1-pixel border, a gradient bar with
 * a bevel, a separator, a handle at the bottom) — and text that is no
 * title (inside a window, on a panel along the screen's bottom). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backend/vnc/window_region.h"
#include "image/frame.h"

#include <stdlib.h>

static void fill(struct frame *f, int x, int y, int w, int h, uint32_t rgb)
{
    for (int r = y; r < y + h; r++)
        for (int c = x; c < x + w; c++) {
            uint8_t *p = f->rgba + (size_t)r * f->stride + (size_t)c * 4;
            p[0] = (uint8_t)(rgb >> 16), p[1] = (uint8_t)(rgb >> 8), p[2] = (uint8_t)rgb,
            p[3] = 255;
        }
}

/* Glyph-like marks: small dark boxes with gaps, as text is. */
static void text(struct frame *f, int x, int y, int w, int h, uint32_t rgb)
{
    for (int c = x; c + 4 <= x + w; c += 7)
        fill(f, c, y + (c / 7) % 3, 4, h - 3, rgb);
}

/* A wallpaper that changes slowly (no edges), 800x600. */
static void wallpaper(struct frame *f)
{
    frame_alloc(f, 800, 600);
    for (int y = 0; y < 600; y++)
        fill(f, 0, y, 800, 1, (uint32_t)((0x20 + y / 8) << 16 | (0x40 + y / 6) << 8 | 0x80));
}

/* A macOS window: content at 200,129 400x271, a 28-row bar and a separator above. */
static void mac_window(struct frame *f)
{
    wallpaper(f);
    /* A shadow ten pixels wide, darker nearer the window. */
    for (int d = 10; d >= 1; d--)
        for (int y = 100 - d; y < 400 + d; y++)
            for (int x = 200 - d; x < 600 + d; x++) {
                if (x >= 200 - d + 1 && x < 600 + d - 1 && y >= 100 - d + 1 && y < 400 + d - 1)
                    continue;
                uint8_t *p = f->rgba + (size_t)y * f->stride + (size_t)x * 4;
                for (int c = 0; c < 3; c++)
                    p[c] = (uint8_t)(p[c] * (100 - (11 - d) * 3) / 100);
            }
    fill(f, 200, 100, 400, 28, 0xececec);
    fill(f, 200, 128, 400, 1, 0xd0d0d0);
    fill(f, 200, 129, 400, 271, 0xffffff);
    fill(f, 208, 108, 12, 12, 0xff5f57);
    fill(f, 228, 108, 12, 12, 0xfebc2e);
    fill(f, 248, 108, 12, 12, 0x28c840);
    text(f, 350, 107, 100, 13, 0x4d4d4d);
    text(f, 220, 200, 120, 13, 0x000000); /* the content's own text */
}

static void mac_window_is_found(void **state)
{
    (void)state;
    struct frame f;
    mac_window(&f);
    struct vnc_rect got, title = {349, 106, 102, 15};
    assert_true(vnc_window_region(&f, &title, &got));
    assert_int_equal(got.x, 200);
    assert_int_equal(got.y, 129);
    assert_int_equal(got.w, 400);
    assert_int_equal(got.h, 271);
    /* OCR's box may be looser than the glyphs. */
    struct vnc_rect loose = {340, 101, 120, 24};
    assert_true(vnc_window_region(&f, &loose, &got));
    assert_int_equal(got.y, 129);
    assert_int_equal(got.w, 400);
    /* Text inside the window is no title. */
    struct vnc_rect inside = {219, 199, 122, 15};
    assert_false(vnc_window_region(&f, &inside, &got));
    /* The bar is among the title bar candidates. */
    struct vnc_rect bars[8];
    int n = vnc_title_bars(&f, bars, 8);
    bool seen = false;
    for (int i = 0; i < n; i++)
        seen |= bars[i].x <= 202 && bars[i].x + bars[i].w >= 598 && bars[i].y >= 98 &&
                bars[i].y <= 101 && bars[i].y + bars[i].h >= 127 && bars[i].y + bars[i].h <= 130;
    assert_true(seen);
    frame_finish(&f);
}

/* openbox's Clearlooks: frame 100..345 x 80..238, content 101,100 244x134. */
static void openbox_window_is_found(void **state)
{
    (void)state;
    struct frame f;
    frame_alloc(&f, 800, 600);
    fill(&f, 0, 0, 800, 600, 0x305070);
    fill(&f, 100, 80, 246, 159, 0x585a5d);
    for (int y = 81; y < 99; y++) {
        fill(&f, 101, y, 244, 1,
             (uint32_t)((0x98 - (y - 81)) << 16 | (0xb9 - (y - 81)) << 8 | 0xe2));
        fill(&f, 101, y, 1, 1, 0xadd3ff); /* the bevel */
    }
    fill(&f, 101, 99, 244, 1, 0x4e76a8);
    fill(&f, 101, 100, 244, 134, 0xffffff);
    fill(&f, 101, 235, 244, 3, 0xcfd0d1); /* the handle under a border line */
    fill(&f, 104, 83, 14, 12, 0xee5c10);  /* the icon */
    text(&f, 180, 84, 90, 12, 0xfbfcfe);
    struct vnc_rect got, title = {178, 83, 94, 14};
    assert_true(vnc_window_region(&f, &title, &got));
    assert_int_equal(got.x, 101);
    assert_int_equal(got.y, 100);
    assert_int_equal(got.w, 244);
    assert_int_equal(got.h, 134);
    frame_finish(&f);
}

/* A panel along the screen's bottom holds a title: no window under it. */
static void panel_text_is_no_window(void **state)
{
    (void)state;
    struct frame f;
    frame_alloc(&f, 800, 600);
    fill(&f, 0, 0, 800, 600, 0x305070);
    fill(&f, 0, 576, 800, 24, 0xdddddd);
    text(&f, 300, 582, 90, 12, 0x000000);
    struct vnc_rect got, title = {298, 581, 94, 14};
    assert_false(vnc_window_region(&f, &title, &got));
    frame_finish(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mac_window_is_found),
        cmocka_unit_test(openbox_window_is_found),
        cmocka_unit_test(panel_text_is_no_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
