/* The listening sockets of the HTTP transport. glovebox binds them itself
 * and hands each accepted connection to http_conn.c (plain HTTP) or to
 * libwebsockets (HTTPS): libwebsockets 4.1
 * treats its `iface` as a network interface to wait for and, when the name
 * is an address, may bind the wildcard address instead, and a bind error
 * there only logs a warning. Binding here means exactly the address asked
 * for is bound (a port in use is an error), and what glovebox prints comes
 * from getsockname. */
#define LOG_MODULE "http"
#include "core/log.h"
#include "core/xmalloc.h"
#include "transport/http_internal.h"

#include <libwebsockets.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections taken per wake-up of one listener: the rest wait for the next
 * turn of the loop, so a flood of connections cannot hold the loop. */
#define ACCEPTS_PER_WAKEUP 64

static bool parse_addr(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)port);
        *len = sizeof *in4;
        return true;
    }
    if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof *in6;
        return true;
    }
    return false;
}

/* "127.0.0.1:7800" or "[::1]:7800" of a bound socket. */
static void describe_fd(int fd, char *out, size_t cap, int *port)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char addr[INET6_ADDRSTRLEN] = "?";
    *port = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof addr);
            *port = ntohs(in6->sin6_port);
            snprintf(out, cap, "[%s]:%d", addr, *port);
            return;
        }
        struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &in4->sin_addr, addr, sizeof addr);
        *port = ntohs(in4->sin_port);
    }
    snprintf(out, cap, "%s:%d", addr, *port);
}

/* 0 or -errno. */
static int bind_one(const char *host, int port, int *out_fd)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (!parse_addr(host, port, &ss, &len))
        return -EINVAL;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int one = 1;
    /* SO_REUSEADDR lets a restart bind while old connections sit in
     * TIME_WAIT; it never lets two listeners share a port on Linux. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* "::" means IPv6 only: an IPv4 listener is asked for by name. */
    if (ss.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 511) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    *out_fd = fd;
    return 0;
}

static void close_fds(struct http_transport *t)
{
    for (int i = 0; i < t->n_listeners; i++)
        if (t->listeners[i].fd >= 0)
            close(t->listeners[i].fd);
    t->n_listeners = 0;
}

/* Binds every address of host. "localhost" is 127.0.0.1 and, where this
 * machine has IPv6 loopback, ::1 on the same port. */
static int bind_all(struct http_transport *t, const char *host, int port, char **err)
{
    bool localhost = strcmp(host, "localhost") == 0;
    const char *addrs[2] = {localhost ? "127.0.0.1" : host, localhost ? "::1" : NULL};
    for (int i = 0; i < 2 && addrs[i]; i++) {
        int fd = -1;
        int rc = bind_one(addrs[i], port, &fd);
        bool optional = i > 0;
        if (rc < 0 && optional && rc != -EADDRINUSE) {
            log_debug("not listening on %s: %s", addrs[i], strerror(-rc));
            continue;
        }
        if (rc < 0) {
            *err = xasprintf("could not listen on %s%s%s port %d: %s%s",
                             strchr(addrs[i], ':') ? "[" : "", addrs[i],
                             strchr(addrs[i], ':') ? "]" : "", port, strerror(-rc),
                             rc == -EADDRINUSE ? " (another program is using that port; choose "
                                                 "another with --http HOST:PORT)"
                             : rc == -EADDRNOTAVAIL ? " (not an address of this machine)"
                                                    : "");
            close_fds(t);
            return rc;
        }
        struct http_listener *l = &t->listeners[t->n_listeners++];
        l->t = t;
        l->fd = fd;
        describe_fd(fd, l->name, sizeof l->name, &l->port);
        port = l->port; /* port 0: the others take the port the first got */
    }
    return 0;
}

/* Whether the bound address of fd is one that host and port name (port 0:
 * any port). */
