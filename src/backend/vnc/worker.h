/* glovebox-vnc-worker: one VNC connection in a process of its own, so that
 * a server's data libgvnc cannot survive (its g_error and abort on a
 * hostile size) ends that connection alone. worker_main.c is the process
 * and the module's socket; worker_conn.c the connection. */
#pragma once
#include "backend/vnc/wire.h"
#include "core/error_code.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct _VncConnection;
struct tls_front;

struct worker {
    int sock; /* the module's end: fd 3 */
    GMainLoop *loop;
    struct vnc_wire_reader rd;
    struct vnc_wire_reader aside; /* read while writing, taken before rd's next read */
    guint dispatch_source;        /* aside holds bytes: take them */
    /* What the module asked for (CONNECT). */
    char *host;
    int port;
    int timeout_ms;
    bool tls_verify;
    char *password; /* wiped once handed to libgvnc */
    char *username;
    char *ca_file;
    /* The connection. */
    struct _VncConnection *conn;
    struct tls_front *front;
    const char *security;
    bool tls;         /* VeNCrypt was chosen */
    bool auth_sent;   /* credentials went to the server */
    bool initialized; /* the handshake is done */
    char *lib_error;  /* libgvnc's last error message */
    char *reason;     /* why it ends, for the user; NULL: not decided yet */
    enum error_code code;
    uint8_t *pixels; /* the memfd's mapping libgvnc paints into */
    size_t pixels_len;
    int width, height;
    guint request_source; /* a pending incremental update request */
};

/* worker_conn.c: open w->host (false: it could not even start; the reason
 * is set), act on the module's input, close. */
bool worker_conn_open(struct worker *w);
/* The same over fd, a stream already connected to a server (the fuzz
 * harness's fake one, fuzz/fuzz_vnc.c); true: libgvnc owns fd (and closes it
 * with the connection). */
bool worker_conn_open_fd(struct worker *w, int fd);
void worker_conn_input(struct worker *w, struct vnc_wire_in *in);
void worker_conn_shutdown(struct worker *w);
void worker_conn_free(struct worker *w);
/* worker_main.c: a message to the module; a module that is gone or hung
 * ends the process. */
void worker_send(struct worker *w, struct vnc_wire_out *o, int fd);
/* The connection has ended: DISCONNECTED is sent, the process exits. */
void worker_done(struct worker *w);
