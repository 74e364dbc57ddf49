/* The connection inside glovebox-vnc-worker: libgvnc's handshake and
 * signals, the framebuffer it paints (a memfd the module maps), and the
 * module's input. Everything the server says goes to the module as a
 * message; whatever the server does wrong, up to making libgvnc abort,
 * ends this process alone. */
#include "backend/vnc/tls_front.h"
#include "backend/vnc/worker.h"

#include "core/xmalloc.h"

/* libgvnc's headers have an enumerator over INT_MAX (MSLOGON), and its
 * signals hand over GValueArrays, deprecated in GLib. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <gvnc.h>
#pragma GCC diagnostic pop
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The framebuffer's layout in memory: R, G, B, unused — the frame's RGBA
 * but for alpha, so a screenshot is one copy. The server is asked to send
 * this format too, so libgvnc's blits are plain copies. */
static const VncPixelFormat local_format = {
    .bits_per_pixel = 32,
    .depth = 24,
    .byte_order = G_BYTE_ORDER,
    .true_color_flag = TRUE,
    .red_max = 255,
    .green_max = 255,
    .blue_max = 255,
    .red_shift = G_BYTE_ORDER == G_LITTLE_ENDIAN ? 0 : 24,
    .green_shift = G_BYTE_ORDER == G_LITTLE_ENDIAN ? 8 : 16,
    .blue_shift = G_BYTE_ORDER == G_LITTLE_ENDIAN ? 16 : 8,
};

/* First reason wins: the server's words come before the disconnect's. */
static void set_reason(struct worker *w, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_reason(struct worker *w, enum error_code code, const char *fmt, ...)
{
    if (w->reason)
        return;
    va_list ap;
    va_start(ap, fmt);
    w->reason = xvasprintf(fmt, ap);
    va_end(ap);
    w->code = code;
}

static void wipe_password(struct worker *w)
{
    if (w->password) {
        explicit_bzero(w->password, strlen(w->password));
        free(w->password);
        w->password = NULL;
    }
}

static void fail(struct worker *w, enum error_code code, const char *msg)
{
    set_reason(w, code, "%s", msg);
    vnc_connection_shutdown(w->conn);
}

/* Whether libgvnc can paint from the server's pixel format. libgvnc picks
 * its blit functions from tables indexed by bits per pixel, unchecked: a
 * server that switches (WMVi) to 0 or 24 bits per pixel made
 * vnc_connection_set_framebuffer read past its tables (and later call what
 * it read), and to a colour map with no colours sent, look colours up in
 * none (fuzz_vnc found both). glovebox asks for true colour, and refuses
 * anything but true colour at 8, 16 or 32 bits with shifts inside them. */
static bool format_usable(const VncPixelFormat *f)
{
    unsigned bpp = f->bits_per_pixel;
    return (bpp == 8 || bpp == 16 || bpp == 32) && f->true_color_flag && f->depth >= 1 &&
           f->depth <= bpp && f->red_shift < bpp && f->green_shift < bpp && f->blue_shift < bpp;
}

/* A new framebuffer of the connection's size: a memfd, sealed so that it
 * cannot shrink under the module's mapping, handed to the module. */
static bool make_framebuffer(struct worker *w, VncConnection *conn)
{
    const VncPixelFormat *remote = vnc_connection_get_pixel_format(conn);
    if (!remote || !format_usable(remote)) {
        char *msg = xasprintf(
            "the VNC server switched to a pixel format glovebox cannot use (%u bits per pixel, "
            "depth %u, %s): it needs true colour at 8, 16 or 32 bits per pixel",
            remote ? remote->bits_per_pixel : 0u, remote ? remote->depth : 0u,
            remote && remote->true_color_flag ? "true colour" : "a colour map");
        fail(w, ERROR_DEVICE_UNAVAILABLE, msg);
        free(msg);
        return false;
    }
    int width = vnc_connection_get_width(conn), height = vnc_connection_get_height(conn);
    if (width <= 0 || height <= 0 || (uint64_t)width * (uint64_t)height > VNC_MAX_PIXELS) {
        char *msg = xasprintf("the VNC server announced a %dx%d screen (at most %u pixels are "
                              "accepted)",
                              width, height, VNC_MAX_PIXELS);
        fail(w, ERROR_DEVICE_UNAVAILABLE, msg);
        free(msg);
        return false;
    }
    size_t len = (size_t)width * (size_t)height * 4;
    int fd = memfd_create("glovebox-vnc-framebuffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    uint8_t *pixels = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)len) == 0 &&
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) == 0)
        pixels = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) {
        if (fd >= 0)
            close(fd);
        fail(w, ERROR_DEVICE_UNAVAILABLE, "cannot make the framebuffer's shared memory");
        return false;
    }
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_FRAMEBUFFER);
    vnc_wire_u32(&o, (uint32_t)width);
    vnc_wire_u32(&o, (uint32_t)height);
    worker_send(w, &o, fd);
    close(fd);
    VncBaseFramebuffer *fb = vnc_base_framebuffer_new(pixels, (guint16)width, (guint16)height,
                                                      width * 4, &local_format, remote);
    uint8_t *old = w->pixels;
    size_t old_len = w->pixels_len;
    w->pixels = pixels;
    w->pixels_len = len;
    w->width = width;
    w->height = height;
    /* The connection drops its old framebuffer (which pointed at old). */
    vnc_connection_set_framebuffer(conn, VNC_FRAMEBUFFER(fb));
    g_object_unref(fb);
    if (old)
        munmap(old, old_len);
    return true;
}

