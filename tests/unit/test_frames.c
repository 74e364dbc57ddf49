/* The frame pipeline every kind shares: default fit (long side, bytes),
 * explicit max_width and fit: false, redaction of the gate's and the
 * backend's rectangles, cropping for sources that cannot grab a region, and
 * inline image vs link — through a fake frame source, as a backend sees it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <spng.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "backend/frames.h"
#include "core/app.h"
#include "session/session.h"

struct source {
    uint32_t width, height;
    bool noise; /* random pixels: a PNG far over FRAMES_FIT_BYTES */
    struct screen_rect secret;
    int n_secrets;
};

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    (void)rq;
    (void)err;
    struct source *s = ud;
    frame_alloc(&out->frame, s->width, s->height);
    uint32_t seed = 1;
    for (uint32_t y = 0; y < s->height; y++)
        for (uint32_t x = 0; x < s->width; x++) {
            uint8_t *p = out->frame.rgba + (size_t)y * out->frame.stride + (size_t)x * 4;
            seed = seed * 1103515245u + 12345u;
            p[0] = s->noise ? (uint8_t)(seed >> 24) : 0;
            p[1] = s->noise ? (uint8_t)(seed >> 16) : 200;
            p[2] = s->noise ? (uint8_t)(seed >> 8) : 0;
            p[3] = 255;
        }
    for (int i = 0; i < s->n_secrets; i++)
        out->secrets[out->n_secrets++] = s->secret;
    return true;
}

struct answer {
    bool done;
    struct backend_result r;
};

static void finish(struct backend_call *bc, struct backend_result *r)
{
    struct answer *a = bc->owner;
    a->done = true;
    a->r = *r;
}

/* Runs one screenshot with args (a JSON text) and guard through the
 * pipeline; the answer's contents are the caller's. */
static struct answer shoot(struct source *src, const char *args, const struct screen_guard *guard)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct app app = {.loop = &loop};
    struct session s = {.id = "fake-1"};
    struct answer a = {0};
    json_t *j = json_loads(args, 0, NULL);
    assert_non_null(j);
    struct backend_call bc = {
        .session = &s, .args = j, .app = &app, .guard = guard, .owner = &a, .finish = finish};
    frames_screenshot(&bc, &(struct frame_source){.produce = produce, .ud = src, .failure = "no"});
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    json_decref(j);
    assert_true(a.done);
    assert_null(a.r.error);
    return a;
}

static void answer_free(struct answer *a)
{
    json_decref(a->r.data);
    free(a->r.bytes);
    free(a->r.text);
    free(a->r.uri);
}

static int data_int(const struct answer *a, const char *key)
{
    return (int)json_integer_value(json_object_get(a->r.data, key));
}

static double data_scale(const struct answer *a)
{
    return json_number_value(json_object_get(a->r.data, "scale"));
}

/* The decoded RGBA pixel at x,y of the answer's PNG. */
static void decoded_pixel(const struct answer *a, uint32_t x, uint32_t y, uint8_t out[4])
{
    spng_ctx *ctx = spng_ctx_new(0);
    assert_int_equal(spng_set_png_buffer(ctx, a->r.bytes, a->r.len), 0);
    size_t size;
    assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &size), 0);
    uint8_t *px = malloc(size);
    assert_int_equal(spng_decode_image(ctx, px, size, SPNG_FMT_RGBA8, 0), 0);
    struct spng_ihdr ihdr;
    spng_get_ihdr(ctx, &ihdr);
    memcpy(out, px + ((size_t)y * ihdr.width + x) * 4, 4);
    free(px);
    spng_ctx_free(ctx);
}

static void test_a_full_hd_screen_fits_1568_wide(void **state)
{
    (void)state;
    struct source src = {.width = 1920, .height = 1080};
    struct answer a = shoot(&src, "{}", &screen_guard_none);
    assert_int_equal(a.r.kind, BACKEND_RESULT_IMAGE);
    assert_int_equal(data_int(&a, "width"), 1568);
    assert_int_equal(data_int(&a, "height"), 882);
    assert_true(data_scale(&a) > 0.8166 && data_scale(&a) < 0.8167);
    answer_free(&a);
}

static void test_a_small_screen_stays_full_size(void **state)
{
    (void)state;
    struct source src = {.width = 1200, .height = 760};
    struct answer a = shoot(&src, "{}", &screen_guard_none);
    assert_int_equal(data_int(&a, "width"), 1200);
    assert_true(data_scale(&a) == 1.0);
    answer_free(&a);
}

static void test_a_tall_screen_fits_by_its_height(void **state)
{
    (void)state;
    struct source src = {.width = 800, .height = 3136};
    struct answer a = shoot(&src, "{}", &screen_guard_none);
    assert_int_equal(data_int(&a, "height"), 1568);
    assert_int_equal(data_int(&a, "width"), 400);
    answer_free(&a);
}

