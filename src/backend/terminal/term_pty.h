/* Start a program on a new pseudo-terminal. The caller watches the master
 * side (polling it, reading, writing) and reaps the child with waitpid; this
 * module installs no signal handlers and reaps nothing it returns. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

struct pidns;

struct term_pty_options {
    const char *const *argv; /* NULL-terminated; NULL = $SHELL, else /bin/sh */
    const char *program;     /* absolute path to execute (argv[0] stays as given); NULL =
                                search argv[0] in PATH */
    const char *cwd;         /* NULL = inherit glovebox's */
    const char *const *env;  /* extra "KEY=value" entries, NULL-terminated; may be NULL */
    int cols, rows;          /* 1..65535 */
    struct pidns *ns;        /* the session's PID namespace (core/pidns.h); NULL = none */
};

struct term_pty {
    int master;          /* non-blocking, close-on-exec; the caller closes it */
    pid_t pid;           /* session leader; also the process group id */
    const char *program; /* what ran: argv[0] or the shell; borrowed from the options or the
                            environment, copy it at once */
};

/* Fork and exec the program on a new terminal of cols x rows, in its own
 * session with the terminal as its controlling tty. TERM=xterm-256color and
 * COLORTERM=truecolor are set; LINES and COLUMNS are dropped so the terminal
 * size wins; env entries override inherited ones. Returns false with *err
 * (caller frees) when the program could not be started, including the OS
 * reason the exec or chdir failed with. */
bool term_pty_spawn(const struct term_pty_options *opts, struct term_pty *out, char **err);

/* Tell the terminal (and so the program, by SIGWINCH) its new size.
 * Returns 0 or -errno. */
int term_pty_resize(int master, int cols, int rows);

/* Send sig to the program's process group. Returns 0 or -errno. Jobs a shell
 * started sit in their own groups; closing the master hangs them all up. */
int term_pty_signal(pid_t pid, int sig);