static unsigned nth_enum(GValueArray *a, guint i)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return (unsigned)g_value_get_enum(g_value_array_get_nth(a, i));
#pragma GCC diagnostic pop
}

static void choose_type(VncConnection *conn, GValueArray *types, struct worker *w);

static void on_choose_type(VncConnection *conn, GValueArray *types, gpointer ud)
{
    struct worker *w = ud;
    choose_type(conn, types, w);
    /* glovebox's TLS front did VeNCrypt: libgvnc saw its inner type. */
    const char *tls = w->front ? vnc_tls_front_security(w->front) : NULL;
    if (tls)
        w->security = tls;
}

static void choose_type(VncConnection *conn, GValueArray *types, struct worker *w)
{
    bool none = false, vnc = false, vencrypt = false, ard = false;
    char offered[256] = "";
    for (guint i = 0; i < types->n_values; i++) {
        unsigned t = nth_enum(types, i);
        none |= t == VNC_CONNECTION_AUTH_NONE;
        vnc |= t == VNC_CONNECTION_AUTH_VNC;
        vencrypt |= t == VNC_CONNECTION_AUTH_VENCRYPT;
        ard |= t == VNC_CONNECTION_AUTH_ARD;
        size_t n = strlen(offered);
        snprintf(offered + n, sizeof offered - n, "%s%u", n ? ", " : "", t);
    }
    /* TLS first when the server has it; Apple's type 30 when a macOS
     * account is given; with a password, VNC authentication before None:
     * a server offering both means the password is wanted for something. */
    if (vencrypt) {
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_VENCRYPT);
    } else if (ard && w->username) {
        if (!w->password) {
            fail(w, ERROR_INVALID_ARGUMENT,
                 "the VNC server asks for a macOS account (Apple's type 30): give \"password\" "
                 "or \"password_env\" with \"username\"");
            return;
        }
        w->security = "ard";
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_ARD);
    } else if (vnc && (w->password || !none)) {
        if (!w->password) {
            fail(w, ERROR_INVALID_ARGUMENT,
                 "the VNC server asks for a password (VNC authentication): give \"password\" "
                 "or \"password_env\"");
            return;
        }
        w->security = "vnc";
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_VNC);
    } else if (none) {
        w->security = "none";
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_NONE);
    } else if (ard) {
        fail(w, ERROR_INVALID_ARGUMENT,
             "the VNC server asks for a macOS account (Apple's type 30): give \"username\" and "
             "\"password\" (or \"password_env\")");
    } else {
        char *msg = xasprintf("the VNC server offers only security types %s; glovebox supports "
                              "None (1), VNC authentication (2), VeNCrypt (19) and Apple's "
                              "type 30",
                              offered);
        fail(w, ERROR_NOT_SUPPORTED, msg);
        free(msg);
    }
}