static void test_an_image_over_a_megabyte_is_made_smaller(void **state)
{
    (void)state;
    struct source src = {.width = 1400, .height = 900, .noise = true};
    struct answer a = shoot(&src, "{}", &screen_guard_none);
    assert_true(a.r.len <= FRAMES_FIT_BYTES);
    assert_true(data_int(&a, "width") < 1400);
    /* scale still maps image coordinates back to the screen's */
    assert_true(fabs(data_scale(&a) - data_int(&a, "width") / 1400.0) < 1e-9);
    answer_free(&a);
    /* fit: false opts out: the screen's own size, however many bytes. */
    a = shoot(&src, "{\"fit\": false}", &screen_guard_none);
    assert_int_equal(data_int(&a, "width"), 1400);
    assert_true(a.r.len > FRAMES_FIT_BYTES);
    answer_free(&a);
}

static void test_max_width_and_fit_false_override_the_default(void **state)
{
    (void)state;
    struct source src = {.width = 1920, .height = 1080};
    struct answer a = shoot(&src, "{\"max_width\": 1800}", &screen_guard_none);
    assert_int_equal(data_int(&a, "width"), 1800);
    answer_free(&a);
    a = shoot(&src, "{\"fit\": false}", &screen_guard_none);
    assert_int_equal(data_int(&a, "width"), 1920);
    assert_true(data_scale(&a) == 1.0);
    answer_free(&a);
}

static void test_the_guard_and_the_backends_secrets_are_painted_over(void **state)
{
    (void)state;
    struct source src = {.width = 200, .height = 100, .secret = {150, 50, 10, 10}, .n_secrets = 1};
    const struct screen_rect rects[] = {{10, 20, 30, 40}, {500, 500, 5, 5}};
    struct screen_guard guard = {.redact = rects, .n_redact = 2};
    struct answer a = shoot(&src, "{}", &guard);
    assert_int_equal(data_int(&a, "redacted"), 2); /* the one off the screen does not count */
    uint8_t px[4];
    decoded_pixel(&a, 20, 30, px);
    assert_memory_equal(px, ((uint8_t[]){0x60, 0x60, 0x60, 0xff}), 4);
    decoded_pixel(&a, 155, 55, px);
    assert_memory_equal(px, ((uint8_t[]){0x60, 0x60, 0x60, 0xff}), 4);
    decoded_pixel(&a, 100, 10, px);
    assert_memory_equal(px, ((uint8_t[]){0, 200, 0, 0xff}), 4);
    answer_free(&a);
}

static void test_a_region_is_cut_out_of_a_whole_frame(void **state)
{
    (void)state;
    struct source src = {.width = 200, .height = 100, .secret = {0, 0, 50, 50}, .n_secrets = 1};
    struct answer a =
        shoot(&src, "{\"region\": {\"x\": 40, \"y\": 40, \"width\": 20, \"height\": 20}}",
              &screen_guard_none);
    assert_int_equal(data_int(&a, "width"), 20);
    assert_int_equal(data_int(&a, "redacted"), 1);
    uint8_t px[4];
    decoded_pixel(&a, 5, 5, px); /* 45,45 on the screen: inside the secret */
    assert_memory_equal(px, ((uint8_t[]){0x60, 0x60, 0x60, 0xff}), 4);
    decoded_pixel(&a, 15, 15, px); /* 55,55: outside */
    assert_memory_equal(px, ((uint8_t[]){0, 200, 0, 0xff}), 4);
    answer_free(&a);
}

static void test_as_link_answers_with_the_screen_resource(void **state)
{
    (void)state;
    struct source src = {.width = 64, .height = 32};
    struct answer a = shoot(&src, "{\"as\": \"link\"}", &screen_guard_none);
    assert_int_equal(a.r.kind, BACKEND_RESULT_LINK);
    assert_string_equal(a.r.uri, "glovebox://session/fake-1/screen");
    assert_string_equal(a.r.mime, "image/png");
    assert_null(a.r.bytes);
    answer_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_full_hd_screen_fits_1568_wide),
        cmocka_unit_test(test_a_small_screen_stays_full_size),
        cmocka_unit_test(test_a_tall_screen_fits_by_its_height),
        cmocka_unit_test(test_an_image_over_a_megabyte_is_made_smaller),
        cmocka_unit_test(test_max_width_and_fit_false_override_the_default),
        cmocka_unit_test(test_the_guard_and_the_backends_secrets_are_painted_over),
        cmocka_unit_test(test_a_region_is_cut_out_of_a_whole_frame),
        cmocka_unit_test(test_as_link_answers_with_the_screen_resource),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
