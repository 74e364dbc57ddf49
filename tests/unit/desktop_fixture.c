#include "desktop_fixture.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/xcb.h>

/* Read one line a child prints on fd (its display number, its address). */
static void read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0 || buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = 0;
}

/* fork with a pipe from child (p[1]) to parent (p[0]); each side keeps its end. */
static pid_t fork_piped(int p[2])
{
    if (pipe(p) != 0)
        abort();
    pid_t pid = fork();
    close(pid == 0 ? p[0] : p[1]);
    return pid;
}

static pid_t start_reporting(const char *const argv[], const char *fd_flag, char *line, size_t cap,
                             const char *display, const char *runtime)
{
    int p[2];
    pid_t pid = fork_piped(p);
    if (pid == 0) {
        char flag[64];
        snprintf(flag, sizeof flag, "%s%d", fd_flag, p[1]);
        const char *args[16];
        int n = 0;
        for (; argv[n]; n++)
            args[n] = argv[n];
        args[n++] = flag;
        args[n] = NULL;
        if (display)
            setenv("DISPLAY", display, 1);
        if (runtime)
            setenv("XDG_RUNTIME_DIR", runtime, 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(args[0], (char *const *)args);
        _exit(127);
    }
    read_line(p[0], line, cap);
    close(p[0]);
    return pid;
}

void test_desktop_start(struct test_desktop *d)
{
    char num[8];
    const char *const xvfb[] = {"Xvfb",      "-screen", "0",          "1024x768x24",
                                "-nolisten", "tcp",     "-displayfd", NULL};
    /* -displayfd takes the fd as the next argument. */
    d->xvfb = start_reporting(xvfb, "", num, sizeof num, NULL, NULL);
    snprintf(d->display, sizeof d->display, ":%s", num);
    /* The bus gets DISPLAY so the accessibility bus launcher names its socket
     * after this display, not the one every display would share. */
    snprintf(d->runtime, sizeof d->runtime, "/tmp/glovebox-test-desktop-XXXXXX");
    if (!mkdtemp(d->runtime))
        abort();
    const char *const dbus[] = {"dbus-daemon", "--session", "--nofork", NULL};
    d->dbus =
        start_reporting(dbus, "--print-address=", d->bus, sizeof d->bus, d->display, d->runtime);
}

void test_desktop_stop(struct test_desktop *d)
{
    if (d->dbus > 0) {
        kill(d->dbus, SIGTERM);
        waitpid(d->dbus, NULL, 0);
    }
    if (d->xvfb > 0) {
        kill(d->xvfb, SIGTERM);
        waitpid(d->xvfb, NULL, 0);
    }
    if (d->runtime[0]) {
        /* The accessibility bus leaves its socket folder behind. */
        const char *const cmd[] = {"rm", "-rf", d->runtime, NULL};
        pid_t rm = fork();
        if (rm == 0) {
            execvp(cmd[0], (char *const *)cmd);
            _exit(127);
        }
        waitpid(rm, NULL, 0);
    }
}

pid_t test_desktop_spawn(const struct test_desktop *d, const char *const argv[], int *out_fd)
{
    int p[2];
    pid_t pid = fork_piped(p);
    if (pid == 0) {
        setenv("DISPLAY", d->display, 1);
        setenv("DBUS_SESSION_BUS_ADDRESS", d->bus, 1);
        setenv("NO_AT_BRIDGE", "0", 1);
        setenv("GTK_THEME", "Adwaita", 1);
        setenv("XDG_RUNTIME_DIR", d->runtime, 1);
        dup2(p[1], 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    *out_fd = p[0];
    return pid;
}

bool test_desktop_capture(void *ud, struct frame *out, char **err)
{
    const struct test_desktop *d = ud;
    xcb_connection_t *c = xcb_connect(d->display, NULL);
    if (xcb_connection_has_error(c)) {
        xcb_disconnect(c);
        *err = xstrdup("cannot connect to the display");
        return false;
    }
    xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    xcb_get_image_reply_t *img =
        xcb_get_image_reply(c,
                            xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, s->root, 0, 0,
                                          s->width_in_pixels, s->height_in_pixels, ~0u),
                            NULL);
    if (!img) {
        xcb_disconnect(c);
        *err = xstrdup("GetImage failed");
        return false;
    }
    frame_init(out, s->width_in_pixels, s->height_in_pixels);
    const uint8_t *src = xcb_get_image_data(img);
    for (uint32_t i = 0; i < out->width * out->height; i++) {
        /* 24-bit depth arrives as B, G, R, X. */
        out->rgba[i * 4 + 0] = src[i * 4 + 2];
        out->rgba[i * 4 + 1] = src[i * 4 + 1];
        out->rgba[i * 4 + 2] = src[i * 4 + 0];
        out->rgba[i * 4 + 3] = 255;
    }
    free(img);
    xcb_disconnect(c);
    return true;
}
