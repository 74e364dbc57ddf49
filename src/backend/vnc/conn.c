/* The connection, on the module's GLib thread: a process of its own per
 * try (glovebox-vnc-worker, worker_main.c) runs libgvnc; this side reads
 * what it reports (wire.h) into the session's state, maps the framebuffer
 * it paints, hands it the input workers post, and makes the connection
 * again when it drops. The server is untrusted, and so is the process that
 * parses its bytes: every message is checked, and whatever either does
 * wrong, up to the process dying, ends this connection alone. */
#define LOG_MODULE "vnc"
#include "backend/vnc/internal.h"

#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <fcntl.h>
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long an ending process may take before it is killed. */
#define END_GRACE_MS 3000
/* The longest reason kept from the process. */
#define MAX_REASON 1000

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

/* Once it has gone to the process unless the connection may be made
 * again; always at the session's end. */
static void wipe_password(struct vnc *v, bool final)
{
    if (v->password && (final || !v->reconnect_ms)) {
        explicit_bzero(v->password, strlen(v->password));
        free(v->password);
        v->password = NULL;
    }
}

/* The process broke the protocol: it is stopped, and says so as it ends. */
static void broken(struct vnc_proc *p, const char *what)
{
    if (!p->broken)
        p->broken = xstrdup(what);
    vnc_proc_kill(p);
}

static bool send_msg(struct vnc_proc *p, struct vnc_wire_out *o)
{
    if (vnc_wire_send(p->sock, o, -1, NULL))
        return true;
    /* Gone, or not reading for seconds: either way it is done. */
    broken(p, "stopped reading glovebox's messages");
    return false;
}

/* ---- what the process reports ---- */

static void on_framebuffer(struct vnc *v, struct vnc_proc *p, struct vnc_wire_in *in)
{
    uint32_t w = vnc_wire_get_u32(in), h = vnc_wire_get_u32(in);
    int fd = vnc_wire_take_fd(&p->rd);
    struct stat st;
    int seals = fd >= 0 ? fcntl(fd, F_GET_SEALS) : -1;
    uint64_t len = (uint64_t)w * h * 4;
    /* Its size checked before mapping, and sealed against shrinking: a
     * mapping that outgrew its file would fault on reading. */
    if (in->bad || fd < 0 || !w || !h || (uint64_t)w * h > VNC_MAX_PIXELS || fstat(fd, &st) != 0 ||
        (uint64_t)st.st_size < len || seals < 0 || !(seals & F_SEAL_SHRINK)) {
        if (fd >= 0)
            close(fd);
        broken(p, "sent a framebuffer glovebox does not accept");
        return;
    }
    uint8_t *pixels = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (pixels == MAP_FAILED) {
        broken(p, "sent a framebuffer glovebox cannot map");
        return;
    }
    pthread_mutex_lock(&v->mu);
    uint8_t *old = v->pixels;
    size_t old_len = v->pixels_len;
    v->pixels = pixels;
    v->pixels_len = (size_t)len;
    v->width = (int)w;
    v->height = (int)h;
    v->covered = 0;
    v->full = false;
    pthread_mutex_unlock(&v->mu);
    /* Readers copy under mu: nobody reads old now. */
    if (old)
        munmap(old, old_len);
}

/* The names the process may report, as glovebox's own strings. */
static const char *security_name(const uint8_t *s, size_t n)
{
    static const char *const known[] = {"none",
                                        "vnc",
                                        "ard",
                                        "vencrypt-x509-vnc",
                                        "vencrypt-x509-none",
                                        "vencrypt-tls-vnc",
                                        "vencrypt-tls-none"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strlen(known[i]) == n && memcmp(known[i], s, n) == 0)
            return known[i];
    return NULL;
}

