/* The connection, on the GLib thread: libgvnc's handshake and signals, the
 * framebuffer it paints into, and the input events workers hand over. The
 * server is untrusted: its sizes are bounded, and whatever it does wrong
 * ends this connection alone. */
#define LOG_MODULE "vnc"
#include "backend/vnc/internal.h"
#include "backend/vnc/tls_front.h"

#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

/* libgvnc's headers have an enumerator over INT_MAX (MSLOGON), and its
 * signals hand over GValueArrays, deprecated in GLib. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <gvnc.h>
#pragma GCC diagnostic pop
#include <stdio.h>
#include <string.h>
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

/* Text from the server (its name, its reasons) made fit for JSON and a
 * log line: invalid UTF-8 and control characters become '?'. In place. */
static void clean_text(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (k == 0 || cp < 0x20 || cp == 0x7f) {
            s[i++] = '?';
            continue;
        }
        i += k;
    }
}

/* First reason wins: the server's words come before the disconnect's. */
static void set_reason(struct vnc *v, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_reason(struct vnc *v, enum error_code code, const char *fmt, ...)
{
    pthread_mutex_lock(&v->mu);
    if (!v->close_reason) {
        va_list ap;
        va_start(ap, fmt);
        v->close_reason = xvasprintf(fmt, ap);
        va_end(ap);
        clean_text(v->close_reason);
        v->close_code = code;
    }
    pthread_mutex_unlock(&v->mu);
}

/* At the handshake's end unless the connection may be made again; always
 * at the session's. */
static void wipe_password(struct vnc *v, bool final)
{
    if (v->password && (final || !v->reconnect_ms)) {
        explicit_bzero(v->password, strlen(v->password));
        free(v->password);
        v->password = NULL;
    }
}

static void fail(struct vnc *v, enum error_code code, const char *msg)
{
    set_reason(v, code, "%s", msg);
    vnc_connection_shutdown(v->conn);
}

/* A new framebuffer of the connection's size and the server's format. */
static bool make_framebuffer(struct vnc *v, VncConnection *conn)
{
    int w = vnc_connection_get_width(conn), h = vnc_connection_get_height(conn);
    if (w <= 0 || h <= 0 || (uint64_t)w * (uint64_t)h > VNC_MAX_PIXELS) {
        char *msg = xasprintf("the VNC server announced a %dx%d screen (at most %u pixels are "
                              "accepted)",
                              w, h, VNC_MAX_PIXELS);
        fail(v, ERROR_DEVICE_UNAVAILABLE, msg);
        free(msg);
        return false;
    }
    const VncPixelFormat *remote = vnc_connection_get_pixel_format(conn);
    uint8_t *pixels = xcalloc((size_t)w * (size_t)h, 4);
    VncBaseFramebuffer *fb =
        vnc_base_framebuffer_new(pixels, (guint16)w, (guint16)h, w * 4, &local_format, remote);
    pthread_mutex_lock(&v->mu);
    uint8_t *old = v->pixels;
    v->pixels = pixels;
    v->width = w;
    v->height = h;
    v->covered = 0;
    v->full = false;
    pthread_mutex_unlock(&v->mu);
    /* The connection drops its old framebuffer (which pointed at old). */
    vnc_connection_set_framebuffer(conn, VNC_FRAMEBUFFER(fb));
    g_object_unref(fb);
    free(old);
    return true;
}

static unsigned nth_enum(GValueArray *a, guint i)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return (unsigned)g_value_get_enum(g_value_array_get_nth(a, i));
#pragma GCC diagnostic pop
}

static void choose_type(VncConnection *conn, GValueArray *types, struct vnc *v);

static void on_choose_type(VncConnection *conn, GValueArray *types, gpointer ud)
{
    struct vnc *v = ud;
    choose_type(conn, types, v);
    /* glovebox's TLS front did VeNCrypt: libgvnc saw its inner type. */
    const char *tls = v->front ? vnc_tls_front_security(v->front) : NULL;
    if (tls)
        v->security = tls;
}

