/* VeNCrypt done by glovebox in front of libgvnc, for what libgvnc cannot
 * be told: a CA file of the connection's own (ca_file), or no certificate
 * check at all (tls_verify: false). libgvnc gets one end of a socket pair
 * and sees a plain RFB server offering VNC authentication or None; this
 * thread speaks to the real server — version, VeNCrypt's subtype, the TLS
 * handshake with GnuTLS — and then relays bytes both ways. What follows
 * the subtype (the VNC challenge, or the security result) passes through
 * unchanged, which is why the trick holds.
 *
 * The thread never touches the session: it owns a tls_front shared with it
 * by a reference count, and leaves its error there for on_disconnected. */
#include "backend/vnc/tls_front.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum {
    SEC_NONE = 1,
    SEC_VNC = 2,
    SEC_VENCRYPT = 19,
    SUB_TLSNONE = 257,
    SUB_TLSVNC = 258,
    SUB_X509NONE = 260,
    SUB_X509VNC = 261,
};

struct tls_front {
    atomic_int refs;
    pthread_mutex_t mu;
    char *err; /* under mu: why it failed, for the user */
    enum error_code code;
    const char *security; /* under mu: the subtype chosen, or NULL */
    /* The thread's own. */
    char *host, *ca_file;
    int port, timeout_ms;
    bool verify;
    int local; /* libgvnc's peer */
    int net;   /* the server */
    gnutls_session_t tls;
    bool established; /* the handshake is done: a close_notify may be sent */
    gnutls_certificate_credentials_t x509;
    gnutls_anon_client_credentials_t anon;
};

static void unref(struct tls_front *f)
{
    if (atomic_fetch_sub(&f->refs, 1) != 1)
        return;
    pthread_mutex_destroy(&f->mu);
    free(f->err);
    free(f->host);
    free(f->ca_file);
    free(f);
}

static bool failf(struct tls_front *f, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool failf(struct tls_front *f, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&f->mu);
    if (!f->err) {
        f->err = msg;
        f->code = code;
    } else {
        free(msg);
    }
    pthread_mutex_unlock(&f->mu);
    return false;
}