static void on_initialized(struct vnc *v, struct vnc_proc *p, struct vnc_wire_in *in)
{
    size_t n;
    const uint8_t *sec = vnc_wire_get_str(in, &n);
    const char *security = security_name(sec, n);
    const uint8_t *name = vnc_wire_get_str(in, &n);
    if (in->bad || !security || n > 256) {
        broken(p, "reported a handshake glovebox does not accept");
        return;
    }
    if (v->handshake_source) {
        g_source_remove(v->handshake_source);
        v->handshake_source = 0;
    }
    p->live = true;
    char *server_name = xstrndup((const char *)name, n);
    for (size_t i = 0; i < n; i++)
        if (!server_name[i])
            server_name[i] = '?';
    clean_text(server_name);
    pthread_mutex_lock(&v->mu);
    v->initialized = true;
    v->security = security;
    free(v->server_name);
    v->server_name = server_name;
    bool again = v->reconnecting;
    /* Calls waiting through the gap go on once the first frame is in. */
    v->reconnecting = false;
    pthread_cond_broadcast(&v->changed);
    pthread_mutex_unlock(&v->mu);
    if (again)
        log_info("reconnected to %s:%d after %lld ms", v->host, v->port,
                 (long long)((g_get_monotonic_time() - v->dropped_at) / 1000));
    p->live_at = g_get_monotonic_time();
    /* After a process the server's data killed, the drop's time runs on
     * until this connection has lasted (proc_ended): a server that kills
     * every process it meets is not connected to forever. */
    if (!v->last_crashed)
        v->dropped_at = 0;
    uv_async_send(&v->wake);
}

static void on_update(struct vnc *v, struct vnc_proc *p, struct vnc_wire_in *in)
{
    uint32_t x = vnc_wire_get_u32(in), y = vnc_wire_get_u32(in), w = vnc_wire_get_u32(in),
             h = vnc_wire_get_u32(in);
    if (in->bad || x > 65535 || y > 65535 || w > 65535 || h > 65535) {
        broken(p, "reported an update glovebox does not accept");
        return;
    }
    pthread_mutex_lock(&v->mu);
    v->covered += (uint64_t)w * h;
    /* Rectangles of one full update do not overlap: once they add up to
     * the screen, a whole frame has arrived (a cursor-only first update
     * adds nothing). */
    if (v->pixels && v->covered >= (uint64_t)v->width * (uint64_t)v->height)
        v->full = true;
    /* A change outside the viewport is no change of this session's screen
     * (wait_for stable_ms, OCR again). */
    if (!v->vp_w || ((int)x < v->vp_x + v->vp_w && (int)(x + w) > v->vp_x &&
                     (int)y < v->vp_y + v->vp_h && (int)(y + h) > v->vp_y))
        v->serial++;
    bool tell = v->serial_watched;
    pthread_cond_broadcast(&v->changed);
    pthread_mutex_unlock(&v->mu);
    if (tell)
        uv_async_send(&v->wake);
}

/* RFB cut text is Latin-1: kept as UTF-8, bounded. */
static void on_cut_text(struct vnc *v, struct vnc_proc *p, struct vnc_wire_in *in)
{
    size_t n;
    const uint8_t *text = vnc_wire_get_str(in, &n);
    if (in->bad || n > VNC_MAX_CUT_TEXT) {
        broken(p, "reported cut text glovebox does not accept");
        return;
    }
    char *utf8 = xmalloc(2 * n + 1), *o = utf8;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = text[i];
        if (!c)
            break;
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

/* The server's pointer shape (ARGB words, alpha 0 or 255 for RichCursor
 * and XCursor), kept premultiplied as the frame pipeline draws it.
 * Width 0: the server hides the pointer, or its shape is too large. */
static void on_cursor(struct vnc *v, struct vnc_proc *p, struct vnc_wire_in *in)
{
    uint32_t w = vnc_wire_get_u32(in), h = vnc_wire_get_u32(in), hx = vnc_wire_get_u32(in),
             hy = vnc_wire_get_u32(in);
    size_t n;
    const uint8_t *data = vnc_wire_get_str(in, &n);
    if (in->bad || w > VNC_MAX_CURSOR || h > VNC_MAX_CURSOR || hx > 65535 || hy > 65535 ||
        n != (size_t)w * h * 4) {
        broken(p, "reported a pointer shape glovebox does not accept");
        return;
    }
    uint32_t *argb = NULL;
    if (w && h) {
        argb = xmalloc((size_t)w * h * sizeof *argb);
        memcpy(argb, data, n);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            uint32_t px = argb[i], a = px >> 24;
            argb[i] = a << 24 | (((px >> 16) & 0xff) * a / 255) << 16 |
                      (((px >> 8) & 0xff) * a / 255) << 8 | ((px & 0xff) * a / 255);
        }
    }
    pthread_mutex_lock(&v->mu);
    free(v->cursor_argb);
    v->cursor_argb = argb;
    v->cursor_w = argb ? (int)w : 0;
    v->cursor_h = argb ? (int)h : 0;
    v->cursor_hot_x = argb ? (int)hx : 0;
    v->cursor_hot_y = argb ? (int)hy : 0;
    pthread_mutex_unlock(&v->mu);
}

