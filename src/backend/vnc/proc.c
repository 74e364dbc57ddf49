/* The module's side of the connection processes (glovebox-vnc-worker,
 * worker_main.c): starting one, hearing how it ended, stopping it.
 *
 * glovebox reaps every child itself on the loop (core/children.c, with
 * waitpid(-1)), so a worker is forked on the loop thread and watched
 * there in the same turn: the GLib thread asks through the session's
 * uv_async and waits for the answer. The exit status comes back to the
 * GLib thread as an idle (conn.c). */
#define LOG_MODULE "vnc"
#include "backend/vnc/internal.h"

#include "core/children.h"
#include "core/log.h"
#include "core/xmalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GLOVEBOX_MODULE_DIR_DEFAULT
#define GLOVEBOX_MODULE_DIR_DEFAULT "/usr/local/lib/glovebox"
#endif

#define WORKER_NAME "glovebox-vnc-worker"
/* How long the GLib thread waits for the loop to start a worker. */
#define SPAWN_WAIT_MS 10000

extern char **environ;

/* The workers alive, by pid: the exit callback finds its own here. */
static pthread_mutex_t procs_mu = PTHREAD_MUTEX_INITIALIZER;
static struct vnc_proc *procs; /* under procs_mu */

/* What the worker keeps of glovebox's environment: the sanitizers' and
 * logging's settings and the locale, nothing else (the environment may hold
 * a password_env's password, and tokens). */
static bool env_kept(const char *e)
{
    static const char *const keep[] = {"ASAN_OPTIONS=",
                                       "LSAN_OPTIONS=",
                                       "UBSAN_OPTIONS=",
                                       "GLOVEBOX_LOG=",
                                       "G_MESSAGES_DEBUG=",
                                       "LANG=",
                                       "LC_ALL=",
                                       "TZ=",
                                       "HOME="};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        if (strncmp(e, keep[i], strlen(keep[i])) == 0)
            return true;
    return false;
}

/* The worker beside the module (the build tree, or the installed module
 * directory), else in the installed module directory. NULL with *err. */
static const char anchor = 0; /* an address inside the module */

static char *worker_path(char **err)
{
    Dl_info info;
    char *beside = NULL;
    if (dladdr(&anchor, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash)
            beside = xasprintf("%.*s/" WORKER_NAME, (int)(slash - info.dli_fname), info.dli_fname);
    }
    if (beside && access(beside, X_OK) == 0)
        return beside;
    char *installed = xstrdup(GLOVEBOX_MODULE_DIR_DEFAULT "/" WORKER_NAME);
    if (access(installed, X_OK) == 0) {
        free(beside);
        return installed;
    }
    *err = xasprintf("%s is not installed (looked for %s%s%s); reinstall glovebox-vnc", WORKER_NAME,
                     beside ? beside : "", beside ? " and " : "", installed);
    free(beside);
    free(installed);
    return NULL;
}

static void exited(pid_t pid, int status, void *ud)
{
    (void)ud;
    pthread_mutex_lock(&procs_mu);
    struct vnc_proc *p = procs;
    while (p && p->pid != pid)
        p = p->next;
    if (p) {
        p->exited = true;
        p->status = status;
        if (p->pidfd >= 0)
            close(p->pidfd);
        p->pidfd = -1;
    }
    pthread_mutex_unlock(&procs_mu);
    if (p)
        vnc_glib_post(vnc_conn_proc_exited, p);
}

