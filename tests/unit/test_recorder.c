/* The shared recorder: only changed frames are kept, limits stop it and
 * keep what it has, and finishing writes a whole file and indexes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/app.h"
#include "image/frame.h"
#include "record/recorder.h"
#include "record/recordings.h"
#include "record/video.h"
#include "record/video_stream.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include <webp/demux.h>

static struct app app;
static char dir[] = "/tmp/glovebox-recorder-XXXXXX";

static int setup(void **state)
{
    (void)state;
    app.loop = uv_default_loop();
    app.data_dir = strdup(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    (void)!system(cmd);
    free(app.data_dir);
    recordings_clear();
    return 0;
}

static void fill(struct frame *f, uint8_t v)
{
    for (uint32_t y = 0; y < f->height; y++)
        memset(f->rgba + (size_t)y * f->stride, v, (size_t)f->width * 4);
}

static struct recorder *make(enum rec_format format, uint64_t max_bytes, uint64_t max_ms)
{
    struct recorder_options o = {format, 10, max_bytes, max_ms};
    char *err = NULL;
    struct recorder *r = recorder_create(&app, "test-1", &o, &err);
    assert_non_null(r);
    return r;
}

static bool solid_render(void *data, struct frame *out, char **err)
{
    (void)err;
    frame_init(out, 64, 48);
    fill(out, (uint8_t)(uintptr_t)data);
    return true;
}

static void solid_release(void *data)
{
    (void)data;
}

/* Frames offered faster than the encoder starts (libvpx takes a while):
 * the first is kept, and the newest; those between may be dropped. */
static void test_video_keeps_its_first_and_last_frames(void **state)
{
    (void)state;
    char *err = NULL;
    if (!video_available(&err)) {
        free(err);
        skip();
    }
    char path[256];
    snprintf(path, sizeof path, "%s/first-last.webm", dir);
    struct video_stream *vs = video_stream_create(path, 10, 0, &err);
    assert_non_null(vs);
    for (int i = 0; i < 5; i++)
        video_stream_offer(vs, (void *)(uintptr_t)(40 + 40 * i), solid_render, solid_release,
                           (uint64_t)i * 100);
    struct video_stream_result res;
    assert_true(video_stream_finish(vs, 500, &res, &err));
    assert_true(res.frames >= 2);
    assert_int_equal(res.frames + res.dropped, 5);
}

static void test_only_changes_are_kept(void **state)
{
    (void)state;
    struct recorder *r = make(REC_GIF, 1 << 20, 10000);
    struct frame f;
    frame_init(&f, 64, 48);
    assert_int_equal(recorder_push(r, &f, 0), RECORDER_KEPT);
    assert_int_equal(recorder_push(r, &f, 100), RECORDER_SAME);
    f.rgba[(10 * f.stride) + 20 * 4] = 200; /* one pixel */
    assert_int_equal(recorder_push(r, &f, 200), RECORDER_KEPT);
    assert_int_equal(recorder_push(r, &f, 300), RECORDER_SAME);
    assert_int_equal(recorder_frames(r), 2);
    assert_null(recorder_stopped_reason(r));
    recorder_finish_now(r, 400);
    const struct recording_info *info = recordings_at(recordings_count() - 1);
    assert_int_equal(info->frames, 2);
    assert_int_equal(info->duration_ms, 400);
    assert_string_equal(info->mime, "image/gif");
    FILE *fp = fopen(info->path, "rb");
    assert_non_null(fp);
    char magic[6];
    assert_int_equal(fread(magic, 1, 6, fp), 6);
    fclose(fp);
    assert_memory_equal(magic, "GIF89a", 6);
    frame_finish(&f);
}

static void test_max_bytes_keeps_the_frames_before(void **state)
{
    (void)state;
    /* The first frame (and the running picture) always fit; a whole new
     * picture after it does not. */
    struct recorder *r = make(REC_WEBP, 65536, 10000);
    struct frame f;
    frame_init(&f, 100, 100); /* 40,000 bytes */
    assert_int_equal(recorder_push(r, &f, 0), RECORDER_KEPT);
    fill(&f, 50);
    assert_int_equal(recorder_push(r, &f, 100), RECORDER_STOPPED);
    assert_non_null(strstr(recorder_stopped_reason(r), "max_bytes reached"));
    fill(&f, 90);
    assert_int_equal(recorder_push(r, &f, 200), RECORDER_STOPPED);
    assert_int_equal(recorder_frames(r), 1);
    recorder_finish_now(r, 5000);
    const struct recording_info *info = recordings_at(recordings_count() - 1);
    assert_int_equal(info->frames, 1);
    assert_int_equal(info->duration_ms, 100); /* when it stopped */
    assert_string_equal(info->mime, "image/webp");
    frame_finish(&f);
}

static void test_max_duration_stops(void **state)
{
    (void)state;
    struct recorder *r = make(REC_WEBP, 1 << 20, 1000);
    struct frame f;
    frame_init(&f, 32, 32);
    assert_int_equal(recorder_push(r, &f, 0), RECORDER_KEPT);
    fill(&f, 10);
    assert_int_equal(recorder_push(r, &f, 900), RECORDER_KEPT);
    fill(&f, 20);
    assert_int_equal(recorder_push(r, &f, 1001), RECORDER_STOPPED);
    assert_string_equal(recorder_stopped_reason(r), "max_duration_s reached (1 s)");
    recorder_finish_now(r, 3000);
    const struct recording_info *info = recordings_at(recordings_count() - 1);
    assert_int_equal(info->duration_ms, 1000);
    /* A player finds two frames. */
    FILE *fp = fopen(info->path, "rb");
    assert_non_null(fp);
    uint8_t buf[65536];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    WebPData data = {buf, n};
    WebPDemuxer *d = WebPDemux(&data);
    assert_non_null(d);
    assert_int_equal(WebPDemuxGetI(d, WEBP_FF_FRAME_COUNT), 2);
    assert_int_equal(WebPDemuxGetI(d, WEBP_FF_CANVAS_WIDTH), 32);
    WebPDemuxDelete(d);
    frame_finish(&f);
}

static void test_no_temporary_file_is_left(void **state)
{
    (void)state;
    char *path = NULL;
    asprintf(&path, "%s/recordings", dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)))
        assert_null(strstr(de->d_name, ".tmp-"));
    closedir(d);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_video_keeps_its_first_and_last_frames),
        cmocka_unit_test(test_only_changes_are_kept),
        cmocka_unit_test(test_max_bytes_keeps_the_frames_before),
        cmocka_unit_test(test_max_duration_stops),
        cmocka_unit_test(test_no_temporary_file_is_left),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
