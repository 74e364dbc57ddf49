#include "backend/terminal/term_pty.h"

#include "core/child_env.h"
#include "core/locale_env.h"
#include "core/pidns.h"
#include "core/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

/* What the child reports on its error pipe before it gives up. */
enum stage { STAGE_SETUP = 1, STAGE_CHDIR, STAGE_EXEC };
struct child_report {
    int stage;
    int err;
};

/* Everything the child needs, prepared before fork: between fork and exec
 * only async-signal-safe calls are allowed, so no allocation there. */
struct child_plan {
    int slave, report_fd;
    const char *cwd;
    char **candidates; /* paths to try in order, as execvp would */
    char *const *argv;
    char *const *envp;
    struct sigaction dfl;
    sigset_t empty;
};

static bool key_is(const char *entry, const char *key)
{
    size_t n = strlen(key);
    return !strncmp(entry, key, n) && entry[n] == '=';
}

static bool overridden(const char *entry, const char *const *extra)
{
    size_t n = strcspn(entry, "=");
    for (const char *const *e = extra; e && *e; e++) {
        if (!strncmp(*e, entry, n) && (*e)[n] == '=')
            return true;
    }
    return false;
}

/* The child's environment: glovebox's own, minus what describes a terminal
 * it is not (TERM, COLORTERM, and LINES/COLUMNS, which programs would prefer
 * over the real size), plus the terminal's, plus the caller's, plus a UTF-8
 * locale when none is chosen (MCP clients often start glovebox without
 * LANG; the screen is UTF-8). The strings are borrowed. */
static char **build_env(const char *const *extra)
{
    size_t n = 0, m = 0;
    for (char **e = environ; *e; e++)
        n++;
    for (const char *const *e = extra; e && *e; e++)
        n++;
    const char **env = xcalloc(n + 4, sizeof *env);
    static const char *const drop[] = {"TERM", "COLORTERM", "LINES", "COLUMNS"};
    for (char **e = environ; *e; e++) {
        bool skip = overridden(*e, extra) || child_env_withheld(*e);
        for (size_t i = 0; !skip && i < sizeof drop / sizeof drop[0]; i++)
            skip = key_is(*e, drop[i]);
        if (!skip)
            env[m++] = *e;
    }
    if (!overridden("TERM=", extra))
        env[m++] = "TERM=xterm-256color";
    if (!overridden("COLORTERM=", extra))
        env[m++] = "COLORTERM=truecolor";
    for (const char *const *e = extra; e && *e; e++)
        env[m++] = *e;
    env[m] = NULL;
    if (!locale_env_chosen((char **)env)) {
        env[m++] = LOCALE_ENV_DEFAULT_NAME "=" LOCALE_ENV_DEFAULT_VALUE;
        env[m] = NULL;
    }
    return (char **)env;
}

static const char *env_get(char **env, const char *key)
{
    for (; *env; env++) {
        if (key_is(*env, key))
            return *env + strlen(key) + 1;
    }
    return NULL;
}

/* execvp's search, done in the parent: each PATH entry joined with file (an
 * empty entry is the working directory), or file alone if it has a slash. */
static char **candidates(const char *file, const char *path)
{
    if (strchr(file, '/')) {
        char **c = xcalloc(2, sizeof *c);
        c[0] = xstrdup(file);
        return c;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    size_t n = 1;
    for (const char *p = path; *p; p++)
        n += *p == ':';
    char **c = xcalloc(n + 1, sizeof *c);
    size_t i = 0;
    for (const char *p = path;; p++) {
        size_t len = strcspn(p, ":");
        c[i++] = len ? xasprintf("%.*s/%s", (int)len, p, file) : xasprintf("./%s", file);
        p += len;
        if (!*p)
            break;
    }
    return c;
}

static void free_strv(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

static _Noreturn void child_fail(const struct child_plan *p, int stage, int err)
{
    struct child_report r = {stage, err};
    ssize_t n = write(p->report_fd, &r, sizeof r);
    (void)n; /* nothing more a failing child can do */
    _exit(127);
}

static _Noreturn void child(const struct child_plan *p)
{
    /* A clean start: ignored signals and the mask survive exec. */
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &p->dfl, NULL);
    pthread_sigmask(SIG_SETMASK, &p->empty, NULL);

    if (setsid() < 0 || ioctl(p->slave, TIOCSCTTY, 0) < 0)
        child_fail(p, STAGE_SETUP, errno);
    for (int fd = 0; fd <= 2; fd++) {
        if (dup2(p->slave, fd) < 0)
            child_fail(p, STAGE_SETUP, errno);
    }
    close(p->slave);
    /* Leave glovebox's descriptors behind even where one lacks CLOEXEC. */
    if (p->report_fd > 3)
        close_range(3, (unsigned)p->report_fd - 1, 0);
    close_range((unsigned)p->report_fd + 1, ~0u, 0);

    if (p->cwd && chdir(p->cwd) < 0)
        child_fail(p, STAGE_CHDIR, errno);

    int err = ENOENT;
    bool denied = false;
    for (char **c = p->candidates; *c; c++) {
        execve(*c, p->argv, p->envp);
        err = errno;
        if (err == EACCES)
            denied = true;
        else if (err != ENOENT && err != ENOTDIR)
            break;
    }
    child_fail(p, STAGE_EXEC, denied && (err == ENOENT || err == ENOTDIR) ? EACCES : err);
}

/* Keep fd off 0..2, which the child overwrites with the terminal. */
static int above_stdio(int fd)
{
    if (fd > 2)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return moved;
}

static bool open_pty(int cols, int rows, int *master, int *slave, char **err)
{
    *master = *slave = -1;
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    char name[128];
    if (m < 0 || (m = above_stdio(m)) < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
        ptsname_r(m, name, sizeof name) != 0)
        goto fail;
    int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s < 0 || (s = above_stdio(s)) < 0)
        goto fail;
    *master = m;
    *slave = s;
    struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    struct termios t;
    int flags = fcntl(m, F_GETFL);
    if (ioctl(m, TIOCSWINSZ, &ws) < 0 || flags < 0 || fcntl(m, F_SETFL, flags | O_NONBLOCK) < 0)
        goto fail;
    /* Line editing (the erase key) should know characters are UTF-8. */
    if (tcgetattr(s, &t) == 0) {
        t.c_iflag |= IUTF8;
        tcsetattr(s, TCSANOW, &t);
    }
    return true;
fail:
    *err = xasprintf("cannot open a pseudo-terminal: %s", strerror(errno));
    if (m >= 0)
        close(m);
    if (*slave >= 0)
        close(*slave);
    *master = *slave = -1;
    return false;
}