/* Loop thread: fork and exec the worker; false with *err. */
static bool spawn(struct vnc_proc *p, char **err)
{
    char *path = worker_path(err);
    if (!path)
        return false;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *err = xasprintf("cannot make a socket pair: %s", strerror(errno));
        free(path);
        return false;
    }
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    char ppid[24];
    snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
    static char flag[] = "--vnc-worker";
    char *argv[] = {path, flag, ppid, NULL};
    size_t n = 0;
    for (char **e = environ; *e; e++)
        n++;
    char **envp = xcalloc(n + 1, sizeof *envp);
    size_t k = 0;
    for (char **e = environ; *e; e++)
        if (env_kept(*e))
            envp[k++] = *e;
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls from here to execve. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int sock = fcntl(sv[1], F_DUPFD, 10);
        if (sock < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
            dup2(sock, 3) < 0)
            _exit(127);
        /* Nothing of glovebox's stays open: no client sockets, no other
         * session's files (one by one on a kernel before 5.9). */
        if (syscall(SYS_close_range, 4, ~0U, 0) != 0)
            for (int fd = 4; fd < 65536; fd++)
                close(fd);
        execve(path, argv, envp);
        _exit(127);
    }
    int fork_errno = errno;
    free(envp);
    if (devnull >= 0)
        close(devnull);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        *err = xasprintf("cannot start %s: %s", path, strerror(fork_errno));
        free(path);
        return false;
    }
    free(path);
    if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) != 0)
        log_warn("cannot make the worker's socket nonblocking: %s", strerror(errno));
    p->pid = pid;
    p->sock = sv[0];
    /* Signals go to this process even after its pid is reaped and reused. */
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    pthread_mutex_lock(&procs_mu);
    p->next = procs;
    procs = p;
    pthread_mutex_unlock(&procs_mu);
    /* In this turn of the loop: the reaper cannot have seen it yet. */
    children_watch(pid, exited, NULL);
    return true;
}

void vnc_proc_spawn_pending(struct vnc *v)
{
    pthread_mutex_lock(&v->mu);
    struct vnc_spawn *sp = v->spawn;
    v->spawn = NULL;
    if (sp)
        sp->taken = true;
    pthread_mutex_unlock(&v->mu);
    if (!sp)
        return;
    char *err = NULL;
    bool ok = spawn(sp->proc, &err);
    pthread_mutex_lock(&v->mu);
    sp->ok = ok;
    sp->err = err;
    sp->done = true;
    pthread_cond_broadcast(&v->spawned);
    pthread_mutex_unlock(&v->mu);
}

struct vnc_proc *vnc_proc_start(struct vnc *v, char **err)
{
    struct vnc_proc *p = xcalloc(1, sizeof *p);
    p->v = v;
    p->pidfd = -1;
    p->sock = -1;
    vnc_wire_reader_init(&p->rd);
    struct vnc_spawn sp = {.proc = p};
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += SPAWN_WAIT_MS / 1000;
    pthread_mutex_lock(&v->mu);
    v->spawn = &sp;
    uv_async_send(&v->wake);
    while (!sp.done) {
        if (sp.taken)
            pthread_cond_wait(&v->spawned, &v->mu);
        else if (pthread_cond_timedwait(&v->spawned, &v->mu, &until) != 0 && !sp.taken)
            break;
    }
    if (!sp.done) {
        /* The loop never took it (glovebox is ending): it never will. */
        v->spawn = NULL;
        sp.err = xstrdup("glovebox's loop did not start the connection's process");
    }
    pthread_mutex_unlock(&v->mu);
    if (!sp.ok) {
        *err = sp.err;
        vnc_wire_reader_finish(&p->rd);
        free(p);
        return NULL;
    }
    return p;
}

void vnc_proc_kill(struct vnc_proc *p)
{
    pthread_mutex_lock(&procs_mu);
    if (!p->exited && p->pidfd >= 0)
        syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
    else if (!p->exited)
        /* No pidfd (a kernel before 5.3): not yet reaped, so still ours. */
        kill(p->pid, SIGKILL);
    pthread_mutex_unlock(&procs_mu);
}

char *vnc_proc_status_text(int status)
{
    if (WIFSIGNALED(status))
        return xasprintf("signal %d", WTERMSIG(status));
    return xasprintf("exit status %d", WEXITSTATUS(status));
}

void vnc_proc_free(struct vnc_proc *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&procs_mu);
    for (struct vnc_proc **pp = &procs; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    if (p->pidfd >= 0)
        close(p->pidfd);
    pthread_mutex_unlock(&procs_mu);
    if (p->sock >= 0)
        close(p->sock);
    vnc_wire_reader_finish(&p->rd);
    free(p->reason);
    free(p->detail);
    free(p->broken);
    free(p);
}