static void choose_type(VncConnection *conn, GValueArray *types, struct vnc *v)
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
    } else if (ard && v->username) {
        if (!v->password) {
            fail(v, ERROR_INVALID_ARGUMENT,
                 "the VNC server asks for a macOS account (Apple's type 30): give \"password\" "
                 "or \"password_env\" with \"username\"");
            return;
        }
        v->security = "ard";
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_ARD);
    } else if (vnc && (v->password || !none)) {
        if (!v->password) {
            fail(v, ERROR_INVALID_ARGUMENT,
                 "the VNC server asks for a password (VNC authentication): give \"password\" "
                 "or \"password_env\"");
            return;
        }
        v->security = "vnc";
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_VNC);
    } else if (none) {
        v->security = "none";
        vnc_connection_set_auth_type(conn, VNC_CONNECTION_AUTH_NONE);
    } else if (ard) {
        fail(v, ERROR_INVALID_ARGUMENT,
             "the VNC server asks for a macOS account (Apple's type 30): give \"username\" and "
             "\"password\" (or \"password_env\")");
    } else {
        char *msg = xasprintf("the VNC server offers only security types %s; glovebox supports "
                              "None (1), VNC authentication (2), VeNCrypt (19) and Apple's "
                              "type 30",
                              offered);
        fail(v, ERROR_NOT_SUPPORTED, msg);
        free(msg);
    }
}

/* VeNCrypt's subtypes: X.509 (the server's certificate checked against
 * the CA and the host name) before anonymous TLS, which encrypts but
 * cannot tell who the server is and so needs tls_verify: false. */
