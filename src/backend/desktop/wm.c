/* A private desktop's window manager: openbox, so windows are placed,
 * framed with a title and focused when clicked, as on a person's desktop.
 * glovebox gives it settings of its own: no key bindings (every chord
 * press_key sends reaches the programs), no desktop menu on the root
 * window, one workspace; new windows and a click on a title bar take the
 * focus. */
#define LOG_MODULE "desktop"
#include "backend/desktop/desktop.h"
#include "backend/desktop/internal.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

#define WM_PROGRAM "openbox"

static const char rc_xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<openbox_config xmlns=\"http://openbox.org/3.4/rc\">\n"
    "  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>\n"
    "  <placement><policy>Smart</policy><center>yes</center></placement>\n"
    "  <desktops><number>1</number></desktops>\n"
    "  <keyboard></keyboard>\n"
    "  <mouse>\n"
    /* No bindings on Client: openbox's button grab on program windows
     * (to focus on click, replaying the press) lost about every second
     * click glovebox sends through XTEST in tests; bindings on Frame would
     * swallow every click. Focus moves with new windows, the title bar,
     * and window_manage. */
    "    <context name=\"Titlebar\">\n"
    "      <mousebind button=\"Left\" action=\"Press\"><action name=\"Focus\"/>"
    "<action name=\"Raise\"/></mousebind>\n"
    "      <mousebind button=\"Left\" action=\"Drag\"><action name=\"Move\"/></mousebind>\n"
    "    </context>\n"
    "    <context name=\"Close\">\n"
    "      <mousebind button=\"Left\" action=\"Click\"><action name=\"Close\"/></mousebind>\n"
    "    </context>\n"
    "  </mouse>\n"
    "</openbox_config>\n";

/* The program on PATH, or NULL. */
static char *on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char *full = xasprintf("%.*s/%s", (int)n, path, name);
        if (n > 0 && access(full, X_OK) == 0)
            return full;
        free(full);
        path += n;
        if (*path == ':')
            path++;
    }
    return NULL;
}

bool desktop_wm_start(struct desktop *d)
{
    char *program = on_path(WM_PROGRAM);
    if (!program) {
        d->wm_note = xstrdup("no window manager: openbox is not installed (apt-get install "
                             "openbox); windows are neither framed nor focused on click");
        log_warn("%s: %s", d->session->id, d->wm_note);
        return false;
    }
    char *rc = xasprintf("%s/openbox-rc.xml", d->runtime_dir);
    FILE *f = fopen(rc, "w");
    bool written = f && fputs(rc_xml, f) >= 0;
    if (f && fclose(f) != 0)
        written = false;
    char *err = NULL;
    if (written) {
        const char *const argv[] = {program, "--config-file", rc, "--sm-disable", NULL};
        int pid = desktop_launch(d->session, argv, &err);
        if (pid > 0)
            d->wm_pid = pid;
        d->last_app_pid = 0; /* not a program to wait for */
    } else {
        err = xasprintf("cannot write %s: %s", rc, strerror(errno));
    }
    if (!d->wm_pid) {
        d->wm_note = xasprintf("no window manager: %s", err ? err : "openbox did not start");
        log_warn("%s: %s", d->session->id, d->wm_note);
    }
    free(err);
    free(rc);
    free(program);
    return d->wm_pid != 0;
}

bool desktop_wm_ready(struct desktop *d)
{
    xcb_connection_t *c = xcb_connect(d->display, NULL);
    bool ready = false;
    if (!xcb_connection_has_error(c)) {
        static const char name[] = "_NET_SUPPORTING_WM_CHECK";
        xcb_intern_atom_reply_t *a =
            xcb_intern_atom_reply(c, xcb_intern_atom(c, 1, sizeof name - 1, name), NULL);
        xcb_window_t root = xcb_setup_roots_iterator(xcb_get_setup(c)).data->root;
        if (a && a->atom) {
            xcb_get_property_reply_t *p = xcb_get_property_reply(
                c, xcb_get_property(c, 0, root, a->atom, XCB_ATOM_WINDOW, 0, 1), NULL);
            ready = p && xcb_get_property_value_length(p) >= 4;
            free(p);
        }
        free(a);
    }
    xcb_disconnect(c);
    return ready;
}
