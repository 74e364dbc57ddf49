#include "backend/desktop/output.h"

#include "core/paths.h"
#include "core/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct desktop_output {
    uv_poll_t poll;
    int read_fd, write_fd, file_fd;
    char *path;
    size_t written;
    bool cut; /* the note that the rest was left out is written */
};

static void readable(uv_poll_t *h, int status, int events);

struct desktop_output *desktop_output_open(uv_loop_t *loop, const char *data_dir,
                                           const char *session_id, char **err)
{
    char *dir = xasprintf("%s/logs", data_dir);
    bool made = paths_mkdir_p(dir, err);
    char *path = made ? xasprintf("%s/%s-%d.log", dir, session_id, (int)getpid()) : NULL;
    free(dir);
    if (!made)
        return NULL;
    int file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    int fds[2] = {-1, -1};
    if (file_fd < 0 || pipe2(fds, O_CLOEXEC) < 0) {
        *err = xasprintf("cannot make %s for the programs' output: %s", path, strerror(errno));
        if (file_fd >= 0) {
            close(file_fd);
            unlink(path);
        }
        free(path);
        return NULL;
    }
    /* Only glovebox reads: never wait on the programs. */
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    struct desktop_output *o = xcalloc(1, sizeof *o);
    *o = (struct desktop_output){
        .read_fd = fds[0], .write_fd = fds[1], .file_fd = file_fd, .path = path};
    o->poll.data = o;
    uv_poll_init(loop, &o->poll, o->read_fd);
    uv_poll_start(&o->poll, UV_READABLE, readable);
    return o;
}

/* At most this much is read per wake-up: a program that writes as fast as
 * it is read would otherwise keep the loop here and every other session
 * waiting. The poll is level-triggered: what is left wakes it again. */
#define DRAIN_PER_WAKEUP (256 * 1024)
/* At the end, what the pipe can hold (a pipe is at most 1 MiB by default):
 * a daemon left behind that keeps writing cannot hold the close. */
#define DRAIN_AT_CLOSE (1024 * 1024)

/* Read what the pipe holds, at most limit bytes, into the file (the first
 * DESKTOP_OUTPUT_MAX bytes); false at EOF or on an error. */
static bool drain(struct desktop_output *o, size_t limit)
{
    char buf[16384];
    for (size_t got = 0; got < limit;) {
        ssize_t n = read(o->read_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN;
        if (n == 0)
            return false;
        got += (size_t)n;
        size_t keep = o->written < DESKTOP_OUTPUT_MAX ? DESKTOP_OUTPUT_MAX - o->written : 0;
        if (keep > (size_t)n)
            keep = (size_t)n;
        /* A full disk loses output, never the session. */
        if (keep && write(o->file_fd, buf, keep) == (ssize_t)keep)
            o->written += keep;
        if (keep < (size_t)n && !o->cut) {
            static const char note[] = "\n[glovebox: the rest of the output was left out]\n";
            o->cut = write(o->file_fd, note, sizeof note - 1) > 0;
        }
    }
    return true;
}

size_t desktop_output_sync(struct desktop_output *o)
{
    drain(o, DRAIN_PER_WAKEUP);
    return o->written;
}

char *desktop_output_read(const struct desktop_output *o, size_t from, size_t to, size_t max,
                          size_t *len)
{
    if (to > o->written)
        to = o->written;
    if (from >= to)
        return NULL;
    if (to - from > max)
        from = to - max;
    char *buf = xmalloc(to - from + 1);
    int fd = open(o->path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, buf, to - from, (off_t)from) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static void readable(uv_poll_t *h, int status, int events)
{
    (void)events;
    struct desktop_output *o = h->data;
    if (status < 0 || !drain(o, DRAIN_PER_WAKEUP))
        uv_poll_stop(h);
}

int desktop_output_fd(const struct desktop_output *o)
{
    return o->write_fd;
}

const char *desktop_output_path(const struct desktop_output *o)
{
    return o->path;
}

static void closed(uv_handle_t *h)
{
    struct desktop_output *o = h->data;
    free(o->path);
    free(o);
}

void desktop_output_close(struct desktop_output *o)
{
    if (!o)
        return;
    /* The programs are gone: what they wrote is in the pipe already. A
     * daemon one of them left behind gets EPIPE from now on. */
    close(o->write_fd);
    drain(o, DRAIN_AT_CLOSE);
    close(o->read_fd);
    struct stat st;
    if (fstat(o->file_fd, &st) == 0 && st.st_size == 0)
        unlink(o->path);
    close(o->file_fd);
    uv_close((uv_handle_t *)&o->poll, closed);
}