static void on_choose_subtype(VncConnection *conn, unsigned type, GValueArray *subtypes,
                              gpointer ud)
{
    struct vnc *v = ud;
    static const struct {
        unsigned type;
        const char *name;
        bool verified, password;
    } known[] = {
        {VNC_CONNECTION_AUTH_VENCRYPT_X509VNC, "x509-vnc", true, true},
        {VNC_CONNECTION_AUTH_VENCRYPT_X509NONE, "x509-none", true, false},
        {VNC_CONNECTION_AUTH_VENCRYPT_TLSVNC, "tls-vnc", false, true},
        {VNC_CONNECTION_AUTH_VENCRYPT_TLSNONE, "tls-none", false, false},
    };
    if (type != VNC_CONNECTION_AUTH_VENCRYPT) {
        fail(v, ERROR_NOT_SUPPORTED, "the VNC server offers an unknown security subtype");
        return;
    }
    char offered[256] = "";
    bool anon = false;
    for (size_t k = 0; k < G_N_ELEMENTS(known); k++)
        for (guint i = 0; i < subtypes->n_values; i++) {
            if (nth_enum(subtypes, i) != known[k].type)
                continue;
            if (!known[k].verified && v->tls_verify) {
                anon = true;
                continue;
            }
            if (known[k].password && !v->password) {
                fail(v, ERROR_INVALID_ARGUMENT,
                     "the VNC server asks for a password (VeNCrypt with VNC authentication): "
                     "give \"password\" or \"password_env\"");
                return;
            }
            v->security = known[k].verified
                              ? (known[k].password ? "vencrypt-x509-vnc" : "vencrypt-x509-none")
                              : (known[k].password ? "vencrypt-tls-vnc" : "vencrypt-tls-none");
            v->tls = true;
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
    fail(v, anon ? ERROR_INVALID_ARGUMENT : ERROR_NOT_SUPPORTED, msg);
    free(msg);
}

static void on_credential(VncConnection *conn, GValueArray *creds, gpointer ud)
{
    struct vnc *v = ud;
    for (guint i = 0; i < creds->n_values; i++) {
        int what = (int)nth_enum(creds, i);
        const char *value = what == VNC_CONNECTION_CREDENTIAL_PASSWORD     ? v->password
                            : what == VNC_CONNECTION_CREDENTIAL_USERNAME   ? v->username
                            : what == VNC_CONNECTION_CREDENTIAL_CLIENTNAME ? "glovebox"
                                                                           : NULL;
        if (!value) {
            fail(v, ERROR_INVALID_ARGUMENT,
                 what == VNC_CONNECTION_CREDENTIAL_USERNAME
                     ? "the VNC server asks for a user name: give \"username\""
                     : "the VNC server asks for a password: give \"password\" or "
                       "\"password_env\"");
            return;
        }
        vnc_connection_set_credential(conn, what, value);
        v->auth_sent = true;
    }
    wipe_password(v, false);
}

static void on_auth_failure(VncConnection *conn, const char *reason, gpointer ud)
{
    (void)conn;
    struct vnc *v = ud;
    /* The server's reason is its own text: bounded, never the password. */
    set_reason(v, ERROR_INVALID_ARGUMENT,
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
    struct vnc *v = ud;
    /* Kept for the disconnect that follows, which says what it means. */
    g_free(v->lib_error);
    v->lib_error = g_strndup(message ? message : "unknown", 300);
}

static gboolean request_update(gpointer ud)
{
    struct vnc *v = ud;
    v->request_source = 0;
    if (v->conn && vnc_connection_is_initialized(v->conn))
        vnc_connection_framebuffer_update_request(v->conn, TRUE, 0, 0, (guint16)v->width,
                                                  (guint16)v->height);
    return G_SOURCE_REMOVE;
}

static void on_update(VncConnection *conn, guint16 x, guint16 y, guint16 w, guint16 h, gpointer ud)
{
    (void)conn;
    struct vnc *v = ud;
    pthread_mutex_lock(&v->mu);
    v->covered += (uint64_t)w * h;
    /* Rectangles of one full update do not overlap: once they add up to
     * the screen, a whole frame has arrived (a cursor-only first update
     * adds nothing). */
    if (v->covered >= (uint64_t)v->width * (uint64_t)v->height)
        v->full = true;
    /* A change outside the viewport is no change of this session's screen
     * (wait_for stable_ms, OCR again). */
    if (!v->vp_w ||
        (x < v->vp_x + v->vp_w && x + w > v->vp_x && y < v->vp_y + v->vp_h && y + h > v->vp_y))
        v->serial++;
    bool tell = v->serial_watched;
    pthread_cond_broadcast(&v->changed);
    pthread_mutex_unlock(&v->mu);
    if (tell)
        uv_async_send(&v->wake);
    /* Ask for the next changes once this update has been read: the
     * framebuffer stays current without a request per screenshot. */
    if (!v->request_source)
        v->request_source = g_idle_add(request_update, v);
}

static void request_full(struct vnc *v, VncConnection *conn)
{
    vnc_connection_framebuffer_update_request(conn, FALSE, 0, 0, (guint16)v->width,
                                              (guint16)v->height);
}

static void on_resize(VncConnection *conn, guint16 w, guint16 h, gpointer ud)
{
    (void)w;
    (void)h;
    struct vnc *v = ud;
    if (make_framebuffer(v, conn))
        request_full(v, conn);
}

static void on_format(VncConnection *conn, VncPixelFormat *fmt, gpointer ud)
{
    (void)fmt;
    struct vnc *v = ud;
    if (make_framebuffer(v, conn))
        request_full(v, conn);
}

/* RFB cut text is Latin-1: kept as UTF-8, bounded. libgvnc hands it
 * over as a string (the signal's type is gchararray, whatever its class
 * struct says). */
static void on_cut_text(VncConnection *conn, const char *text, gpointer ud)
{
    (void)conn;
    struct vnc *v = ud;
    if (!text)
        return;
    size_t n = strnlen(text, VNC_MAX_CUT_TEXT);
    char *utf8 = xmalloc(2 * n + 1), *o = utf8;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x80) {
            *o++ = (char)c;
        } else {
            *o++ = (char)(0xc0 | (c >> 6));
            *o++ = (char)(0x80 | (c & 0x3f));
        }
    }
    *o = '\0';
    pthread_mutex_lock(&v->mu);
    free(v->cut_text);
    v->cut_text = utf8;
    pthread_mutex_unlock(&v->mu);
}

/* The server's pointer shape (libgvnc's VncCursor: native-endian ARGB
 * words, alpha 0 or 255 for RichCursor and XCursor), kept premultiplied as
 * the frame pipeline draws it. NULL: the server hides the pointer. */
