#include "core/pidns.h"

#define LOG_MODULE "pidns"
#include "core/check.h"
#include "core/log.h"
#include "core/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define INIT_STACK_SIZE (64 * 1024)

struct pidns {
    pid_t init;   /* as glovebox sees it */
    int pidfd;    /* the init's: signals cannot hit a reused pid; setns joins by it */
    int lifeline; /* write end of the init's pipe; the init exits when it closes */
    bool user;    /* owned by a user namespace of its own (PIDNS_USER_PID) */
};

static bool decided;
static enum pidns_mode mode;
static char reason[256];
static int own_ns = -1; /* glovebox's own PID namespace, to return to after a fork */

/* The init: PID 1 of the namespace. It ignores every signal it can (so a
 * program inside cannot end it, and SIGCHLD ignored makes the kernel reap
 * the orphans it inherits), dies with glovebox, and otherwise waits for its
 * pipe to close. A clone child of a threaded process: system calls only. */
static int init_main(void *arg)
{
    int fd = *(int *)arg;
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &ign, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* What ps shows for it. */
    prctl(PR_SET_NAME, "glovebox-pidns");
    /* getppid() is 0 inside a new namespace, so it cannot tell whether
     * glovebox died before the line above: the pipe can. Keep nothing else
     * open, least of all other sessions' lifelines. */
    if (fd > 0)
        close_range(0, (unsigned)fd - 1, 0);
    close_range((unsigned)fd + 1, ~0u, 0);
    for (;;) {
        char buf[64];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR))
            _exit(0);
    }
}

static int pidfd_kill(int pidfd)
{
    return (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

static void write_file(pid_t pid, const char *name, const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) < 0)
        log_debug("cannot write %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* 0 or -errno. */
static int make(bool user, struct pidns **out)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -errno;
    char *stack = xmalloc(INIT_STACK_SIZE);
    int pidfd = -1;
    int flags = CLONE_NEWPID | CLONE_PIDFD | SIGCHLD | (user ? CLONE_NEWUSER : 0);
    /* glovebox's handlers must never run in the init. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t init = clone(init_main, stack + INIT_STACK_SIZE, flags, &pipefd[0], &pidfd);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* The child has its own copy of the memory. */
    free(stack);
    close(pipefd[0]);
    if (init < 0) {
        close(pipefd[1]);
        return -e;
    }
    if (user) {
        /* The same uid and gid inside as outside, so programs see who they
         * are (unmapped ids read as nobody). Unprivileged writers must deny
         * setgroups before mapping a gid. */
        char map[64];
        write_file(init, "setgroups", "deny");
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
        write_file(init, "uid_map", map);
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
        write_file(init, "gid_map", map);
    }
    struct pidns *ns = xcalloc(1, sizeof *ns);
    ns->init = init;
    ns->pidfd = pidfd;
    ns->lifeline = pipefd[1];
    ns->user = user;
    *out = ns;
    return 0;
}

/* Unprivileged: a helper process (single-threaded, so it may join a user
 * namespace) joins the user and PID namespaces, forks the program into
 * them, reports its pid and exits; glovebox, a child subreaper, inherits
 * the program. In the program returns 0 with *pid 0. */
static int fork_through_helper(struct pidns *ns, pid_t *pid)
{
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0)
        return -errno;
    pid_t helper = fork();
    if (helper < 0) {
        int e = errno;
        close(report[0]);
        close(report[1]);
        return -e;
    }
    if (helper == 0) {
        int r;
        if (setns(ns->pidfd, CLONE_NEWUSER | CLONE_NEWPID) < 0) {
            r = -errno;
        } else {
            r = fork();
            if (r == 0) {
                close(report[0]);
                close(report[1]);
                *pid = 0;
                return 0;
            }
            if (r < 0)
                r = -errno;
        }
        (void)!write(report[1], &r, sizeof r);
        _exit(0);
    }
    close(report[1]);
    int r = 0;
    ssize_t n;
    do {
        n = read(report[0], &r, sizeof r);
    } while (n < 0 && errno == EINTR);
    close(report[0]);
    /* Once the helper is gone, the program is glovebox's child. */
    while (waitpid(helper, NULL, 0) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof r)
        return -EIO;
    if (r < 0)
        return r;
    *pid = r;
    return 0;
}

