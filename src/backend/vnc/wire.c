/* The module <-> worker framing (wire.h): building, writing with a
 * descriptor, and reading whole messages off a nonblocking socket. */
#include "backend/vnc/wire.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct head {
    uint32_t len;
    uint32_t type;
};

static void reserve(struct vnc_wire_out *o, size_t more)
{
    if (o->len + more <= o->cap)
        return;
    size_t cap = o->cap ? o->cap : 256;
    while (cap < o->len + more)
        cap *= 2;
    o->buf = xrealloc(o->buf, cap);
    o->cap = cap;
}

void vnc_wire_begin(struct vnc_wire_out *o, uint32_t type)
{
    *o = (struct vnc_wire_out){0};
    reserve(o, sizeof(struct head));
    struct head h = {.len = 0, .type = type};
    memcpy(o->buf, &h, sizeof h);
    o->len = sizeof h;
}

void vnc_wire_u32(struct vnc_wire_out *o, uint32_t v)
{
    reserve(o, 4);
    memcpy(o->buf + o->len, &v, 4);
    o->len += 4;
}

void vnc_wire_str(struct vnc_wire_out *o, const void *s, size_t n)
{
    vnc_wire_u32(o, (uint32_t)n);
    reserve(o, n);
    if (n)
        memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

bool vnc_wire_send(int sock, struct vnc_wire_out *o, int fd, struct vnc_wire_reader *also_read)
{
    uint32_t payload = (uint32_t)(o->len - sizeof(struct head));
    memcpy(o->buf, &payload, 4);
    size_t at = 0;
    int64_t until = now_ms() + VNC_WIRE_SEND_MS;
    bool ok = true;
    while (ok && at < o->len) {
        struct iovec iov = {.iov_base = o->buf + at, .iov_len = o->len - at};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
        if (fd >= 0 && at == 0) {
            memset(&ctl, 0, sizeof ctl);
            m.msg_control = ctl.buf;
            m.msg_controllen = sizeof ctl.buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &fd, sizeof fd);
        }
        ssize_t n = sendmsg(sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            at += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int64_t left = until - now_ms();
            struct pollfd p = {.fd = sock, .events = POLLOUT | (also_read ? POLLIN : 0)};
            ok = left > 0 && poll(&p, 1, (int)left) >= 0;
            if (ok && also_read && (p.revents & POLLIN))
                ok = vnc_wire_fill(sock, also_read) >= 0;
            continue;
        }
        ok = false;
    }
    /* A CONNECT holds the password. */
    explicit_bzero(o->buf, o->cap);
    free(o->buf);
    *o = (struct vnc_wire_out){0};
    return ok;
}

uint32_t vnc_wire_get_u32(struct vnc_wire_in *in)
{
    if (in->left < 4) {
        in->bad = true;
        in->left = 0;
        return 0;
    }
    uint32_t v;
    memcpy(&v, in->p, 4);
    in->p += 4;
    in->left -= 4;
    return v;
}

const uint8_t *vnc_wire_get_str(struct vnc_wire_in *in, size_t *n)
{
    uint32_t len = vnc_wire_get_u32(in);
    if (len > in->left) {
        in->bad = true;
        in->left = 0;
        *n = 0;
        return (const uint8_t *)"";
    }
    const uint8_t *s = in->p;
    in->p += len;
    in->left -= len;
    *n = len;
    return s;
}

char *vnc_wire_get_cstr(struct vnc_wire_in *in)
{
    size_t n;
    const uint8_t *s = vnc_wire_get_str(in, &n);
    if (!n)
        return NULL;
    char *c = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        c[i] = s[i] ? (char)s[i] : '?';
    c[n] = '\0';
    return c;
}

void vnc_wire_reader_init(struct vnc_wire_reader *r)
{
    *r = (struct vnc_wire_reader){0};
}

void vnc_wire_reader_finish(struct vnc_wire_reader *r)
{
    free(r->buf);
    for (int i = 0; i < r->n_fds; i++)
        close(r->fds[i]);
    *r = (struct vnc_wire_reader){0};
}

int vnc_wire_fill(int sock, struct vnc_wire_reader *r)
{
    /* What was handed out is done with: the rest moves to the front. */
    if (r->start) {
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
    }
    if (r->cap - r->len < 65536) {
        r->cap = r->cap ? r->cap * 2 : 131072;
        r->buf = xrealloc(r->buf, r->cap);
    }
    struct iovec iov = {.iov_base = r->buf + r->len, .iov_len = r->cap - r->len};
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t n;
    do
        n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (r->n_fds < 4)
                r->fds[r->n_fds++] = fd;
            else
                close(fd);
        }
    }
    if (n == 0)
        return -1;
    r->len += (size_t)n;
    return 1;
}

bool vnc_wire_next(struct vnc_wire_reader *r, uint32_t *type, struct vnc_wire_in *in, bool *bad)
{
    *bad = false;
    size_t have = r->len - r->start;
    if (have < sizeof(struct head))
        return false;
    struct head h;
    memcpy(&h, r->buf + r->start, sizeof h);
    if (h.len > VNC_WIRE_MAX) {
        *bad = true;
        return false;
    }
    if (have < sizeof h + h.len)
        return false;
    *type = h.type;
    *in = (struct vnc_wire_in){.p = r->buf + r->start + sizeof h, .left = h.len};
    r->start += sizeof h + h.len;
    return true;
}

void vnc_wire_reader_take(struct vnc_wire_reader *r, struct vnc_wire_reader *from)
{
    size_t n = from->len - from->start;
    if (!n)
        return;
    /* r->buf is NULL until r first holds bytes: memmove wants a pointer
     * even for none. */
    if (r->start) {
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
    }
    if (r->cap < r->len + n) {
        r->cap = r->len + n;
        r->buf = xrealloc(r->buf, r->cap);
    }
    memcpy(r->buf + r->len, from->buf + from->start, n);
    r->len += n;
    from->start = from->len = 0;
    while (from->n_fds && r->n_fds < 4)
        r->fds[r->n_fds++] = vnc_wire_take_fd(from);
}

int vnc_wire_take_fd(struct vnc_wire_reader *r)
{
    if (!r->n_fds)
        return -1;
    int fd = r->fds[0];
    memmove(r->fds, r->fds + 1, (size_t)(r->n_fds - 1) * sizeof(int));
    r->n_fds--;
    return fd;
}