/* Bounded and cleaned text from the process; NULL when empty. */
static char *reported_text(struct vnc_wire_in *in)
{
    size_t n;
    const uint8_t *s = vnc_wire_get_str(in, &n);
    if (!n)
        return NULL;
    size_t k = n > MAX_REASON ? MAX_REASON : n;
    char *t = xmalloc(k + 1);
    for (size_t i = 0; i < k; i++)
        t[i] = s[i] ? (char)s[i] : '?';
    t[k] = '\0';
    clean_text(t);
    return t;
}

static void on_disconnected(struct vnc_proc *p, struct vnc_wire_in *in)
{
    uint32_t code = vnc_wire_get_u32(in);
    free(p->reason);
    free(p->detail);
    p->reason = reported_text(in);
    p->detail = reported_text(in);
    p->code = code <= ERROR_CODE_LAST ? (enum error_code)code : ERROR_DEVICE_UNAVAILABLE;
    if (in->bad || !p->reason)
        broken(p, "reported an end glovebox does not accept");
}

static void proc_ended(struct vnc *v, struct vnc_proc *p);
static gboolean end_late(gpointer ud);

static gboolean on_proc(gint fd, GIOCondition cond, gpointer ud)
{
    (void)cond;
    struct vnc_proc *p = ud;
    struct vnc *v = p->v;
    int got = vnc_wire_fill(fd, &p->rd);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad = false;
    while (!p->broken && vnc_wire_next(&p->rd, &type, &in, &bad)) {
        switch (type) {
        case VNC_WIRE_FRAMEBUFFER:
            on_framebuffer(v, p, &in);
            break;
        case VNC_WIRE_INITIALIZED:
            on_initialized(v, p, &in);
            break;
        case VNC_WIRE_UPDATE:
            on_update(v, p, &in);
            break;
        case VNC_WIRE_CURSOR:
            on_cursor(v, p, &in);
            break;
        case VNC_WIRE_CUT_TEXT:
            on_cut_text(v, p, &in);
            break;
        case VNC_WIRE_DISCONNECTED:
            on_disconnected(p, &in);
            break;
        default:
            broken(p, "sent a message glovebox does not know");
        }
    }
    if (bad)
        broken(p, "sent a message longer than glovebox accepts");
    if (got >= 0 && !p->broken)
        return G_SOURCE_CONTINUE;
    /* The end of its messages: the process is gone, or going. Its exit
     * status follows. One that said why it ends gets a moment to exit on
     * its own; any other is killed now. */
    p->watch = 0;
    p->eof = true;
    if (p->reason && !p->broken) {
        if (!v->kill_source)
            v->kill_source = g_timeout_add(END_GRACE_MS, end_late, v);
    } else {
        vnc_proc_kill(p);
    }
    if (p->status_seen)
        proc_ended(v, p);
    return G_SOURCE_REMOVE;
}

/* ---- a try's end, and the next ---- */

