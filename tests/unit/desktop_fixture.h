/* A private X display with its own D-Bus session bus, for tests of
 * perception before and apart from the desktop backend: Xvfb (-displayfd,
 * so numbers never collide) and dbus-daemon, both ended by pid. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

struct frame;

struct test_desktop {
    pid_t xvfb, dbus;
    char display[16]; /* ":3" */
    char bus[512];    /* session bus address */
    char runtime[64]; /* its own XDG_RUNTIME_DIR, as glovebox gives a private desktop */
};

void test_desktop_start(struct test_desktop *d);
void test_desktop_stop(struct test_desktop *d);
/* Start argv on the desktop (accessibility on); its stdout into *out_fd. */
pid_t test_desktop_spawn(const struct test_desktop *d, const char *const argv[], int *out_fd);
/* The root window as RGBA (xcb GetImage). */
bool test_desktop_capture(void *ud, struct frame *out, char **err);