static void on_cursor(VncConnection *conn, VncCursor *cursor, gpointer ud)
{
    (void)conn;
    struct vnc *v = ud;
    uint32_t *argb = NULL;
    int w = 0, h = 0, hx = 0, hy = 0;
    if (cursor) {
        w = vnc_cursor_get_width(cursor);
        h = vnc_cursor_get_height(cursor);
        hx = vnc_cursor_get_hotx(cursor);
        hy = vnc_cursor_get_hoty(cursor);
        const guint8 *data = vnc_cursor_get_data(cursor);
        if (data && w > 0 && h > 0 && w <= VNC_MAX_CURSOR && h <= VNC_MAX_CURSOR) {
            argb = xmalloc((size_t)w * (size_t)h * sizeof *argb);
            memcpy(argb, data, (size_t)w * (size_t)h * sizeof *argb);
            for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
                uint32_t p = argb[i], a = p >> 24;
                argb[i] = a << 24 | (((p >> 16) & 0xff) * a / 255) << 16 |
                          (((p >> 8) & 0xff) * a / 255) << 8 | ((p & 0xff) * a / 255);
            }
        }
    }
    pthread_mutex_lock(&v->mu);
    free(v->cursor_argb);
    v->cursor_argb = argb;
    v->cursor_w = argb ? w : 0;
    v->cursor_h = argb ? h : 0;
    v->cursor_hot_x = hx;
    v->cursor_hot_y = hy;
    pthread_mutex_unlock(&v->mu);
}

bool vnc_cursor_copy(struct vnc *v, struct frame_cursor *out)
{
    pthread_mutex_lock(&v->mu);
    bool ok = v->cursor_argb && v->pointer_known;
    if (ok) {
        size_t n = (size_t)v->cursor_w * (size_t)v->cursor_h;
        *out = (struct frame_cursor){.x = v->pointer_x - v->cursor_hot_x,
                                     .y = v->pointer_y - v->cursor_hot_y,
                                     .hot_x = v->cursor_hot_x,
                                     .hot_y = v->cursor_hot_y,
                                     .width = (uint32_t)v->cursor_w,
                                     .height = (uint32_t)v->cursor_h,
                                     .argb = xmalloc(n * sizeof *out->argb)};
        memcpy(out->argb, v->cursor_argb, n * sizeof *out->argb);
    }
    pthread_mutex_unlock(&v->mu);
    return ok;
}

static void on_initialized(VncConnection *conn, gpointer ud)
{
    struct vnc *v = ud;
    wipe_password(v, false);
    if (v->handshake_source) {
        g_source_remove(v->handshake_source);
        v->handshake_source = 0;
    }
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
        fail(v, ERROR_DEVICE_UNAVAILABLE, "the VNC server did not take the pixel format");
        return;
    }
    if (!make_framebuffer(v, conn))
        return;
    request_full(v, conn);
    const char *name = vnc_connection_get_name(conn);
    pthread_mutex_lock(&v->mu);
    v->initialized = true;
    free(v->server_name);
    v->server_name = xstrndup(name ? name : "", name ? strnlen(name, 256) : 0);
    clean_text(v->server_name);
    bool again = v->reconnecting;
    /* Calls waiting through the gap go on once the first frame is in. */
    v->reconnecting = false;
    pthread_cond_broadcast(&v->changed);
    pthread_mutex_unlock(&v->mu);
    if (again)
        log_info("reconnected to %s:%d after %lld ms", v->host, v->port,
                 (long long)((g_get_monotonic_time() - v->dropped_at) / 1000));
    v->dropped_at = 0;
    uv_async_send(&v->wake);
}

/* After the disconnect signal has returned: libgvnc is done with conn. */
static void drop_conn(struct vnc *v)
{
    if (v->request_source) {
        g_source_remove(v->request_source);
        v->request_source = 0;
    }
    if (v->handshake_source) {
        g_source_remove(v->handshake_source);
        v->handshake_source = 0;
    }
    if (v->conn)
        g_object_unref(v->conn);
    v->conn = NULL;
    vnc_tls_front_release(v->front);
    v->front = NULL;
}

static gboolean release(gpointer ud)
{
    struct vnc *v = ud;
    drop_conn(v);
    if (v->retry_source) {
        g_source_remove(v->retry_source);
        v->retry_source = 0;
    }
    wipe_password(v, true);
    pthread_mutex_lock(&v->mu);
    v->gone = true;
    v->reconnecting = false;
    pthread_cond_broadcast(&v->changed);
    /* Under mu: once the loop sees gone, this thread no longer touches v
     * (but for idles already posted, which run before its free). */
    uv_async_send(&v->wake);
    pthread_mutex_unlock(&v->mu);
    return G_SOURCE_REMOVE;
}

/* A try's handshake took too long: that try has failed. */
static gboolean handshake_late(gpointer ud)
{
    struct vnc *v = ud;
    v->handshake_source = 0;
    if (v->conn)
        vnc_connection_shutdown(v->conn);
    return G_SOURCE_REMOVE;
}