/* VeNCrypt's subtypes: X.509 (the server's certificate checked against
 * the CA and the host name) before anonymous TLS, which encrypts but
 * cannot tell who the server is and so needs tls_verify: false. */
static void on_choose_subtype(VncConnection *conn, unsigned type, GValueArray *subtypes,
                              gpointer ud)
{
    struct worker *w = ud;
    static const struct {
        unsigned type;
        bool verified, password;
    } known[] = {
        {VNC_CONNECTION_AUTH_VENCRYPT_X509VNC, true, true},
        {VNC_CONNECTION_AUTH_VENCRYPT_X509NONE, true, false},
        {VNC_CONNECTION_AUTH_VENCRYPT_TLSVNC, false, true},
        {VNC_CONNECTION_AUTH_VENCRYPT_TLSNONE, false, false},
    };
    if (type != VNC_CONNECTION_AUTH_VENCRYPT) {
        fail(w, ERROR_NOT_SUPPORTED, "the VNC server offers an unknown security subtype");
        return;
    }
    char offered[256] = "";
    bool anon = false;
    for (size_t k = 0; k < G_N_ELEMENTS(known); k++)
        for (guint i = 0; i < subtypes->n_values; i++) {
            if (nth_enum(subtypes, i) != known[k].type)
                continue;
            if (!known[k].verified && w->tls_verify) {
                anon = true;
                continue;
            }
            if (known[k].password && !w->password) {
                fail(w, ERROR_INVALID_ARGUMENT,
                     "the VNC server asks for a password (VeNCrypt with VNC authentication): "
                     "give \"password\" or \"password_env\"");
                return;
            }
            w->security = known[k].verified
                              ? (known[k].password ? "vencrypt-x509-vnc" : "vencrypt-x509-none")
                              : (known[k].password ? "vencrypt-tls-vnc" : "vencrypt-tls-none");
            w->tls = true;
            vnc_connection_set_auth_subtype(conn, known[k].type);
            return;
        }
    for (guint i = 0; i < subtypes->n_values; i++) {
        size_t n = strlen(offered);
        snprintf(offered + n, sizeof offered - n, "%s%u", n ? ", " : "", nth_enum(subtypes, i));
    }
    char *msg =
        anon ? xasprintf("the VNC server offers only anonymous TLS (VeNCrypt subtypes %s), which "
                         "cannot prove who the server is: give \"tls_verify\": false to accept "
                         "that",
                         offered)
             : xasprintf("the VNC server offers VeNCrypt subtypes %s; glovebox supports X509Vnc, "
                         "X509None, TLSVnc and TLSNone",
                         offered);
    fail(w, anon ? ERROR_INVALID_ARGUMENT : ERROR_NOT_SUPPORTED, msg);
    free(msg);
}

static void on_credential(VncConnection *conn, GValueArray *creds, gpointer ud)
{
    struct worker *w = ud;
    for (guint i = 0; i < creds->n_values; i++) {
        int what = (int)nth_enum(creds, i);
        const char *value = what == VNC_CONNECTION_CREDENTIAL_PASSWORD     ? w->password
                            : what == VNC_CONNECTION_CREDENTIAL_USERNAME   ? w->username
                            : what == VNC_CONNECTION_CREDENTIAL_CLIENTNAME ? "glovebox"
                                                                           : NULL;
        if (!value) {
            fail(w, ERROR_INVALID_ARGUMENT,
                 what == VNC_CONNECTION_CREDENTIAL_USERNAME
                     ? "the VNC server asks for a user name: give \"username\""
                     : "the VNC server asks for a password: give \"password\" or "
                       "\"password_env\"");
            return;
        }
        vnc_connection_set_credential(conn, what, value);
        w->auth_sent = true;
    }
    wipe_password(w);
}

static void on_auth_failure(VncConnection *conn, const char *reason, gpointer ud)
{
    (void)conn;
    /* The server's reason is its own text: bounded, never the password. */
    set_reason(ud, ERROR_INVALID_ARGUMENT,
               "the VNC server rejected the credentials (argument \"password\"): %.200s",
               reason && *reason ? reason : "authentication failed");
}

static void on_auth_unsupported(VncConnection *conn, unsigned type, gpointer ud)
{
    (void)conn;
    set_reason(ud, ERROR_NOT_SUPPORTED, "the VNC server's security type %u is not supported", type);
}