static bool read_all(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static bool net_read(struct tls_front *f, void *buf, size_t n, const char *what)
{
    if (read_all(f->net, buf, n))
        return true;
    return failf(f, ERROR_DEVICE_UNAVAILABLE,
                 "cannot connect to %s:%d: the server closed the "
                 "connection or did not answer in time (%s)",
                 f->host, f->port, what);
}

static void set_timeout(int fd, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* A TCP connection within the time limit. */
static bool dial(struct tls_front *f)
{
    char port[16];
    snprintf(port, sizeof port, "%d", f->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(f->host, port, &hints, &res);
    if (rc != 0)
        return failf(f, ERROR_DEVICE_UNAVAILABLE, "cannot connect to %s:%d: %s", f->host, f->port,
                     gai_strerror(rc));
    int err = ECONNREFUSED;
    for (struct addrinfo *a = res; a && f->net < 0; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            socklen_t len = sizeof err;
            if (poll(&p, 1, f->timeout_ms) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
                f->net = fd;
            else if (err == 0)
                err = ETIMEDOUT;
        } else if (errno == 0 || errno == EISCONN) {
            f->net = fd;
        } else {
            err = errno;
        }
        if (f->net != fd)
            close(fd);
    }
    freeaddrinfo(res);
    if (f->net < 0)
        return failf(f, ERROR_DEVICE_UNAVAILABLE, "cannot connect to %s:%d: %s", f->host, f->port,
                     strerror(err));
    fcntl(f->net, F_SETFL, fcntl(f->net, F_GETFL) & ~O_NONBLOCK);
    set_timeout(f->net, f->timeout_ms);
    return true;
}

/* The server's version and security types; VeNCrypt chosen, or the types
 * handed on unchanged when the server has none and no CA file was given.
 * *plain: relay without TLS. */
static bool negotiate(struct tls_front *f, int *inner, bool *plain)
{
    char version[13] = {0};
    if (!net_read(f, version, 12, "version"))
        return false;
    int major = 0, minor = 0;
    if (sscanf(version, "RFB %3d.%3d\n", &major, &minor) != 2 || major != 3 || minor < 7)
        return failf(f, ERROR_NOT_SUPPORTED,
                     "the VNC server %s:%d speaks RFB %.11s; \"ca_file\" and \"tls_verify\" need "
                     "3.7 or later",
                     f->host, f->port, version);
    if (!write_all(f->net, minor >= 8 ? "RFB 003.008\n" : "RFB 003.007\n", 12))
        return failf(f, ERROR_DEVICE_UNAVAILABLE,
                     "cannot connect to %s:%d: the server closed "
                     "the connection",
                     f->host, f->port);
    uint8_t n, types[255];
    if (!net_read(f, &n, 1, "security types") || (n && !net_read(f, types, n, "security types")))
        return false;
    if (n == 0)
        return failf(f, ERROR_DEVICE_UNAVAILABLE, "the VNC server %s:%d refused the connection",
                     f->host, f->port);
    if (!memchr(types, SEC_VENCRYPT, n)) {
        if (f->ca_file)
            return failf(f, ERROR_NOT_SUPPORTED,
                         "argument \"ca_file\": the VNC server %s:%d offers no TLS (VeNCrypt)",
                         f->host, f->port);
        /* tls_verify: false and no TLS: libgvnc does the rest. */
        *plain = true;
        return write_all(f->local, version, 12) && read_all(f->local, version, 12) &&
               write_all(f->local, &n, 1) && write_all(f->local, types, n);
    }
    uint8_t b[4] = {SEC_VENCRYPT, 0, 2, 0};
    uint8_t got[2];
    if (!write_all(f->net, b, 1) || !net_read(f, got, 2, "VeNCrypt version"))
        return false;
    if (got[0] != 0 || got[1] < 2)
        return failf(f, ERROR_NOT_SUPPORTED, "the VNC server %s:%d speaks VeNCrypt %u.%u, not 0.2",
                     f->host, f->port, got[0], got[1]);
    uint8_t ack, count;
    if (!write_all(f->net, b + 1, 2) || !net_read(f, &ack, 1, "VeNCrypt") ||
        !net_read(f, &count, 1, "VeNCrypt subtypes"))
        return false;
    static const struct {
        uint32_t type;
        const char *name;
        bool x509;
        int inner;
    } prefs[] = {
        {SUB_X509VNC, "vencrypt-x509-vnc", true, SEC_VNC},
        {SUB_X509NONE, "vencrypt-x509-none", true, SEC_NONE},
        {SUB_TLSVNC, "vencrypt-tls-vnc", false, SEC_VNC},
        {SUB_TLSNONE, "vencrypt-tls-none", false, SEC_NONE},
    };
    uint32_t subs[255];
    for (int i = 0; i < count; i++) {
        uint8_t be[4];
        if (!net_read(f, be, 4, "VeNCrypt subtypes"))
            return false;
        subs[i] = (uint32_t)be[0] << 24 | (uint32_t)be[1] << 16 | (uint32_t)be[2] << 8 | be[3];
    }
    for (size_t k = 0; k < sizeof prefs / sizeof *prefs; k++)
        for (int i = 0; i < count; i++) {
            if (subs[i] != prefs[k].type || (!prefs[k].x509 && f->verify))
                continue;
            uint8_t be[4] = {0, 0, (uint8_t)(subs[i] >> 8), (uint8_t)subs[i]};
            if (!write_all(f->net, be, 4) || !net_read(f, &ack, 1, "VeNCrypt subtype"))
                return false;
            if (ack != 1)
                return failf(f, ERROR_DEVICE_UNAVAILABLE,
                             "the VNC server %s:%d refused VeNCrypt subtype %u", f->host, f->port,
                             subs[i]);
            pthread_mutex_lock(&f->mu);
            f->security = prefs[k].name;
            pthread_mutex_unlock(&f->mu);
            *inner = prefs[k].inner;
            return true;
        }
    return failf(f, f->verify ? ERROR_INVALID_ARGUMENT : ERROR_NOT_SUPPORTED,
                 f->verify
                     ? "the VNC server %s:%d offers no X.509 VeNCrypt subtype: its TLS cannot "
                       "be checked against \"ca_file\""
                     : "the VNC server %s:%d offers no VeNCrypt subtype glovebox knows",
                 f->host, f->port);
}

static bool handshake(struct tls_front *f, bool x509)
{
    int rc = gnutls_init(&f->tls, GNUTLS_CLIENT);
    if (rc == 0 && x509) {
        rc = gnutls_certificate_allocate_credentials(&f->x509);
        if (rc == 0 && f->ca_file) {
            int n =
                gnutls_certificate_set_x509_trust_file(f->x509, f->ca_file, GNUTLS_X509_FMT_PEM);
            if (n <= 0)
                return failf(f, ERROR_INVALID_ARGUMENT,
                             "argument \"ca_file\": %s holds no PEM certificate glovebox can read "
                             "(%s)",
                             f->ca_file, n < 0 ? gnutls_strerror(n) : "none found");
        } else if (rc == 0 && f->verify) {
            gnutls_certificate_set_x509_system_trust(f->x509);
        }
        if (rc == 0)
            rc = gnutls_credentials_set(f->tls, GNUTLS_CRD_CERTIFICATE, f->x509);
        if (rc == 0)
            rc = gnutls_set_default_priority(f->tls);
        if (rc == 0 && f->verify)
            gnutls_session_set_verify_cert(f->tls, f->host, 0);
    } else if (rc == 0) {
        rc = gnutls_anon_allocate_client_credentials(&f->anon);
        if (rc == 0)
            rc = gnutls_credentials_set(f->tls, GNUTLS_CRD_ANON, f->anon);
        if (rc == 0)
            rc = gnutls_priority_set_direct(f->tls, "NORMAL:+ANON-ECDH:+ANON-DH", NULL);
    }
    if (rc != 0)
        return failf(f, ERROR_TOOL_FAILED, "cannot set up TLS: %s", gnutls_strerror(rc));
    gnutls_transport_set_int(f->tls, f->net);
    do
        rc = gnutls_handshake(f->tls);
    while (rc < 0 && !gnutls_error_is_fatal(rc));
    if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
        gnutls_datum_t why = {0};
        gnutls_certificate_verification_status_print(gnutls_session_get_verify_cert_status(f->tls),
                                                     GNUTLS_CRT_X509, &why, 0);
        size_t n = why.data ? strlen((const char *)why.data) : 0;
        while (n && (why.data[n - 1] == ' ' || why.data[n - 1] == '.'))
            why.data[--n] = '\0';
        failf(f, ERROR_DEVICE_UNAVAILABLE,
              "the VNC server %s:%d presented a TLS certificate glovebox does not accept: %s "
              "(checked against %s)",
              f->host, f->port, why.data ? (const char *)why.data : "not trusted",
              f->ca_file ? f->ca_file : "the system's CAs");
        gnutls_free(why.data);
        return false;
    }
    if (rc < 0)
        return failf(f, ERROR_DEVICE_UNAVAILABLE, "the TLS handshake with %s:%d failed: %s",
                     f->host, f->port, gnutls_strerror(rc));
    f->established = true;
    return true;
}

/* libgvnc sees a server offering the subtype's inner security type. */
static bool greet_local(struct tls_front *f, int inner)
{
    char version[12];
    uint8_t types[2] = {1, (uint8_t)inner}, choice;
    return write_all(f->local, "RFB 003.008\n", 12) && read_all(f->local, version, 12) &&
           write_all(f->local, types, 2) && read_all(f->local, &choice, 1);
}

static void relay(struct tls_front *f)
{
    set_timeout(f->net, 0);
    uint8_t buf[65536];
    for (;;) {
        if (!f->tls || gnutls_record_check_pending(f->tls) == 0) {
            struct pollfd p[2] = {{.fd = f->local, .events = POLLIN},
                                  {.fd = f->net, .events = POLLIN}};
            if (poll(p, 2, -1) < 0) {
                if (errno == EINTR)
                    continue;
                return;
            }
            if (p[0].revents) {
                ssize_t n = read(f->local, buf, sizeof buf);
                if (n <= 0)
                    return;
                if (f->tls) {
                    for (ssize_t at = 0; at < n;) {
                        ssize_t w = gnutls_record_send(f->tls, buf + at, (size_t)(n - at));
                        if (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED)
                            continue;
                        if (w < 0)
                            return;
                        at += w;
                    }
                } else if (!write_all(f->net, buf, (size_t)n)) {
                    return;
                }
            }
            if (!p[1].revents)
                continue;
        }
        ssize_t n =
            f->tls ? gnutls_record_recv(f->tls, buf, sizeof buf) : read(f->net, buf, sizeof buf);
        if (f->tls && (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED))
            continue;
        if (n <= 0 || !write_all(f->local, buf, (size_t)n))
            return;
    }
}

static void *run(void *ud)
{
    struct tls_front *f = ud;
    int inner = 0;
    bool plain = false;
    if (dial(f) && negotiate(f, &inner, &plain) &&
        (plain || (handshake(f, inner && f->security && strstr(f->security, "x509")) &&
                   greet_local(f, inner))))
        relay(f);
    if (f->established)
        gnutls_bye(f->tls, GNUTLS_SHUT_WR);
    if (f->tls)
        gnutls_deinit(f->tls);
    if (f->x509)
        gnutls_certificate_free_credentials(f->x509);
    if (f->anon)
        gnutls_anon_free_client_credentials(f->anon);
    if (f->net >= 0)
        close(f->net);
    close(f->local);
    unref(f);
    return NULL;
}

struct tls_front *vnc_tls_front_start(const char *host, int port, int timeout_ms,
                                      const char *ca_file, bool verify, int *fd, char **err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *err = xasprintf("cannot make a socket pair: %s", strerror(errno));
        return NULL;
    }
    struct tls_front *f = xcalloc(1, sizeof *f);
    atomic_init(&f->refs, 2);
    pthread_mutex_init(&f->mu, NULL);
    f->host = xstrdup(host);
    f->port = port;
    f->timeout_ms = timeout_ms;
    f->ca_file = ca_file ? xstrdup(ca_file) : NULL;
    f->verify = verify;
    f->local = sv[1];
    f->net = -1;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &attr, run, f);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        close(sv[0]);
        close(sv[1]);
        atomic_store(&f->refs, 1);
        unref(f);
        *err = xasprintf("cannot start a thread: %s", strerror(rc));
        return NULL;
    }
    *fd = sv[0];
    return f;
}

char *vnc_tls_front_error(struct tls_front *f, enum error_code *code)
{
    pthread_mutex_lock(&f->mu);
    char *e = f->err ? xstrdup(f->err) : NULL;
    *code = f->code;
    pthread_mutex_unlock(&f->mu);
    return e;
}

const char *vnc_tls_front_security(struct tls_front *f)
{
    pthread_mutex_lock(&f->mu);
    const char *s = f->security;
    pthread_mutex_unlock(&f->mu);
    return s;
}

void vnc_tls_front_release(struct tls_front *f)
{
    if (f)
        unref(f);
}
