/* Perception on a real desktop: zenity dialogs under Xvfb, read through
 * their accessibility tree, pressed by ref, and read by OCR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "backend/backend.h"
#include "backend/desktop/perceive/perceive.h"
#include "core/app.h"
#include "core/module.h"
#include "desktop_fixture.h"
#include "ocr/ocr.h"
#include "session/session.h"

static struct test_desktop desk;
static uv_loop_t loop;
static struct app app;
static struct session sess;
static struct perceive *perc;

static bool answered;
static char *got_error;
static json_t *got_data;
static char *got_text;
static struct perceive_target got_target;
static bool got_then;

static void finish(struct backend_call *bc, struct backend_result *r)
{
    answered = true;
    got_error = r->error;
    got_data = r->data;
    got_text = r->text;
    free(r->bytes);
    free(bc);
}

static void clear(void)
{
    free(got_error);
    free(got_text);
    json_decref(got_data);
    got_error = got_text = NULL;
    got_data = NULL;
    got_then = false;
}

static void then(struct backend_call *bc, const struct perceive_target *t)
{
    got_target = *t;
    got_then = true;
    backend_call_done(bc, NULL, "%s", t->by);
}

typedef void (*op_fn)(struct perceive *, struct backend_call *);

/* Run one operation to its answer; args is stolen. */
static void run_op(op_fn op, json_t *args)
{
    clear();
    struct backend_call *bc = calloc(1, sizeof *bc);
    bc->session = &sess;
    bc->args = args;
    bc->app = &app;
    bc->finish = finish;
    answered = false;
    op(perc, bc);
    while (!answered)
        uv_run(&loop, UV_RUN_ONCE);
    json_decref(args);
}

static void click_op(struct perceive *p, struct backend_call *bc)
{
    perceive_click(p, bc, false, then);
}

/* The element of the latest snapshot with this role and name, or NULL. */
static json_t *element(const char *role, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(got_data, "elements"), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "role")), role) == 0 &&
            (!name || strcmp(json_string_value(json_object_get(e, "name")), name) == 0))
            return e;
    }
    return NULL;
}

/* Snapshot until something with role/name shows up (the app is starting). */
static json_t *await_element(const char *app_name, const char *role, const char *name)
{
    for (int i = 0; i < 100; i++) {
        run_op(perceive_snapshot, json_pack("{s:s}", "app", app_name));
        json_t *e = got_error ? NULL : element(role, name);
        if (e)
            return e;
        usleep(100 * 1000);
    }
    fail_msg("no %s \"%s\" appeared; last: %s", role, name ? name : "*",
             got_error ? got_error : got_text);
    return NULL;
}