static gboolean release(gpointer ud)
{
    struct vnc *v = ud;
    if (v->retry_source) {
        g_source_remove(v->retry_source);
        v->retry_source = 0;
    }
    if (v->handshake_source) {
        g_source_remove(v->handshake_source);
        v->handshake_source = 0;
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

/* Asks the process to close its connection (DISCONNECTED follows); one
 * that has not ended END_GRACE_MS later is killed. */
static void ask_end(struct vnc *v)
{
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_SHUTDOWN);
    send_msg(v->proc, &o);
    if (!v->kill_source)
        v->kill_source = g_timeout_add(END_GRACE_MS, end_late, v);
}

/* A try's handshake took too long: that try has failed. */
static gboolean handshake_late(gpointer ud)
{
    struct vnc *v = ud;
    v->handshake_source = 0;
    if (v->proc)
        ask_end(v);
    return G_SOURCE_REMOVE;
}

static gboolean retry(gpointer ud)
{
    struct vnc *v = ud;
    v->retry_source = 0;
    v->handshake_source = g_timeout_add((guint)v->timeout_ms, handshake_late, v);
    vnc_conn_open(v);
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

/* A try has ended (its process is gone, or never started): the next try
 * after the backoff (250 ms, doubling up to 2 s), or the end. */
static void tried(struct vnc *v, enum error_code code, const char *reason, const char *detail)
{
    /* That try's time limit is over with it (the next try sets its own). */
    if (v->handshake_source) {
        g_source_remove(v->handshake_source);
        v->handshake_source = 0;
    }
    pthread_mutex_lock(&v->mu);
    bool initialized = v->initialized;
    pthread_mutex_unlock(&v->mu);
    if (initialized && try_again(v, detail)) {
        v->retry_source = g_timeout_add((guint)v->backoff_ms, retry, v);
        v->backoff_ms = v->backoff_ms * 2 > 2000 ? 2000 : v->backoff_ms * 2;
        return;
    }
    if (v->dropped_at)
        set_reason(v, ERROR_DEVICE_UNAVAILABLE,
                   "the VNC connection ended and was not made again within %d s: %s",
                   v->reconnect_ms / 1000, detail);
    else
        set_reason(v, code, "%s", reason);
    release(v);
}

/* Its messages have ended and its exit status is in: why it ended is what
 * it said, or how it died. */
static void proc_ended(struct vnc *v, struct vnc_proc *p)
{
    v->proc = NULL;
    if (v->kill_source) {
        g_source_remove(v->kill_source);
        v->kill_source = 0;
    }
    enum error_code code = ERROR_DEVICE_UNAVAILABLE;
    char *reason, *detail;
    bool crashed = !p->reason || p->broken;
    if (p->live_at && g_get_monotonic_time() - p->live_at >= (gint64)v->reconnect_ms * 1000)
        /* It lasted: whatever came before is over, this is a new drop. */
        v->dropped_at = 0;
    v->last_crashed = crashed;
    if (!crashed) {
        code = p->code;
        reason = xstrdup(p->reason);
        detail = xstrdup(p->detail ? p->detail : "no reason given");
    } else {
        char *how = vnc_proc_status_text(p->status);
        if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 127)
            /* proc.c's child: the executable could not be run at all. */
            detail = xasprintf("the VNC connection's process could not be started (%s): is "
                               "glovebox-vnc-worker installed beside the vnc module?",
                               how);
        else if (p->broken)
            detail = xasprintf("the VNC connection's process %s and was stopped", p->broken);
        else
            detail = xasprintf("the VNC connection's process ended (%s): the server sent data "
                               "the client library could not handle",
                               how);
        free(how);
        pthread_mutex_lock(&v->mu);
        bool initialized = v->initialized;
        pthread_mutex_unlock(&v->mu);
        reason = initialized ? xstrdup(detail)
                             : xasprintf("cannot connect to %s:%d: %s", v->host, v->port, detail);
        log_warn("%s:%d: %s", v->host, v->port, detail);
    }
    vnc_proc_free(p);
    tried(v, code, reason, detail);
    free(reason);
    free(detail);
}

gboolean vnc_conn_proc_exited(gpointer ud)
{
    struct vnc_proc *p = ud;
    p->status_seen = true;
    if (p->eof)
        proc_ended(p->v, p);
    return G_SOURCE_REMOVE;
}

gboolean vnc_conn_open(gpointer ud)
{
    struct vnc *v = ud;
    char *err = NULL;
    struct vnc_proc *p = vnc_proc_start(v, &err);
    if (!p) {
        char *reason = xasprintf("cannot connect to %s:%d: %s", v->host, v->port, err);
        tried(v, ERROR_DEVICE_UNAVAILABLE, reason, err);
        free(reason);
        free(err);
        return G_SOURCE_REMOVE;
    }
    v->proc = p;
    p->watch = g_unix_fd_add(p->sock, G_IO_IN | G_IO_HUP | G_IO_ERR, on_proc, p);
    /* The password goes over the socket: never argv, never the
     * environment. */
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_CONNECT);
    vnc_wire_u32(&o, (uint32_t)v->port);
    vnc_wire_u32(&o, (uint32_t)v->timeout_ms);
    vnc_wire_u32(&o, v->tls_verify);
    vnc_wire_str(&o, v->host, strlen(v->host));
    vnc_wire_str(&o, v->password ? v->password : "", v->password ? strlen(v->password) : 0);
    vnc_wire_str(&o, v->username ? v->username : "", v->username ? strlen(v->username) : 0);
    vnc_wire_str(&o, v->ca_file ? v->ca_file : "", v->ca_file ? strlen(v->ca_file) : 0);
    /* vnc_wire_send wipes the message (and so the password) as it frees
     * it. */
    if (!vnc_wire_send(p->sock, &o, -1, NULL))
        broken(p, "did not take the connection's parameters");
    wipe_password(v, false);
    return G_SOURCE_REMOVE;
}