static bool fd_matches(int fd, const char *host, int port)
{
    struct sockaddr_storage got;
    socklen_t got_len = sizeof got;
    if (getsockname(fd, (struct sockaddr *)&got, &got_len) < 0)
        return false;
    bool localhost = strcmp(host, "localhost") == 0;
    const char *addrs[2] = {localhost ? "127.0.0.1" : host, localhost ? "::1" : NULL};
    for (int i = 0; i < 2 && addrs[i]; i++) {
        struct sockaddr_storage want;
        socklen_t want_len;
        if (!parse_addr(addrs[i], port, &want, &want_len) || want.ss_family != got.ss_family)
            continue;
        if (got.ss_family == AF_INET) {
            struct sockaddr_in *g = (struct sockaddr_in *)&got, *w = (struct sockaddr_in *)&want;
            if (g->sin_addr.s_addr == w->sin_addr.s_addr && (!port || g->sin_port == w->sin_port))
                return true;
        } else {
            struct sockaddr_in6 *g = (struct sockaddr_in6 *)&got, *w = (struct sockaddr_in6 *)&want;
            if (memcmp(&g->sin6_addr, &w->sin6_addr, sizeof w->sin6_addr) == 0 &&
                (!port || g->sin6_port == w->sin6_port))
                return true;
        }
    }
    return false;
}

/* Socket activation (sd_listen_fds(3)): systemd, or anything that does as
 * it does, passes the listening sockets as descriptors 3, 4, … with
 * LISTEN_FDS and LISTEN_PID (this process). They are served instead of
 * binding, provided each is a listening TCP socket bound to an address
 * --http names: the token rule and what glovebox prints stay true. 1 when
 * adopted, 0 when nothing was passed, -1 with *err. */
static int adopt_activated(struct http_transport *t, const char *host, int port, char **err)
{
    const char *pid = getenv("LISTEN_PID");
    const char *fds = getenv("LISTEN_FDS");
    if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid())
        return 0;
    long n = strtol(fds, NULL, 10);
    /* Programs sessions start must not take the sockets for theirs. */
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    if (n < 1)
        return 0;
    int cap = (int)(sizeof t->listeners / sizeof t->listeners[0]);
    if (n > cap) {
        *err = xasprintf("socket activation passed %ld sockets; glovebox serves at most %d (the "
                         "addresses of one --http)",
                         n, cap);
        return -1;
    }
    for (int fd = 3; fd < 3 + n; fd++) {
        int listening = 0, type = 0;
        socklen_t len = sizeof listening;
        struct sockaddr_storage ss;
        socklen_t ss_len = sizeof ss;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 || !listening ||
            getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &(socklen_t){sizeof type}) < 0 ||
            type != SOCK_STREAM || getsockname(fd, (struct sockaddr *)&ss, &ss_len) < 0 ||
            (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
            *err = xasprintf("socket activation: descriptor %d is not a listening TCP socket "
                             "(ListenStream= takes an address and a port)",
                             fd);
            close_fds(t);
            return -1;
        }
        struct http_listener *l = &t->listeners[t->n_listeners];
        describe_fd(fd, l->name, sizeof l->name, &l->port);
        if (!fd_matches(fd, host, port)) {
            *err = xasprintf("socket activation passed a socket bound to %s, but --http asks for "
                             "%s port %d: make ListenStream= and --http the same address",
                             l->name, host, port);
            close_fds(t);
            return -1;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        l->t = t;
        l->fd = fd;
        t->n_listeners++;
    }
    log_info("serving the %ld socket%s passed by socket activation", n, n > 1 ? "s" : "");
    return 1;
}

bool http_listen_bind(struct http_transport *t, const char *host, int port, char **err)
{
    int adopted = adopt_activated(t, host, port, err);
    if (adopted != 0)
        return adopted > 0;
    /* With port 0 the kernel picks a port for 127.0.0.1 that ::1 may not
     * have free: try again with another. */
    for (int attempt = 0;; attempt++) {
        int rc = bind_all(t, host, port, err);
        if (rc == 0)
            return true;
        if (port != 0 || rc != -EADDRINUSE || attempt >= 8)
            return false;
        free(*err);
        *err = NULL;
    }
}