static bool check_options(const struct term_pty_options *o, char **err)
{
    if (o->cols < 1 || o->cols > 65535 || o->rows < 1 || o->rows > 65535) {
        *err = xasprintf("terminal size %dx%d is out of range", o->cols, o->rows);
        return false;
    }
    if (o->argv && (!o->argv[0] || !o->argv[0][0])) {
        *err = xstrdup("empty command");
        return false;
    }
    for (const char *const *e = o->env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e) {
            *err = xasprintf("environment entry \"%s\" is not KEY=value", *e);
            return false;
        }
    }
    return true;
}

static char *report_text(const struct child_report *r, const char *program, const char *cwd)
{
    const char *why = strerror(r->err);
    switch (r->stage) {
    case STAGE_CHDIR:
        return xasprintf("cannot change directory to \"%s\": %s", cwd, why);
    case STAGE_EXEC:
        if (r->err == ENOENT && !strchr(program, '/'))
            return xasprintf("cannot run \"%s\": %s (not found in PATH)", program, why);
        return xasprintf("cannot run \"%s\": %s", program, why);
    default:
        return xasprintf("cannot set up a terminal for \"%s\": %s", program, why);
    }
}

bool term_pty_spawn(const struct term_pty_options *opts, struct term_pty *out, char **err)
{
    if (!check_options(opts, err))
        return false;
    const char *shell_argv[2] = {NULL, NULL};
    const char *const *argv = opts->argv;
    if (!argv) {
        const char *shell = getenv("SHELL");
        shell_argv[0] = shell && *shell ? shell : "/bin/sh";
        argv = shell_argv;
    }

    int master, slave;
    if (!open_pty(opts->cols, opts->rows, &master, &slave, err))
        return false;
    int pipefd[2] = {-1, -1};
    if (pipe2(pipefd, O_CLOEXEC) < 0 || (pipefd[0] = above_stdio(pipefd[0])) < 0 ||
        (pipefd[1] = above_stdio(pipefd[1])) < 0) {
        *err = xasprintf("cannot start \"%s\": pipe: %s", argv[0], strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (pipefd[i] >= 0)
                close(pipefd[i]);
        }
        close(master);
        close(slave);
        return false;
    }

    char **envp = build_env(opts->env);
    struct child_plan plan = {
        .slave = slave,
        .report_fd = pipefd[1],
        .cwd = opts->cwd,
        /* The caller's resolved path runs as it is: no search after the policy's check. */
        .candidates = candidates(opts->program ? opts->program : argv[0], env_get(envp, "PATH")),
        .argv = (char *const *)argv,
        .envp = envp,
        .dfl = {.sa_handler = SIG_DFL},
    };
    sigemptyset(&plan.dfl.sa_mask);
    sigemptyset(&plan.empty);

    /* Signals wait until the child has reset its handlers: glovebox's must
     * never run in the child. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* Into the session's namespace, but still glovebox's child. */
    pid_t pid = pidns_fork(opts->ns);
    if (pid == 0)
        child(&plan);
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    close(slave);
    close(pipefd[1]);
    free(envp);
    free_strv(plan.candidates);
    if (pid < 0) {
        *err = xasprintf("cannot start \"%s\": fork: %s", argv[0],
                         fork_errno == ESRCH ? "the session's PID namespace is gone"
                                             : strerror(fork_errno));
        close(pipefd[0]);
        close(master);
        return false;
    }

    /* The pipe closes on a successful exec, or carries the reason. */
    struct child_report r;
    ssize_t n;
    do {
        n = read(pipefd[0], &r, sizeof r);
    } while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n == (ssize_t)sizeof r) {
        *err = report_text(&r, argv[0], opts->cwd);
        close(master);
        /* The caller never learns this pid, so reap it here. */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return false;
    }
    out->master = master;
    out->pid = pid;
    out->program = argv[0];
    return true;
}

int term_pty_resize(int master, int cols, int rows)
{
    if (cols < 1 || cols > 65535 || rows < 1 || rows > 65535)
        return -EINVAL;
    struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    return ioctl(master, TIOCSWINSZ, &ws) < 0 ? -errno : 0;
}

int term_pty_signal(pid_t pid, int sig)
{
    if (pid <= 0)
        return -EINVAL;
    return kill(-pid, sig) < 0 ? -errno : 0;
}