/* An ending process lingers: killed (what it said stands). */
static gboolean end_late(gpointer ud)
{
    struct vnc *v = ud;
    v->kill_source = 0;
    if (v->proc)
        vnc_proc_kill(v->proc);
    return G_SOURCE_REMOVE;
}

gboolean vnc_conn_shutdown(gpointer ud)
{
    struct vnc *v = ud;
    v->closing = true;
    if (v->proc) {
        ask_end(v);
    } else if (v->retry_source) {
        /* Between two tries: nothing to wait for. */
        release(v);
    }
    return G_SOURCE_REMOVE;
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

/* ---- input, from workers ---- */

static void put_event(struct vnc_wire_out *o, struct vnc *v, const struct vnc_event *e)
{
    if (e->cut) {
        vnc_wire_u32(o, VNC_WIRE_CUT);
        vnc_wire_str(o, e->cut, e->cut_len);
    } else if (e->key) {
        vnc_wire_u32(o, VNC_WIRE_KEY);
        vnc_wire_u32(o, e->down);
        vnc_wire_u32(o, e->keysym);
    } else {
        /* Points are the viewport's: its corner moves them onto the screen. */
        vnc_wire_u32(o, VNC_WIRE_POINTER);
        vnc_wire_u32(o, e->buttons);
        vnc_wire_u32(o, (uint16_t)(e->x + v->vp_x));
        vnc_wire_u32(o, (uint16_t)(e->y + v->vp_y));
    }
}

/* GLib thread: ev[0..n) to the process in one message, noted as sent. */
static bool send_events(struct vnc *v, const struct vnc_event *ev, int n)
{
    if (!v->proc || !v->proc->live || v->proc->broken || v->proc->eof)
        return false;
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_INPUT);
    for (int i = 0; i < n; i++)
        put_event(&o, v, &ev[i]);
    if (!send_msg(v->proc, &o))
        return false;
    for (int i = 0; i < n; i++)
        vnc_view_sent(v, &ev[i]);
    return true;
}

bool vnc_conn_send_event(struct vnc *v, const struct vnc_event *e)
{
    return send_events(v, e, 1);
}

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
    bool ok = !refused && send_events(v, s->ev, s->n);
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
