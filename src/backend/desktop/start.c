/* Starting a desktop without blocking the loop: Xvfb reports its display
 * number and dbus-daemon its address on pipes, read as they become readable
 * (uv_poll) under a time limit, while other requests keep being served. An
 * existing display is only probed. */
#define LOG_MODULE "desktop"
#include "backend/desktop/desktop.h"

#include "backend/desktop/internal.h"
#include "backend/desktop/leftovers.h"
#include "backend/desktop/perceive/perceive.h"
#include "backend/desktop/xgrab.h"
#include "core/app.h"
#include "core/log.h"
#include "core/pidns.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

/* How long Xvfb and dbus-daemon each get to say they are ready. */
#define READY_TIMEOUT_MS 10000

enum step { WAIT_DISPLAY, WAIT_BUS };

struct start {
    struct desktop *d;
    desktop_started_fn done;
    void *ud;
    char **command; /* owned copy, NULL-terminated; NULL for none */
    enum step step;
    int fds[2];         /* the pipe of each step, or -1 */
    uv_poll_t polls[2]; /* watching it */
    bool poll_open[2];
    uv_timer_t timer;
    int open_handles; /* freed when every handle has closed */
    /* The server's shutdown closed a handle under us (it closes every
     * handle): the desktop frees this when it is destroyed. */
    bool abandoned;
    char line[512];
    size_t used;
    bool wm;           /* start a window manager once the bus is up */
    bool waiting_wm;   /* the timer polls for it (wm_poll) */
    uint64_t wm_until; /* uv_now when waiting for it ends */
};

/* Display names glovebox accepts: ":N" or ":N.S" (a local server). */
static bool valid_display(const char *s)
{
    if (s[0] != ':' || !s[1])
        return false;
    const char *p = s + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == s + 1)
        return false;
    if (*p == '.') {
        const char *q = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == q)
            return false;
    }
    return *p == '\0' && strlen(s) < sizeof(((struct desktop *)0)->display);
}

/* Screen size, or false when the display cannot be reached. A local
 * connection: fast enough for the loop. */
static bool probe_display(const char *display, int *w, int *h, char **err)
{
    int screen = 0;
    xcb_connection_t *c = xcb_connect(display, &screen);
    int e = xcb_connection_has_error(c);
    if (e) {
        xcb_disconnect(c);
        *err = xasprintf("cannot reach X display %s (xcb error %d: no server there, or no "
                         "permission — is XAUTHORITY set?)",
                         display, e);
        return false;
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; i < screen && it.rem; i++)
        xcb_screen_next(&it);
    *w = it.data->width_in_pixels;
    *h = it.data->height_in_pixels;
    xcb_disconnect(c);
    return true;
}

static void free_start(struct start *st)
{
    for (char **a = st->command; a && *a; a++)
        free(*a);
    free(st->command);
    free(st);
}

void desktop_start_abandon(struct desktop *d)
{
    struct start *st = d->start;
    d->start = NULL;
    if (!st)
        return;
    st->d = NULL;
    /* Only at exit, once the loop has run every close: nothing refers to
     * the handles any more. */
    if (st->abandoned)
        free_start(st);
}

static void handle_closed(uv_handle_t *h)
{
    struct start *st = h->data;
    if (--st->open_handles > 0 || st->abandoned)
        return;
    if (st->d)
        st->d->start = NULL;
    free_start(st);
}

static void close_handle(struct start *st, uv_handle_t *h)
{
    if (uv_is_closing(h))
        st->abandoned = true;
    else
        uv_close(h, handle_closed);
}

static void stop_waiting(struct start *st, enum step step)
{
    if (st->poll_open[step]) {
        st->poll_open[step] = false;
        if (!uv_is_closing((uv_handle_t *)&st->polls[step]))
            uv_poll_stop(&st->polls[step]);
        close_handle(st, (uv_handle_t *)&st->polls[step]);
    }
    if (st->fds[step] >= 0)
        close(st->fds[step]);
    st->fds[step] = -1;
}