static void on_error(VncConnection *conn, const char *message, gpointer ud)
{
    (void)conn;
    struct worker *w = ud;
    /* Kept for the disconnect that follows, which says what it means. */
    free(w->lib_error);
    w->lib_error = xstrndup(message ? message : "unknown", message ? strnlen(message, 300) : 7);
}

static gboolean request_update(gpointer ud)
{
    struct worker *w = ud;
    w->request_source = 0;
    if (w->conn && vnc_connection_is_initialized(w->conn))
        vnc_connection_framebuffer_update_request(w->conn, TRUE, 0, 0, (guint16)w->width,
                                                  (guint16)w->height);
    return G_SOURCE_REMOVE;
}

static void on_update(VncConnection *conn, guint16 x, guint16 y, guint16 width, guint16 height,
                      gpointer ud)
{
    (void)conn;
    struct worker *w = ud;
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_UPDATE);
    vnc_wire_u32(&o, x);
    vnc_wire_u32(&o, y);
    vnc_wire_u32(&o, width);
    vnc_wire_u32(&o, height);
    worker_send(w, &o, -1);
    /* Ask for the next changes once this update has been read: the
     * framebuffer stays current without a request per screenshot. */
    if (!w->request_source)
        w->request_source = g_idle_add(request_update, w);
}

static void request_full(struct worker *w, VncConnection *conn)
{
    vnc_connection_framebuffer_update_request(conn, FALSE, 0, 0, (guint16)w->width,
                                              (guint16)w->height);
}

static void on_resize(VncConnection *conn, guint16 width, guint16 height, gpointer ud)
{
    (void)width;
    (void)height;
    if (make_framebuffer(ud, conn))
        request_full(ud, conn);
}

static void on_format(VncConnection *conn, VncPixelFormat *fmt, gpointer ud)
{
    (void)fmt;
    if (make_framebuffer(ud, conn))
        request_full(ud, conn);
}

/* RFB cut text is Latin-1; the module makes it UTF-8. libgvnc hands it
 * over as a string (the signal's type is gchararray, whatever its class
 * struct says). */
static void on_cut_text(VncConnection *conn, const char *text, gpointer ud)
{
    (void)conn;
    if (!text)
        return;
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_CUT_TEXT);
    vnc_wire_str(&o, text, strnlen(text, VNC_MAX_CUT_TEXT));
    worker_send(ud, &o, -1);
}

/* The server's pointer shape (libgvnc's VncCursor: native-endian ARGB
 * words); the module premultiplies it. Too large to be drawn, or none:
 * w = 0. */
static void on_cursor(VncConnection *conn, VncCursor *cursor, gpointer ud)
{
    (void)conn;
    int width = 0, height = 0, hx = 0, hy = 0;
    const guint8 *data = NULL;
    if (cursor) {
        width = vnc_cursor_get_width(cursor);
        height = vnc_cursor_get_height(cursor);
        hx = vnc_cursor_get_hotx(cursor);
        hy = vnc_cursor_get_hoty(cursor);
        data = vnc_cursor_get_data(cursor);
    }
    if (!data || width <= 0 || height <= 0 || width > VNC_MAX_CURSOR || height > VNC_MAX_CURSOR)
        width = height = hx = hy = 0;
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_CURSOR);
    vnc_wire_u32(&o, (uint32_t)width);
    vnc_wire_u32(&o, (uint32_t)height);
    vnc_wire_u32(&o, (uint32_t)hx);
    vnc_wire_u32(&o, (uint32_t)hy);
    vnc_wire_str(&o, data, width ? (size_t)width * (size_t)height * 4 : 0);
    worker_send(ud, &o, -1);
}

