/* How long a snapshot of a zenity entry dialog takes, through the same
 * asynchronous path a tool call uses (worker pool, GDBus, folding, JSON and
 * outline). Prints the median and 95th percentile; asserts nothing. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "backend/backend.h"
#include "backend/desktop/perceive/perceive.h"
#include "core/app.h"
#include "desktop_fixture.h"
#include "session/session.h"

static bool answered;
static int count;

static void finish(struct backend_call *bc, struct backend_result *r)
{
    answered = true;
    count = (int)json_integer_value(json_object_get(r->data, "count"));
    json_decref(r->data);
    free(r->text);
    free(r->error);
    free(bc);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 50;
    struct test_desktop desk;
    test_desktop_start(&desk);
    const char *const zen[] = {"zenity", "--entry", "--title", "Who", "--text", "Your name", NULL};
    int out;
    pid_t pid = test_desktop_spawn(&desk, zen, &out);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct app app = {.loop = &loop};
    struct session sess = {.id = "desktop-1", .state = SESSION_LIVE};
    struct perceive_host host = {0};
    struct perceive *p = perceive_create(desk.bus, &host);
    json_t *args = json_pack("{s:s}", "app", "zenity");
    double *ms = calloc((size_t)runs, sizeof *ms);
    for (int i = -10; i < runs; i++) {
        /* The first snapshots wait for zenity to come up. */
        do {
            struct backend_call *bc = calloc(1, sizeof *bc);
            *bc = (struct backend_call){
                .session = &sess, .args = args, .app = &app, .finish = finish};
            answered = false;
            uint64_t t0 = uv_hrtime();
            perceive_snapshot(p, bc);
            while (!answered)
                uv_run(&loop, UV_RUN_ONCE);
            if (i >= 0)
                ms[i] = (double)(uv_hrtime() - t0) / 1e6;
            if (count < 5)
                usleep(100 * 1000);
        } while (count < 5);
    }
    qsort(ms, (size_t)runs, sizeof *ms, cmp);
    printf("snapshot of a zenity entry dialog (%d elements), %d runs: median %.1f ms, p95 %.1f "
           "ms, min %.1f ms, max %.1f ms\n",
           count, runs, ms[runs / 2], ms[runs * 95 / 100], ms[0], ms[runs - 1]);
    free(ms);
    json_decref(args);
    perceive_destroy(p);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    close(out);
    test_desktop_stop(&desk);
    return 0;
}