static void finish(struct start *st, char *err)
{
    stop_waiting(st, WAIT_DISPLAY);
    stop_waiting(st, WAIT_BUS);
    close_handle(st, (uv_handle_t *)&st->timer);
    struct desktop *d = st->d;
    if (!d) { /* the server is going away and took the desktop with it */
        free(err);
        return;
    }
    struct session *s = d->session;
    if (!err && st->command && st->command[0])
        desktop_launch(s, (const char *const *)st->command, &err);
    if (err) {
        session_stop(s, "could not start");
        st->done(NULL, err, st->ud);
        free(err);
        return;
    }
    /* An attached display uses the user's session bus; without one the
     * accessibility tree is unreachable (the error says so) and OCR still
     * works. */
    const char *bus = d->bus ? d->bus : getenv("DBUS_SESSION_BUS_ADDRESS");
    d->grab = xgrab_create(d->display);
    d->perceive = perceive_create(bus ? bus : "",
                                  &(struct perceive_host){.ud = d, .capture = desktop_capture});
    log_info("%s: %s desktop on %s (%dx%d)", s->id, d->owned ? "private" : "attached", d->display,
             d->width, d->height);
    /* Only now, with the display name, input connection target, grab and
     * accessibility handles in place, may tools reach the backend. */
    session_set_live(s);
    desktop_watch_open(d);
    st->done(s, NULL, st->ud);
}

static void on_readable(uv_poll_t *p, int status, int events);

/* Read one line from fd (owned from now on), then go on to the next step. */
static bool wait_line(struct start *st, int fd, enum step step, char **err)
{
    st->step = step;
    st->fds[step] = fd;
    st->used = 0;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int rc = uv_poll_init(st->d->app->loop, &st->polls[step], fd);
    if (rc != 0) {
        *err = xasprintf("cannot watch a pipe: %s", uv_strerror(rc));
        return false;
    }
    st->polls[step].data = st;
    st->poll_open[step] = true;
    st->open_handles++;
    rc = uv_poll_start(&st->polls[step], UV_READABLE, on_readable);
    if (rc != 0) {
        *err = xasprintf("cannot watch a pipe: %s", uv_strerror(rc));
        return false;
    }
    uv_timer_again(&st->timer);
    return true;
}

static char *spawn_bus(struct start *st, int *fd)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return xasprintf("pipe: %s", strerror(errno));
    char fdarg[48];
    snprintf(fdarg, sizeof fdarg, "--print-address=%d", fds[1]);
    const char *const dbus[] = {"dbus-daemon", "--session", "--nofork", fdarg, NULL};
    /* The bus gets DISPLAY: the accessibility bus it starts on demand names
     * its socket after it, so desktops do not share one. */
    const char *const env[] = {"DISPLAY", st->d->display, "XDG_RUNTIME_DIR", st->d->runtime_dir,
                               NULL};
    char *err = NULL;
    pid_t pid = desktop_spawn(st->d, dbus, env, fds[1], &err);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        char *msg =
            xasprintf("%s (private desktops need a D-Bus daemon: apt-get install dbus)", err);
        free(err);
        return msg;
    }
    desktop_watch(st->d, pid, CHILD_DBUS);
    *fd = fds[0];
    return NULL;
}

static void wm_poll(uv_timer_t *t)
{
    struct start *st = t->data;
    bool up = desktop_wm_ready(st->d);
    if (!up && uv_now(t->loop) < st->wm_until)
        return;
    if (!up)
        log_warn("%s: the window manager did not come up within %d ms; going on without",
                 st->d->session->id, WM_WAIT_MS);
    st->waiting_wm = false;
    finish(st, NULL);
}

void desktop_start_stopping(struct desktop *d)
{
    struct start *st = d->start;
    /* The other steps end when the stop kills what they read from; this
     * one only polls, and would keep the start (and a shutdown) waiting. */
    if (st && st->waiting_wm) {
        st->waiting_wm = false;
        finish(st, xstrdup("the desktop was stopped while it started"));
    }
}

/* The window manager, and a wait until it manages the screen, so the
 * command's first window is placed and focused by it. false: none is
 * started (not installed: noted, the desktop goes on without). */
static bool start_wm(struct start *st)
{
    if (!desktop_wm_start(st->d))
        return false;
    st->wm_until = uv_now(st->d->app->loop) + WM_WAIT_MS;
    st->waiting_wm = true;
    uv_timer_start(&st->timer, wm_poll, 20, 20);
    return true;
}

static void got_line(struct start *st)
{
    struct desktop *d = st->d;
    stop_waiting(st, st->step);
    char *err = NULL;
    if (d->stopping) {
        /* Stopped (the server is shutting down) while starting: start
         * nothing more. */
        finish(st, xstrdup("the desktop was stopped while it started"));
        return;
    }
    if (st->step == WAIT_DISPLAY) {
        snprintf(d->display, sizeof d->display, ":%.16s", st->line);
        int fd = -1;
        err = spawn_bus(st, &fd);
        if (!err && wait_line(st, fd, WAIT_BUS, &err))
            return;
    } else {
        d->bus = xstrdup(st->line);
        if (probe_display(d->display, &d->width, &d->height, &err) && st->wm && start_wm(st))
            return;
    }
    finish(st, err);
}