static gboolean retry(gpointer ud)
{
    struct vnc *v = ud;
    v->retry_source = 0;
    v->auth_sent = false;
    v->handshake_source = g_timeout_add((guint)v->timeout_ms, handshake_late, v);
    vnc_conn_open(v);
    return G_SOURCE_REMOVE;
}

/* After the disconnect signal has returned: the dropped connection is
 * let go, and the next try comes after the backoff (250 ms, doubling up
 * to 2 s). */
static gboolean drop(gpointer ud)
{
    struct vnc *v = ud;
    drop_conn(v);
    g_clear_pointer(&v->lib_error, g_free);
    if (v->closing)
        return release(v);
    v->retry_source = g_timeout_add((guint)v->backoff_ms, retry, v);
    v->backoff_ms = v->backoff_ms * 2 > 2000 ? 2000 : v->backoff_ms * 2;
    return G_SOURCE_REMOVE;
}

/* A live connection dropped, or a try to make it again failed: try again
 * while reconnect_s lasts. */
static bool try_again(struct vnc *v, const char *detail)
{
    if (!v->reconnect_ms || v->closing)
        return false;
    gint64 now = g_get_monotonic_time();
    if (!v->dropped_at) {
        v->dropped_at = now;
        v->backoff_ms = 250;
        log_warn("the connection to %s:%d dropped (%s); reconnecting for up to %d s", v->host,
                 v->port, detail, v->reconnect_ms / 1000);
        pthread_mutex_lock(&v->mu);
        v->reconnecting = true;
        pthread_mutex_unlock(&v->mu);
    }
    return now - v->dropped_at < (gint64)v->reconnect_ms * 1000;
}

static void on_disconnected(VncConnection *conn, gpointer ud)
{
    (void)conn;
    struct vnc *v = ud;
    pthread_mutex_lock(&v->mu);
    bool initialized = v->initialized;
    pthread_mutex_unlock(&v->mu);
    const char *detail = v->lib_error ? v->lib_error : "no reason given";
    enum error_code front_code = ERROR_DEVICE_UNAVAILABLE;
    char *front_err = v->front ? vnc_tls_front_error(v->front, &front_code) : NULL;
    if (front_err)
        detail = front_err;
    if (initialized && try_again(v, detail)) {
        free(front_err);
        g_signal_handlers_disconnect_by_data(conn, v);
        vnc_glib_post(drop, v);
        return;
    }
    if (front_err && !initialized)
        /* glovebox's TLS front says why, in full. */
        set_reason(v, front_code, "%s", front_err);
    else if (v->dropped_at)
        set_reason(v, ERROR_DEVICE_UNAVAILABLE,
                   "the VNC connection ended and was not made again within %d s: %s",
                   v->reconnect_ms / 1000, detail);
    else if (initialized && v->lib_error)
        set_reason(v, ERROR_DEVICE_UNAVAILABLE, "the VNC connection ended: %s", detail);
    else if (initialized)
        set_reason(v, ERROR_DEVICE_UNAVAILABLE, "the VNC server closed the connection");
    else if (v->tls && strstr(detail, "ertificate"))
        /* libgvnc checks it against the system's CAs, /etc/pki/CA/cacert.pem
         * and ~/.pki/CA/cacert.pem, and the host name. */
        set_reason(v, ERROR_DEVICE_UNAVAILABLE,
                   "the VNC server %s:%d presented a TLS certificate glovebox does not accept "
                   "(%s): it must be signed by a CA of the system's, /etc/pki/CA/cacert.pem or "
                   "~/.pki/CA/cacert.pem, and name the host",
                   v->host, v->port, detail);
    else if (v->auth_sent && strstr(detail, "uthentication"))
        /* VNC authentication's answer to a wrong password. */
        set_reason(v, ERROR_INVALID_ARGUMENT,
                   "the VNC server rejected the credentials (argument \"password\"): %s", detail);
    else
        set_reason(v, ERROR_DEVICE_UNAVAILABLE, "cannot connect to %s:%d: %s", v->host, v->port,
                   detail);
    free(front_err);
    g_signal_handlers_disconnect_by_data(conn, v);
    vnc_glib_post(release, v);
}

