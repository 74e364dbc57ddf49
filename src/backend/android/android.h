/* The android backend: phones and emulators through the adb server's
 * smart-socket protocol (adb.h), no adb process per action. The tools that
 * start sessions and list devices are in the executable; the protocol and
 * the sessions are in glovebox-android.so. */
#pragma once
#include "core/error_code.h"

#include <jansson.h>
#include <stdbool.h>

struct app;
struct session;
struct session_client;
struct tool;

struct android_options {
    const char *serial;     /* NULL: the only device */
    const char *adb_server; /* "host:port"; NULL: the environment, else 127.0.0.1:5037 */
    const char *name;       /* optional session label */
    bool remote_ok;         /* adb_server may be another machine (the policy lists it) */
    bool stream;            /* keep a screen stream for screenshots (docs/android.md) */
    const char *input;      /* "auto" (NULL), "events" or "commands": how taps reach the device */
    const struct session_client *client;
};

/* s NULL on failure with code and err (for the user). */
typedef void (*android_connected_fn)(struct session *s, enum error_code code, const char *err,
                                     void *ud);
/* out: {adb_server, devices: [...], count} (stolen) or NULL with code, err. */
typedef void (*android_listed_fn)(json_t *out, enum error_code code, const char *err, void *ud);

/* What the android module offers (backend_load("android")). Both answer
 * exactly once, always later. o and its strings are copied. */
struct android_api {
    void (*connect)(struct app *app, const struct android_options *o, android_connected_fn done,
                    void *ud);
    void (*list)(struct app *app, const char *adb_server, bool remote_ok, android_listed_fn done,
                 void *ud);
};

void android_connect(struct app *app, const struct android_options *o, android_connected_fn done,
                     void *ud);
void android_list(struct app *app, const char *adb_server, bool remote_ok, android_listed_fn done,
                  void *ud);

/* The tools of this kind (kinds.c lists them). */
extern const struct tool tool_android_connect;
extern const struct tool tool_device_list;
extern const struct tool tool_press_button;
extern const struct tool tool_app_list;
extern const struct tool tool_app_stop;
extern const struct tool tool_app_reset;
extern const struct tool tool_app_install;
extern const struct tool tool_app_uninstall;
extern const struct tool tool_orientation;
extern const struct tool tool_set_network;