static void on_readable(uv_poll_t *p, int status, int events)
{
    (void)events;
    struct start *st = p->data;
    ssize_t n = status < 0
                    ? -1
                    : read(st->fds[st->step], st->line + st->used, sizeof st->line - 1 - st->used);
    if (n < 0 && (errno == EAGAIN || errno == EINTR) && status >= 0)
        return;
    if (n > 0) {
        st->used += (size_t)n;
        st->line[st->used] = '\0';
        char *nl = strchr(st->line, '\n');
        if (nl) {
            *nl = '\0';
            got_line(st);
            return;
        }
        if (st->used + 1 < sizeof st->line)
            return;
    }
    finish(st, xasprintf("%s ended before it reported %s",
                         st->step == WAIT_DISPLAY ? "Xvfb" : "dbus-daemon",
                         st->step == WAIT_DISPLAY ? "a display" : "its address"));
}

static void timed_out(uv_timer_t *t)
{
    struct start *st = t->data;
    finish(st, xasprintf("%s did not report %s within %d s",
                         st->step == WAIT_DISPLAY ? "Xvfb" : "dbus-daemon",
                         st->step == WAIT_DISPLAY ? "a display" : "its address",
                         READY_TIMEOUT_MS / 1000));
}

static char *spawn_xvfb(struct start *st, const struct desktop_options *o, int *fd)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return xasprintf("pipe: %s", strerror(errno));
    char size[48], fdarg[48];
    snprintf(size, sizeof size, "%dx%dx24", o->width, o->height);
    snprintf(fdarg, sizeof fdarg, "%d", fds[1]);
    /* -noreset: without it the server resets whenever its last client
     * leaves, and what was set on it (a root colour, a keymap) is lost. */
    const char *const xvfb[] = {"Xvfb", "-screen",    "0",   size,       "-nolisten",
                                "tcp",  "-displayfd", fdarg, "-noreset", NULL};
    char *err = NULL;
    pid_t pid = desktop_spawn(st->d, xvfb, NULL, fds[1], &err);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        char *msg = xasprintf("%s (private desktops need Xvfb: apt-get install xvfb)", err);
        free(err);
        return msg;
    }
    desktop_watch(st->d, pid, CHILD_XVFB);
    *fd = fds[0];
    return NULL;
}

void desktop_start(struct app *app, const struct desktop_options *o, desktop_started_fn done,
                   void *ud)
{
    if (o->display && !valid_display(o->display)) {
        char *err = xasprintf(
            "display must look like \":0\" or \":1.0\" (a local X server), got \"%s\"", o->display);
        done(NULL, err, ud);
        free(err);
        return;
    }
    static bool swept;
    if (!swept) {
        swept = true;
        leftovers_sweep(app->data_dir);
    }
    struct start *st = xcalloc(1, sizeof *st);
    st->d = desktop_create(app, o->name, o->client);
    st->d->start = st;
    st->done = done;
    st->ud = ud;
    st->fds[0] = st->fds[1] = -1;
    st->wm = o->window_manager;
    size_t n = 0;
    while (o->command && o->command[n])
        n++;
    if (n) {
        st->command = xcalloc(n + 1, sizeof *st->command);
        for (size_t i = 0; i < n; i++)
            st->command[i] = xstrdup(o->command[i]);
    }
    uv_timer_init(app->loop, &st->timer);
    st->timer.data = st;
    uv_timer_start(&st->timer, timed_out, READY_TIMEOUT_MS, READY_TIMEOUT_MS);
    st->open_handles = 1;
    char *err = NULL;
    /* Attached desktops too: the programs launch_app starts go there. */
    if (!pidns_create(&st->d->ns, &err)) {
        finish(st, err);
        return;
    }
    if (o->display) {
        snprintf(st->d->display, sizeof st->d->display, "%s", o->display);
        probe_display(st->d->display, &st->d->width, &st->d->height, &err);
        finish(st, err);
        return;
    }
    st->d->owned = true;
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/glovebox-desktop-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        finish(st, xasprintf("cannot create a runtime folder in %s: %s", tmp && *tmp ? tmp : "/tmp",
                             strerror(errno)));
        free(dir);
        return;
    }
    st->d->runtime_dir = dir;
    int fd = -1;
    err = spawn_xvfb(st, o, &fd);
    if (!err)
        wait_line(st, fd, WAIT_DISPLAY, &err);
    if (err)
        finish(st, err);
}