gboolean vnc_conn_open(gpointer ud)
{
    struct vnc *v = ud;
    VncConnection *conn = vnc_connection_new();
    v->conn = conn;
    g_signal_connect(conn, "vnc-auth-choose-type", G_CALLBACK(on_choose_type), v);
    g_signal_connect(conn, "vnc-auth-choose-subtype", G_CALLBACK(on_choose_subtype), v);
    g_signal_connect(conn, "vnc-auth-credential", G_CALLBACK(on_credential), v);
    g_signal_connect(conn, "vnc-auth-failure", G_CALLBACK(on_auth_failure), v);
    g_signal_connect(conn, "vnc-auth-unsupported", G_CALLBACK(on_auth_unsupported), v);
    g_signal_connect(conn, "vnc-error", G_CALLBACK(on_error), v);
    g_signal_connect(conn, "vnc-initialized", G_CALLBACK(on_initialized), v);
    g_signal_connect(conn, "vnc-desktop-resize", G_CALLBACK(on_resize), v);
    g_signal_connect(conn, "vnc-pixel-format-changed", G_CALLBACK(on_format), v);
    g_signal_connect(conn, "vnc-framebuffer-update", G_CALLBACK(on_update), v);
    g_signal_connect(conn, "vnc-disconnected", G_CALLBACK(on_disconnected), v);
    g_signal_connect(conn, "vnc-server-cut-text", G_CALLBACK(on_cut_text), v);
    g_signal_connect(conn, "vnc-cursor-changed", G_CALLBACK(on_cursor), v);
    /* Other viewers of the same desktop stay connected. */
    vnc_connection_set_shared(conn, TRUE);
    char port[16];
    snprintf(port, sizeof port, "%d", v->port);
    bool opened;
    if (v->ca_file || !v->tls_verify) {
        /* What libgvnc's own TLS cannot do: glovebox's front speaks to the
         * server, libgvnc to the front. */
        int fd = -1;
        char *err = NULL;
        v->front = vnc_tls_front_start(v->host, v->port, v->timeout_ms, v->ca_file, v->tls_verify,
                                       &fd, &err);
        if (!v->front) {
            g_free(v->lib_error);
            v->lib_error = g_strdup(err);
            free(err);
        }
        opened = v->front && vnc_connection_open_fd_with_hostname(conn, fd, v->host);
        if (v->front && !opened)
            close(fd); /* the front then sees its end close, and stops */
    } else {
        opened = vnc_connection_open_host(conn, v->host, port);
    }
    if (!opened) {
        if (v->dropped_at) {
            /* A try to reconnect: the next one, or the end. */
            on_disconnected(conn, v);
            return G_SOURCE_REMOVE;
        }
        set_reason(v, ERROR_DEVICE_UNAVAILABLE, "cannot open a connection to %s:%d", v->host,
                   v->port);
        g_signal_handlers_disconnect_by_data(conn, v);
        vnc_glib_post(release, v);
    }
    return G_SOURCE_REMOVE;
}

gboolean vnc_conn_shutdown(gpointer ud)
{
    struct vnc *v = ud;
    v->closing = true;
    if (v->conn)
        vnc_connection_shutdown(v->conn);
    else if (v->retry_source)
        /* Between two tries: nothing to wait for. */
        release(v);
    return G_SOURCE_REMOVE;
}

/* ---- input, from workers ---- */

struct send {
    struct vnc *v;
    const struct vnc_event *ev;
    int n;
    bool ok;
    bool refused; /* a person has control */
    bool done;
    GMutex m;
    GCond c;
};

static gboolean send_now(gpointer ud)
{
    struct send *s = ud;
    struct vnc *v = s->v;
    /* The agent's events, refused while a person has control (view.c). */
    bool refused = vnc_view_refuses(v);
    bool ok = !refused && v->conn && vnc_connection_is_initialized(v->conn);
    for (int i = 0; ok && i < s->n; i++) {
        const struct vnc_event *e = &s->ev[i];
        /* Points are the viewport's: its corner moves them onto the screen. */
        ok = e->cut   ? vnc_connection_client_cut_text(v->conn, e->cut, e->cut_len)
             : e->key ? vnc_connection_key_event(v->conn, e->down, e->keysym, 0)
                      : vnc_connection_pointer_event(v->conn, e->buttons, (guint16)(e->x + v->vp_x),
                                                     (guint16)(e->y + v->vp_y));
        if (ok)
            vnc_view_sent(v, e);
    }
    g_mutex_lock(&s->m);
    s->ok = ok;
    s->refused = refused;
    s->done = true;
    g_cond_signal(&s->c);
    g_mutex_unlock(&s->m);
    return G_SOURCE_REMOVE;
}

