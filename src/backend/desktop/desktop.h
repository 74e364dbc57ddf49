/* Desktop sessions: a private X desktop (Xvfb with its own D-Bus session bus,
 * so its applications' accessibility trees are its own), or an existing X
 * display glovebox attaches to and never kills. Perception (snapshot, find,
 * read_text, wait_for) comes from perceive/ in this folder; pixels from xcb. */
#pragma once
#include <stdbool.h>

struct app;
struct session;
struct session_client;
struct tool;

struct desktop_options {
    const char *display;                 /* ":0" to attach; NULL for a private desktop */
    int width, height;                   /* private desktops only */
    const char *const *command;          /* argv started inside (NULL-terminated), or NULL */
    const char *name;                    /* session label, or NULL */
    const struct session_client *client; /* who it belongs to (session_add); read at once */
    bool window_manager; /* private desktops: start openbox (wm.c) before the command */
};

/* Called once a desktop is up (s) or could not start (s NULL, err says why:
 * Xvfb or dbus-daemon missing — the Debian package is named —, the display
 * unreachable, the program not startable). err is borrowed. */
typedef void (*desktop_started_fn)(struct session *s, const char *err, void *ud);
/* Start (or attach to) a desktop; done runs on the loop, possibly before
 * this returns. The options are copied. */
void desktop_start(struct app *app, const struct desktop_options *o, desktop_started_fn done,
                   void *ud);
/* Start argv inside a live desktop session; its pid, or -1 with *err. */
int desktop_launch(struct session *s, const char *const *argv, char **err);
/* Whether s is a desktop session. */
bool desktop_is(const struct session *s);

/* What the desktop module offers (backend_load("desktop")). */
struct desktop_api {
    void (*start)(struct app *app, const struct desktop_options *o, desktop_started_fn done,
                  void *ud);
    int (*launch)(struct session *s, const char *const *argv, char **err);
};

/* The tools of desktop sessions (kinds.c lists them). */
extern const struct tool tool_desktop_start;
extern const struct tool tool_launch_app;