static void on_initialized(VncConnection *conn, gpointer ud)
{
    struct worker *w = ud;
    wipe_password(w);
    /* Raw last: every server has it; the rest save bandwidth. */
    gint32 encodings[] = {
        VNC_CONNECTION_ENCODING_DESKTOP_RESIZE,
        VNC_CONNECTION_ENCODING_EXTENDED_DESKTOP_RESIZE,
        VNC_CONNECTION_ENCODING_WMVi,
        VNC_CONNECTION_ENCODING_LAST_RECT,
        /* The pointer apart from the framebuffer (on_cursor): screenshots
         * draw it when asked, the viewer on top of the screen. */
        VNC_CONNECTION_ENCODING_RICH_CURSOR,
        VNC_CONNECTION_ENCODING_XCURSOR,
        VNC_CONNECTION_ENCODING_ZRLE,
        VNC_CONNECTION_ENCODING_HEXTILE,
        VNC_CONNECTION_ENCODING_RRE,
        VNC_CONNECTION_ENCODING_COPY_RECT,
        VNC_CONNECTION_ENCODING_RAW,
    };
    if (!vnc_connection_set_pixel_format(conn, &local_format) ||
        !vnc_connection_set_encodings(conn, G_N_ELEMENTS(encodings), encodings)) {
        fail(w, ERROR_DEVICE_UNAVAILABLE, "the VNC server did not take the pixel format");
        return;
    }
    if (!make_framebuffer(w, conn))
        return;
    request_full(w, conn);
    w->initialized = true;
    const char *name = vnc_connection_get_name(conn);
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_INITIALIZED);
    const char *sec = w->security ? w->security : "";
    vnc_wire_str(&o, sec, strlen(sec));
    vnc_wire_str(&o, name ? name : "", name ? strnlen(name, 256) : 0);
    worker_send(w, &o, -1);
}

/* Why this connection ended, in the words the module's user reads; detail
 * is the library's (a reconnect logs it). */
static void on_disconnected(VncConnection *conn, gpointer ud)
{
    struct worker *w = ud;
    const char *detail = w->lib_error ? w->lib_error : "no reason given";
    enum error_code front_code = ERROR_DEVICE_UNAVAILABLE;
    char *front_err = w->front ? vnc_tls_front_error(w->front, &front_code) : NULL;
    if (front_err)
        detail = front_err;
    if (front_err && !w->initialized)
        /* glovebox's TLS front says why, in full. */
        set_reason(w, front_code, "%s", front_err);
    else if (w->initialized && w->lib_error)
        set_reason(w, ERROR_DEVICE_UNAVAILABLE, "the VNC connection ended: %s", detail);
    else if (w->initialized)
        set_reason(w, ERROR_DEVICE_UNAVAILABLE, "the VNC server closed the connection");
    else if (w->tls && strstr(detail, "ertificate"))
        /* libgvnc checks it against the system's CAs, /etc/pki/CA/cacert.pem
         * and ~/.pki/CA/cacert.pem, and the host name. */
        set_reason(w, ERROR_DEVICE_UNAVAILABLE,
                   "the VNC server %s:%d presented a TLS certificate glovebox does not accept "
                   "(%s): it must be signed by a CA of the system's, /etc/pki/CA/cacert.pem or "
                   "~/.pki/CA/cacert.pem, and name the host",
                   w->host, w->port, detail);
    else if (w->auth_sent && strstr(detail, "uthentication"))
        /* VNC authentication's answer to a wrong password. */
        set_reason(w, ERROR_INVALID_ARGUMENT,
                   "the VNC server rejected the credentials (argument \"password\"): %s", detail);
    else
        set_reason(w, ERROR_DEVICE_UNAVAILABLE, "cannot connect to %s:%d: %s", w->host, w->port,
                   detail);
    /* The detail travels in lib_error. */
    if (front_err) {
        free(w->lib_error);
        w->lib_error = front_err;
    }
    g_signal_handlers_disconnect_by_data(conn, w);
    worker_done(w);
}