static char *gone_message(struct vnc *v)
{
    pthread_mutex_lock(&v->mu);
    char *msg = v->reconnecting && !v->gone
                    ? xasprintf("the connection to %s:%d dropped and is being made again (for up "
                                "to %d s after the drop); try again",
                                v->host, v->port, v->reconnect_ms / 1000)
                    : xasprintf("the connection to %s:%d is gone: %s", v->host, v->port,
                                v->close_reason ? v->close_reason : "closed");
    pthread_mutex_unlock(&v->mu);
    return msg;
}

bool vnc_send(struct vnc *v, const struct vnc_event *ev, int n, bool *refused, char **err)
{
    struct send s = {.v = v, .ev = ev, .n = n};
    g_mutex_init(&s.m);
    g_cond_init(&s.c);
    vnc_glib_post(send_now, &s);
    g_mutex_lock(&s.m);
    while (!s.done)
        g_cond_wait(&s.c, &s.m);
    g_mutex_unlock(&s.m);
    g_mutex_clear(&s.m);
    g_cond_clear(&s.c);
    *refused = s.refused;
    if (s.refused)
        *err = xstrdup("a person has control of the session (in the live viewer)");
    else if (!s.ok)
        *err = gone_message(v);
    return s.ok;
}

void vnc_size(struct vnc *v, int *w, int *h)
{
    pthread_mutex_lock(&v->mu);
    *w = v->vp_w ? v->vp_w : v->width;
    *h = v->vp_w ? v->vp_h : v->height;
    pthread_mutex_unlock(&v->mu);
}

bool vnc_copy_frame(struct vnc *v, int wait_ms, struct frame *f, uint64_t *serial,
                    enum error_code *code, char **err)
{
    return vnc_copy_frame_last(v, wait_ms, false, f, serial, code, err);
}

bool vnc_copy_frame_last(struct vnc *v, int wait_ms, bool even_gone, struct frame *f,
                         uint64_t *serial, enum error_code *code, char **err)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&v->mu);
    while ((!v->full || v->reconnecting) && !v->gone)
        if (pthread_cond_timedwait(&v->changed, &v->mu, &until) != 0)
            break;
    if (((v->gone || v->reconnecting) && !(even_gone && v->full)) || !v->pixels) {
        pthread_mutex_unlock(&v->mu); /* gone_message takes it */
        *code = ERROR_DEVICE_UNAVAILABLE;
        *err = gone_message(v);
        return false;
    }
    if (!v->full) {
        int w = v->width, h = v->height;
        pthread_mutex_unlock(&v->mu);
        *code = ERROR_TIMEOUT;
        *err = xasprintf("the VNC server sent no whole %dx%d frame within %d ms", w, h, wait_ms);
        return false;
    }
    int x0 = 0, y0 = 0, w = v->width, h = v->height;
    if (v->vp_w) {
        if (v->vp_x + v->vp_w > v->width || v->vp_y + v->vp_h > v->height) {
            /* The server's screen shrank under the viewport. */
            *err = xasprintf("the viewport %d,%d %dx%d no longer fits the server's %dx%d screen",
                             v->vp_x, v->vp_y, v->vp_w, v->vp_h, v->width, v->height);
            pthread_mutex_unlock(&v->mu);
            *code = ERROR_DEVICE_UNAVAILABLE;
            return false;
        }
        x0 = v->vp_x, y0 = v->vp_y, w = v->vp_w, h = v->vp_h;
    }
    frame_alloc(f, (uint32_t)w, (uint32_t)h);
    size_t row = (size_t)w * 4, src_row = (size_t)v->width * 4;
    for (int y = 0; y < h; y++)
        memcpy(f->rgba + (size_t)y * f->stride,
               v->pixels + (size_t)(y0 + y) * src_row + (size_t)x0 * 4, row);
    if (serial)
        *serial = v->serial;
    pthread_mutex_unlock(&v->mu);
    for (uint32_t y = 0; y < f->height; y++)
        for (size_t i = 3; i < row; i += 4)
            f->rgba[(size_t)y * f->stride + i] = 0xff;
    return true;
}
