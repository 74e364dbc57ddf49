/* The computer tool's model coordinate space (src/tools/computer_space.c):
 * the size screenshots are scaled to, and coordinates mapped back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/computer.h"

static void sizes_fit_what_models_take(void **state)
{
    (void)state;
    static const struct {
        int w, h, mw, mh;
    } cases[] = {
        {640, 480, 640, 480},    {1280, 800, 1280, 800},  {1024, 768, 1024, 768},
        {1920, 1200, 1356, 848}, {2560, 1600, 1356, 848}, {1920, 1080, 1429, 804},
        {3840, 2160, 1429, 804}, {1568, 300, 1568, 300},  {4000, 200, 1568, 78},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct computer_space sp;
        computer_space_of(cases[i].w, cases[i].h, &sp);
        assert_int_equal(sp.model_width, cases[i].mw);
        assert_int_equal(sp.model_height, cases[i].mh);
        assert_true(sp.model_width <= COMPUTER_MAX_SIDE && sp.model_height <= COMPUTER_MAX_SIDE);
        assert_true((long)sp.model_width * sp.model_height <= COMPUTER_MAX_PIXELS);
    }
}

/* Every model pixel lands on the screen and reads back as itself. */
static void every_model_pixel_maps_back_to_itself(void **state)
{
    (void)state;
    static const int sizes[][2] = {{640, 480}, {1920, 1200}, {2560, 1600}, {3840, 2160}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        struct computer_space sp;
        computer_space_of(sizes[i][0], sizes[i][1], &sp);
        for (int x = 0; x < sp.model_width; x++) {
            int y = x % sp.model_height, sx, sy, mx, my;
            assert_true(computer_to_screen(&sp, x, y, &sx, &sy));
            assert_true(sx >= 0 && sx < sp.width && sy >= 0 && sy < sp.height);
            computer_to_model(&sp, sx, sy, &mx, &my);
            assert_int_equal(mx, x);
            assert_int_equal(my, y);
        }
    }
}

static void outside_is_refused_never_clamped(void **state)
{
    (void)state;
    struct computer_space sp;
    computer_space_of(1920, 1200, &sp);
    int sx, sy;
    assert_false(computer_to_screen(&sp, -0.5, 0, &sx, &sy));
    assert_false(computer_to_screen(&sp, 0, -1, &sx, &sy));
    assert_false(computer_to_screen(&sp, sp.model_width, 0, &sx, &sy));
    assert_false(computer_to_screen(&sp, 0, sp.model_height, &sx, &sy));
    assert_true(computer_to_screen(&sp, sp.model_width - 0.5, sp.model_height - 1, &sx, &sy));
    assert_int_equal(sx, 1919);
    assert_int_equal(sy, 1199);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_fit_what_models_take),
        cmocka_unit_test(every_model_pixel_maps_back_to_itself),
        cmocka_unit_test(outside_is_refused_never_clamped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