/* The peer's address comes with the connection: every request asks for it
 * (the guard counts per client), and asking the socket is a syscall per
 * request, since libwebsockets drops per-connection user data between
 * keep-alive requests. A descriptor's entry is rewritten when the number is
 * accepted again. */
static void remember_peer(struct http_transport *t, int fd, const struct sockaddr_storage *ss)
{
    if (fd >= t->n_peers) {
        int n = t->n_peers ? t->n_peers : 64;
        while (n <= fd)
            n *= 2;
        t->peers = xrealloc(t->peers, (size_t)n * sizeof *t->peers);
        memset(t->peers + t->n_peers, 0, (size_t)(n - t->n_peers) * sizeof *t->peers);
        t->n_peers = n;
    }
    char *name = t->peers[fd];
    const void *addr = ss->ss_family == AF_INET6
                           ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
                           : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
    if (!inet_ntop(ss->ss_family, addr, name, sizeof t->peers[0]))
        snprintf(name, sizeof t->peers[0], "?");
}

const char *http_listen_peer(const struct http_transport *t, int fd)
{
    return fd >= 0 && fd < t->n_peers && t->peers[fd][0] ? t->peers[fd] : NULL;
}

static void on_readable(uv_poll_t *poll, int status, int events)
{
    (void)events;
    struct http_listener *l = poll->data;
    struct http_transport *t = l->t;
    if (status < 0) {
        log_warn("listening socket %s: %s", l->name, uv_strerror(status));
        return;
    }
    for (int i = 0; i < ACCEPTS_PER_WAKEUP; i++) {
        struct sockaddr_storage peer;
        socklen_t peer_len = sizeof peer;
        int fd = accept4(l->fd, (struct sockaddr *)&peer, &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* The connection stays queued; listening again after a
                 * pause keeps the loop from spinning on it. */
                log_warn("cannot accept a connection on %s: %s; pausing for a second", l->name,
                         strerror(errno));
                uv_poll_stop(&l->poll);
                l->paused = true;
            }
            return;
        }
        if (t->shutting_down || !t->vhost) {
            close(fd);
            continue;
        }
        remember_peer(t, fd, &peer);
        if (!t->opts.tls_cert) {
            http_conn_adopt(t, fd, http_listen_peer(t, fd));
            continue;
        }
        /* Either a new connection, or libwebsockets closed fd. */
        lws_sock_file_fd_type desc = {.sockfd = fd};
        lws_adopt_descriptor_vhost(
            t->vhost, LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP | LWS_ADOPT_ALLOW_SSL, desc, NULL, NULL);
    }
}

void http_listen_start(struct http_transport *t)
{
    for (int i = 0; i < t->n_listeners; i++) {
        struct http_listener *l = &t->listeners[i];
        uv_poll_init(t->app->loop, &l->poll, l->fd);
        l->poll.data = l;
        l->polling = true;
        uv_poll_start(&l->poll, UV_READABLE, on_readable);
    }
}

void http_listen_resume(struct http_transport *t)
{
    for (int i = 0; i < t->n_listeners; i++) {
        struct http_listener *l = &t->listeners[i];
        if (l->paused && !t->shutting_down) {
            l->paused = false;
            uv_poll_start(&l->poll, UV_READABLE, on_readable);
        }
    }
}

static void listener_closed(uv_handle_t *h)
{
    struct http_listener *l = h->data;
    close(l->fd);
    l->fd = -1;
    l->t->n_listening--;
}

void http_listen_stop(struct http_transport *t)
{
    for (int i = 0; i < t->n_listeners; i++) {
        struct http_listener *l = &t->listeners[i];
        if (!l->polling)
            continue;
        l->polling = false;
        t->n_listening++;
        uv_close((uv_handle_t *)&l->poll, listener_closed);
    }
}

void http_listen_abandon(struct http_transport *t)
{
    close_fds(t);
}
