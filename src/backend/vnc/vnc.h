/* The vnc backend: remote desktops over RFB (VNC) — Linux servers (Xvnc,
 * x11vnc), and later Macs through Screen Sharing. The protocol is
 * libgvnc-1.0's (gtk-vnc without GTK), run in a process of each
 * connection's own that a GLib thread of the module's talks to; the loop
 * only posts to that thread and hears back through uv_async. */
#pragma once
#include "core/error_code.h"

#include <stdbool.h>

struct app;
struct session;
struct session_client;
struct tool;

struct vnc_options {
    const char *host;           /* name or address, checked by the policy's hosts rules */
    int port;                   /* TCP port (5900 + display) */
    const char *password;       /* NULL: none; never logged or shown */
    const char *username;       /* NULL: none */
    const char *name;           /* optional session label */
    int timeout_ms;             /* connect and handshake */
    int vp_x, vp_y, vp_w, vp_h; /* the viewport; vp_w == 0: the whole screen */
    const char *vp_window;      /* or the window with this title, found by OCR; NULL: none */
    int reconnect_s;            /* retry a dropped connection this long; 0: not */
    bool tls_verify;            /* VeNCrypt: check the server's certificate */
    const char *ca_file;        /* NULL: the system's CAs (libgvnc's own check) */
    bool iphone_mirroring;      /* press_button and launch_app as its shortcuts */
    const char *paste_keys;     /* the chord that pastes (checked); NULL: by the server */
    const struct session_client *client;
};

/* The connect ended: s is live, or NULL with code and err (for the user;
 * never holding the password). */
typedef void (*vnc_connected_fn)(void *ud, struct session *s, enum error_code code,
                                 const char *err);

/* What the vnc module offers (backend_load("vnc")). */
struct vnc_api {
    /* Starts connecting; done runs exactly once, later, on the loop. */
    void (*connect)(struct app *app, const struct vnc_options *o, vnc_connected_fn done, void *ud);
};

/* The tool that starts vnc sessions (kinds.c lists it). */
extern const struct tool tool_vnc_connect;