pid_t pidns_fork(struct pidns *ns)
{
    if (!ns)
        return fork();
    /* Open until pidns_destroy: the pidfd is how setns finds the namespace
     * (a pid could have been reused), the lifeline keeps its init alive. */
    CHECK(ns->pidfd >= 0 && ns->lifeline >= 0);
    /* Without a helper, this thread joins the namespace and must return to
     * glovebox's own, which decide() opened before any namespace was made. */
    CHECK(ns->user || own_ns >= 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = -1;
    int e = 0;
    if (ns->user) {
        int r = fork_through_helper(ns, &pid);
        if (r < 0) {
            e = -r;
            pid = -1;
        }
    } else if (setns(ns->pidfd, CLONE_NEWPID) < 0) {
        /* Only this thread's future children change namespace. */
        e = errno;
    } else {
        pid = fork();
        e = errno;
        if (pid != 0 && setns(own_ns, CLONE_NEWPID) < 0)
            log_error("cannot return to glovebox's own PID namespace: %s; later programs of "
                      "other sessions may start in the wrong one",
                      strerror(errno));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid < 0)
        errno = e;
    return pid;
}

void pidns_destroy(struct pidns *ns)
{
    if (!ns)
        return;
    CHECK(ns->pidfd >= 0 && ns->lifeline >= 0);
    if (pidfd_kill(ns->pidfd) < 0 && errno != ESRCH)
        log_warn("cannot end PID namespace init %d: %s", (int)ns->init, strerror(errno));
    close(ns->lifeline);
    close(ns->pidfd);
    free(ns);
}

pid_t pidns_init_pid(const struct pidns *ns)
{
    return ns->init;
}

/* Make a namespace, start a process in it, end both: does it all work? */
static int try_mode(bool user)
{
    struct pidns *ns = NULL;
    int r = make(user, &ns);
    if (r < 0)
        return r;
    pid_t init = ns->init;
    pid_t pid = pidns_fork(ns);
    if (pid == 0)
        _exit(getpid() == 2 ? 0 : 1);
    r = pid < 0 ? -errno : 0;
    int status = 0;
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            r = -EPROTO;
    }
    pidns_destroy(ns);
    while (waitpid(init, NULL, 0) < 0 && errno == EINTR)
        ;
    return r;
}

static void decide(void)
{
    decided = true;
    const char *force = getenv("GLOVEBOX_CONTAINMENT");
    if (force && !strcmp(force, "none")) {
        snprintf(reason, sizeof reason, "turned off by GLOVEBOX_CONTAINMENT=none");
        return;
    }
    own_ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (own_ns < 0) {
        snprintf(reason, sizeof reason, "cannot open /proc/self/ns/pid: %s", strerror(errno));
        return;
    }
    bool only_user = force && !strcmp(force, "user");
    int pid_err = only_user ? 0 : try_mode(false);
    if (!only_user && pid_err == 0) {
        mode = PIDNS_PID;
        return;
    }
    int user_err = try_mode(true);
    if (user_err == 0) {
        mode = PIDNS_USER_PID;
        return;
    }
    if (only_user)
        snprintf(reason, sizeof reason, "user+pid namespace (GLOVEBOX_CONTAINMENT=user): %s",
                 strerror(-user_err));
    else
        snprintf(reason, sizeof reason,
                 "PID namespace: %s (needs root or CAP_SYS_ADMIN); user+pid namespace: %s "
                 "(needs unprivileged user namespaces)",
                 strerror(-pid_err), strerror(-user_err));
}

enum pidns_mode pidns_mode(void)
{
    if (!decided)
        decide();
    return mode;
}

const char *pidns_mode_name(enum pidns_mode m)
{
    switch (m) {
    case PIDNS_PID:
        return "pid-namespace";
    case PIDNS_USER_PID:
        return "user+pid-namespace";
    default:
        return "none";
    }
}

const char *pidns_reason(void)
{
    return pidns_mode() == PIDNS_NONE ? reason : NULL;
}

bool pidns_create(struct pidns **out, char **err)
{
    *out = NULL;
    if (pidns_mode() == PIDNS_NONE) {
        static bool warned;
        if (!warned)
            log_warn("session processes are not contained (they can outlive their session): %s",
                     reason);
        warned = true;
        return true;
    }
    int r = make(mode == PIDNS_USER_PID, out);
    if (r < 0) {
        *err =
            xasprintf("cannot make a PID namespace for the session's processes: %s", strerror(-r));
        return false;
    }
    return true;
}