/* A new connection with the worker's handlers on its signals. */
static VncConnection *attach(struct worker *w)
{
    VncConnection *conn = vnc_connection_new();
    w->conn = conn;
    g_signal_connect(conn, "vnc-auth-choose-type", G_CALLBACK(on_choose_type), w);
    g_signal_connect(conn, "vnc-auth-choose-subtype", G_CALLBACK(on_choose_subtype), w);
    g_signal_connect(conn, "vnc-auth-credential", G_CALLBACK(on_credential), w);
    g_signal_connect(conn, "vnc-auth-failure", G_CALLBACK(on_auth_failure), w);
    g_signal_connect(conn, "vnc-auth-unsupported", G_CALLBACK(on_auth_unsupported), w);
    g_signal_connect(conn, "vnc-error", G_CALLBACK(on_error), w);
    g_signal_connect(conn, "vnc-initialized", G_CALLBACK(on_initialized), w);
    g_signal_connect(conn, "vnc-desktop-resize", G_CALLBACK(on_resize), w);
    g_signal_connect(conn, "vnc-pixel-format-changed", G_CALLBACK(on_format), w);
    g_signal_connect(conn, "vnc-framebuffer-update", G_CALLBACK(on_update), w);
    g_signal_connect(conn, "vnc-disconnected", G_CALLBACK(on_disconnected), w);
    g_signal_connect(conn, "vnc-server-cut-text", G_CALLBACK(on_cut_text), w);
    g_signal_connect(conn, "vnc-cursor-changed", G_CALLBACK(on_cursor), w);
    /* Other viewers of the same desktop stay connected. */
    vnc_connection_set_shared(conn, TRUE);
    return conn;
}

bool worker_conn_open(struct worker *w)
{
    VncConnection *conn = attach(w);
    char port[16];
    snprintf(port, sizeof port, "%d", w->port);
    bool opened;
    if (w->ca_file || !w->tls_verify) {
        /* What libgvnc's own TLS cannot do: glovebox's front speaks to the
         * server, libgvnc to the front. */
        int fd = -1;
        char *err = NULL;
        w->front = vnc_tls_front_start(w->host, w->port, w->timeout_ms, w->ca_file, w->tls_verify,
                                       &fd, &err);
        if (!w->front) {
            free(w->lib_error);
            w->lib_error = err;
        }
        opened = w->front && vnc_connection_open_fd_with_hostname(conn, fd, w->host);
        if (w->front && !opened)
            close(fd); /* the front then sees its end close, and stops */
    } else {
        opened = vnc_connection_open_host(conn, w->host, port);
    }
    if (!opened) {
        set_reason(w, ERROR_DEVICE_UNAVAILABLE, "cannot open a connection to %s:%d", w->host,
                   w->port);
        g_signal_handlers_disconnect_by_data(conn, w);
    }
    return opened;
}

bool worker_conn_open_fd(struct worker *w, int fd)
{
    VncConnection *conn = attach(w);
    if (vnc_connection_open_fd(conn, fd))
        return true;
    set_reason(w, ERROR_DEVICE_UNAVAILABLE, "cannot open a connection on descriptor %d", fd);
    g_signal_handlers_disconnect_by_data(conn, w);
    return false;
}

void worker_conn_input(struct worker *w, struct vnc_wire_in *in)
{
    bool ok = w->conn && vnc_connection_is_initialized(w->conn);
    while (ok && in->left && !in->bad) {
        uint32_t kind = vnc_wire_get_u32(in);
        if (kind == VNC_WIRE_KEY) {
            uint32_t down = vnc_wire_get_u32(in), keysym = vnc_wire_get_u32(in);
            ok = vnc_connection_key_event(w->conn, down != 0, keysym, 0);
        } else if (kind == VNC_WIRE_POINTER) {
            uint32_t buttons = vnc_wire_get_u32(in), x = vnc_wire_get_u32(in),
                     y = vnc_wire_get_u32(in);
            ok = vnc_connection_pointer_event(w->conn, (guint8)buttons, (guint16)x, (guint16)y);
        } else if (kind == VNC_WIRE_CUT) {
            size_t n;
            const uint8_t *s = vnc_wire_get_str(in, &n);
            ok = vnc_connection_client_cut_text(w->conn, s, n);
        } else {
            break;
        }
    }
}

void worker_conn_shutdown(struct worker *w)
{
    if (w->conn)
        vnc_connection_shutdown(w->conn);
}

void worker_conn_free(struct worker *w)
{
    if (w->request_source)
        g_source_remove(w->request_source);
    w->request_source = 0;
    if (w->conn)
        g_object_unref(w->conn);
    w->conn = NULL;
    vnc_tls_front_release(w->front);
    w->front = NULL;
    if (w->pixels)
        munmap(w->pixels, w->pixels_len);
    w->pixels = NULL;
    wipe_password(w);
    free(w->lib_error);
    free(w->reason);
    free(w->host);
    free(w->username);
    free(w->ca_file);
}