static char *read_fd(int fd)
{
    static char buf[4096];
    size_t n = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (n + 1 < sizeof buf && poll(&p, 1, 10000) > 0) {
        ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    return buf;
}

static int exit_of(pid_t pid)
{
    for (int i = 0; i < 100; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        usleep(100 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -2;
}

static void an_entry_dialog_is_read_and_pressed_through_its_tree(void **state)
{
    const char *const argv[] = {"zenity",    "--entry",      "--title", "Who", "--text",
                                "Your name", "--entry-text", "Ada",     NULL};
    int out;
    pid_t pid = test_desktop_spawn(&desk, argv, &out);
    json_t *ok = await_element("zenity", "push button", "OK");
    json_t *bounds = json_object_get(ok, "bounds");
    assert_non_null(bounds);
    assert_true(json_integer_value(json_object_get(bounds, "width")) > 10);
    json_t *entry = element("text", NULL);
    assert_non_null(entry);
    assert_string_equal(json_string_value(json_object_get(entry, "value")), "Ada");
    assert_non_null(strstr(got_text, "push button \"OK\""));
    assert_non_null(strstr(got_text, "label \"Your name\""));
    assert_non_null(strstr(got_text, "dialog \"Who\""));
    /* One window by its title; another title leaves everything out. */
    run_op(perceive_snapshot, json_pack("{s:s}", "window", "Who"));
    assert_non_null(element("push button", "OK"));
    run_op(perceive_snapshot, json_pack("{s:s}", "window", "Nobody"));
    assert_null(element("push button", "OK"));
    run_op(perceive_snapshot, json_pack("{s:s}", "app", "zenity"));
    ok = element("push button", "OK");
    char ok_ref[24];
    snprintf(ok_ref, sizeof ok_ref, "%s", json_string_value(json_object_get(ok, "ref")));

    /* find gives refs of its own, retiring the snapshot's. */
    run_op(perceive_find, json_pack("{s:s, s:s}", "text", "ok", "role", "push button"));
    assert_null(got_error);
    assert_int_equal(json_integer_value(json_object_get(got_data, "count")), 1);
    json_t *m = json_array_get(json_object_get(got_data, "matches"), 0);
    assert_string_equal(json_string_value(json_object_get(m, "name")), "OK");
    char found_ref[24];
    snprintf(found_ref, sizeof found_ref, "%s", json_string_value(json_object_get(m, "ref")));
    assert_string_not_equal(found_ref, ok_ref);

    run_op(click_op, json_pack("{s:s}", "ref", ok_ref));
    assert_non_null(got_error);
    assert_non_null(strstr(got_error, "older snapshot; take a new snapshot"));

    run_op(click_op, json_pack("{s:s}", "ref", found_ref));
    assert_null(got_error);
    assert_true(got_then && got_target.done);
    assert_string_equal(got_target.by, "action");
    assert_string_equal(read_fd(out), "Ada\n");
    assert_int_equal(exit_of(pid), 0);
    close(out);
}

static void a_question_dialog_is_answered_by_button_text(void **state)
{
    const char *const argv[] = {"zenity", "--question", "--text", "Delete the draft?", NULL};
    int out;
    pid_t pid = test_desktop_spawn(&desk, argv, &out);
    await_element("zenity", "push button", "Yes");
    run_op(perceive_wait_for,
           json_pack("{s:s, s:i}", "text", "Delete the draft", "timeout_ms", 3000));
    assert_true(json_is_true(json_object_get(got_data, "matched")));
    run_op(perceive_read_text, json_pack("{}"));
    assert_non_null(
        strstr(json_string_value(json_object_get(got_data, "text")), "Delete the draft?"));
    run_op(click_op, json_pack("{s:s, s:s}", "text", "No", "role", "push button"));
    assert_null(got_error);
    assert_true(got_target.done);
    assert_int_equal(exit_of(pid), 1); /* zenity: No */
    run_op(perceive_wait_for,
           json_pack("{s:s, s:b, s:i}", "text", "Delete the draft", "gone", 1, "timeout_ms", 3000));
    assert_true(json_is_true(json_object_get(got_data, "matched")));
    close(out);
}

static void a_window_is_read_by_ocr(void **state)
{
    const char *const argv[] = {
        "zenity", "--info", "--title", "Report", "--text", "Quarterly report ready", NULL};
    int out;
    pid_t pid = test_desktop_spawn(&desk, argv, &out);
    json_t *dialog = await_element("zenity", "dialog", NULL);
    char ref[24];
    snprintf(ref, sizeof ref, "%s", json_string_value(json_object_get(dialog, "ref")));
    run_op(perceive_read_text, json_pack("{s:s, s:b}", "ref", ref, "ocr", 1));
    assert_null(got_error);
    assert_string_equal(json_string_value(json_object_get(got_data, "source")), "ocr");
    const char *text = json_string_value(json_object_get(got_data, "text"));
    assert_non_null(strstr(text, "Quarterly report ready"));
    json_t *words = json_object_get(got_data, "words");
    assert_true(json_array_size(words) >= 3);

    /* Text no accessible element says is found among the pixels. */
    run_op(perceive_find, json_pack("{s:s}", "text", "Quarterly report"));
    assert_null(got_error);
    assert_true(json_integer_value(json_object_get(got_data, "count")) >= 1);

    /* A region of the screen: the dialog's bounds, given as numbers. */
    run_op(perceive_snapshot, json_pack("{s:s}", "app", "zenity"));
    json_t *b = json_object_get(element("dialog", NULL), "bounds");
    run_op(perceive_read_text,
           json_pack("{s:{s:O, s:O, s:O, s:O}}", "region", "x", json_object_get(b, "x"), "y",
                     json_object_get(b, "y"), "width", json_object_get(b, "width"), "height",
                     json_object_get(b, "height")));
    assert_null(got_error);
    assert_non_null(strstr(json_string_value(json_object_get(got_data, "text")), "report ready"));
    run_op(perceive_read_text, json_pack("{s:{s:i, s:i, s:i, s:i}}", "region", "x", 1000, "y", 0,
                                         "width", 100, "height", 10));
    assert_non_null(strstr(got_error, "not inside the 1024x768 screen"));

    run_op(perceive_read_text, json_pack("{s:s}", "lang", "xyz"));
    assert_non_null(strstr(got_error, "tesseract-ocr-xyz"));
    run_op(perceive_read_text, json_pack("{s:s}", "lang", "../etc"));
    assert_non_null(strstr(got_error, "\"lang\""));
    /* The dialog, by ref, goes when the program ends. */
    run_op(perceive_snapshot, json_pack("{s:s}", "app", "zenity"));
    snprintf(ref, sizeof ref, "%s",
             json_string_value(json_object_get(element("dialog", NULL), "ref")));
    kill(pid, SIGTERM);
    run_op(perceive_wait_for,
           json_pack("{s:s, s:b, s:i}", "ref", ref, "gone", 1, "timeout_ms", 5000));
    assert_true(json_is_true(json_object_get(got_data, "matched")));
    exit_of(pid);
    close(out);
}

static void refs_that_never_existed_are_refused(void **state)
{
    run_op(perceive_snapshot, json_pack("{}"));
    run_op(perceive_read_text, json_pack("{s:s}", "ref", "e999999"));
    assert_non_null(strstr(got_error, "is unknown"));
    run_op(perceive_read_text, json_pack("{s:s}", "ref", "button"));
    assert_non_null(strstr(got_error, "\"ref\" must look like"));
}

static void a_desktop_without_accessibility_bus_fails_in_time(void **state)
{
    struct perceive_host host = {0};
    struct perceive *dead = perceive_create("unix:path=/nonexistent/bus", &host);
    struct perceive *keep = perc;
    perc = dead;
    run_op(perceive_snapshot, json_pack("{}"));
    assert_non_null(got_error);
    assert_non_null(strstr(got_error, "cannot take an accessibility snapshot"));
    perc = keep;
    perceive_destroy(dead);
}

static void a_frozen_application_costs_a_time_limit_not_a_hang(void **state)
{
    const char *const argv[] = {"zenity", "--info", "--text", "Frozen soon", NULL};
    int out;
    pid_t pid = test_desktop_spawn(&desk, argv, &out);
    await_element("zenity", "push button", "OK");
    kill(pid, SIGSTOP);
    uint64_t t0 = uv_hrtime();
    run_op(perceive_snapshot, json_pack("{}"));
    double ms = (double)(uv_hrtime() - t0) / 1e6;
    assert_null(got_error);
    assert_true(ms < 4500);
    assert_true(json_is_true(json_object_get(got_data, "truncated")));
    assert_non_null(strstr(json_string_value(json_object_get(got_data, "truncation")),
                           "did not answer in time"));
    kill(pid, SIGCONT);
    kill(pid, SIGTERM);
    exit_of(pid);
    close(out);
}

static void a_bus_that_never_answers_fails_in_time(void **state)
{
    /* A socket that accepts connections and never says a word. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/glovebox-mute-bus-%d", (int)getpid());
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    unlink(path);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(fd, 4), 0);
    char addr[96];
    snprintf(addr, sizeof addr, "unix:path=%s", path);
    struct perceive_host host = {0};
    struct perceive *mute = perceive_create(addr, &host);
    struct perceive *keep = perc;
    perc = mute;
    uint64_t t0 = uv_hrtime();
    run_op(perceive_snapshot, json_pack("{}"));
    double ms = (double)(uv_hrtime() - t0) / 1e6;
    perc = keep;
    assert_non_null(got_error);
    assert_non_null(strstr(got_error, "no answer within"));
    assert_true(ms < 3500);
    perceive_destroy(mute);
    close(fd);
    unlink(path);
}

static int setup(void **state)
{
    test_desktop_start(&desk);
    uv_loop_init(&loop);
    app.loop = &loop;
    snprintf(sess.id, sizeof sess.id, "desktop-1");
    sess.state = SESSION_LIVE;
    struct perceive_host host = {.ud = &desk, .capture = test_desktop_capture};
    perc = perceive_create(desk.bus, &host);
    return 0;
}

static int teardown(void **state)
{
    clear();
    perceive_destroy(perc);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    module_finish_all();
    test_desktop_stop(&desk);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_entry_dialog_is_read_and_pressed_through_its_tree),
        cmocka_unit_test(a_question_dialog_is_answered_by_button_text),
        cmocka_unit_test(a_window_is_read_by_ocr),
        cmocka_unit_test(refs_that_never_existed_are_refused),
        cmocka_unit_test(a_frozen_application_costs_a_time_limit_not_a_hang),
        cmocka_unit_test(a_desktop_without_accessibility_bus_fails_in_time),
        cmocka_unit_test(a_bus_that_never_answers_fails_in_time),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
