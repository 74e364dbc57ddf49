/* Programs start on their own terminal, and when they cannot start the agent
 * is told why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/terminal/term_pty.h"
#include "core/strbuf.h"

/* Everything the program writes, until the terminal closes (EIO). */
static char *read_all(int fd)
{
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "", 0);
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 10000);
        assert_true(r > 0); /* no program here runs for 10 s */
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            strbuf_append(&sb, buf, (size_t)n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        break;
    }
    return strbuf_steal(&sb);
}

static int wait_exit(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static char *run(const char *const *argv, const char *const *env, const char *cwd, int *status)
{
    struct term_pty_options o = {.argv = argv, .env = env, .cwd = cwd, .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    if (!term_pty_spawn(&o, &pty, &err))
        fail_msg("spawn: %s", err);
    char *out = read_all(pty.master);
    close(pty.master);
    *status = wait_exit(pty.pid);
    return out;
}

static void program_output_arrives_and_it_exits_cleanly(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/echo", "hi", NULL};
    int status;
    char *out = run(argv, NULL, NULL, &status);
    assert_non_null(strstr(out, "hi"));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    free(out);
}

static void commands_are_found_on_path(void **state)
{
    (void)state;
    const char *argv[] = {"echo", "found", NULL};
    int status;
    char *out = run(argv, NULL, NULL, &status);
    assert_non_null(strstr(out, "found"));
    free(out);
}

static void the_program_sees_a_colour_terminal_and_its_environment(void **state)
{
    (void)state;
    setenv("LINES", "3", 1);
    const char *argv[] = {"/bin/sh", "-c",
                          "echo \"[$TERM $COLORTERM $GB_TEST ${LINES-none}]\"; "
                          "stty size; test -t 0 && echo tty",
                          NULL};
    const char *env[] = {"GB_TEST=yes", NULL};
    int status;
    char *out = run(argv, env, "/", &status);
    unsetenv("LINES");
    assert_non_null(strstr(out, "[xterm-256color truecolor yes none]"));
    assert_non_null(strstr(out, "24 80"));
    assert_non_null(strstr(out, "tty"));
    free(out);
}

static void the_program_starts_in_the_requested_directory(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/pwd", NULL};
    int status;
    char *out = run(argv, NULL, "/tmp", &status);
    assert_non_null(strstr(out, "/tmp"));
    free(out);
}

static void missing_command_is_reported(void **state)
{
    (void)state;
    const char *argv[] = {"glovebox-no-such-command", NULL};
    struct term_pty_options o = {.argv = argv, .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    assert_false(term_pty_spawn(&o, &pty, &err));
    assert_non_null(strstr(err, "No such file or directory"));
    assert_non_null(strstr(err, "glovebox-no-such-command"));
    free(err);

    const char *abs[] = {"/nonexistent/prog", NULL};
    o.argv = abs;
    assert_false(term_pty_spawn(&o, &pty, &err));
    assert_non_null(strstr(err, "No such file or directory"));
    free(err);
    /* The failed child was reaped, not left a zombie. */
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void missing_directory_is_reported(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/true", NULL};
    struct term_pty_options o = {.argv = argv, .cwd = "/nonexistent/dir", .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    assert_false(term_pty_spawn(&o, &pty, &err));
    assert_non_null(strstr(err, "/nonexistent/dir"));
    assert_non_null(strstr(err, "No such file or directory"));
    free(err);
}

static void permission_denied_is_reported(void **state)
{
    (void)state;
    char path[] = "/tmp/glovebox-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    close(fd);
    chmod(path, 0644);
    const char *argv[] = {path, NULL};
    struct term_pty_options o = {.argv = argv, .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    bool ok = term_pty_spawn(&o, &pty, &err);
    unlink(path);
    if (geteuid() == 0 && ok) {
        /* root may execute anything with an x bit somewhere; not here. */
        fail_msg("spawned a non-executable file");
    }
    assert_false(ok);
    assert_non_null(strstr(err, "Permission denied"));
    free(err);
}

static void bad_options_are_refused(void **state)
{
    (void)state;
    const char *empty[] = {NULL};
    struct term_pty_options o = {.argv = empty, .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    assert_false(term_pty_spawn(&o, &pty, &err));
    free(err);
    const char *argv[] = {"/bin/true", NULL};
    const char *env[] = {"NOEQUALS", NULL};
    o = (struct term_pty_options){.argv = argv, .env = env, .cols = 80, .rows = 24};
    assert_false(term_pty_spawn(&o, &pty, &err));
    assert_non_null(strstr(err, "NOEQUALS"));
    free(err);
    o = (struct term_pty_options){.argv = argv, .cols = 0, .rows = 24};
    assert_false(term_pty_spawn(&o, &pty, &err));
    free(err);
}

static void the_program_leads_its_own_session_and_can_be_signalled(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sleep", "30", NULL};
    struct term_pty_options o = {.argv = argv, .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    assert_true(term_pty_spawn(&o, &pty, &err));
    assert_int_equal(getsid(pty.pid), pty.pid);
    assert_int_equal(getpgid(pty.pid), pty.pid);
    assert_int_equal(tcgetpgrp(pty.master), pty.pid);
    int fl = fcntl(pty.master, F_GETFL);
    assert_true(fl & O_NONBLOCK);
    assert_true(fcntl(pty.master, F_GETFD) & FD_CLOEXEC);
    assert_int_equal(term_pty_resize(pty.master, 100, 30), 0);
    assert_int_equal(term_pty_signal(pty.pid, SIGTERM), 0);
    int status = wait_exit(pty.pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_int_equal(term_pty_signal(pty.pid, SIGTERM), -ESRCH);
    close(pty.master);
}

static void a_resize_reaches_the_program(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "read x; stty size", NULL};
    struct term_pty_options o = {.argv = argv, .cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    assert_true(term_pty_spawn(&o, &pty, &err));
    assert_int_equal(term_pty_resize(pty.master, 132, 43), 0);
    assert_int_equal(write(pty.master, "\r", 1), 1);
    char *out = read_all(pty.master);
    assert_non_null(strstr(out, "43 132"));
    free(out);
    close(pty.master);
    wait_exit(pty.pid);
}

static void the_program_starts_with_no_signals_ignored_or_blocked(void **state)
{
    (void)state;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old);
    const char *argv[] = {"/bin/cat", "/proc/self/status", NULL};
    int status;
    char *out = run(argv, NULL, NULL, &status);
    sigprocmask(SIG_SETMASK, &old, NULL);
    /* Signals 32 and 33 are glibc's own (thread cancellation, setxid): its
     * sigaction refuses to touch them, so a disposition the caller of the
     * tests inherited survives. Every other signal must be clean. */
    const uint64_t glibc_reserved = (1ull << 31) | (1ull << 32);
    const char *ign = strstr(out, "SigIgn:\t"), *blk = strstr(out, "SigBlk:\t");
    if (!ign || !blk || (strtoull(ign + 8, NULL, 16) & ~glibc_reserved) != 0 ||
        (strtoull(blk + 8, NULL, 16) & ~glibc_reserved) != 0)
        fail_msg("the program did not start with clean signals; its status was:\n%s", out);
    free(out);
}

static void no_argv_runs_the_users_shell(void **state)
{
    (void)state;
    setenv("SHELL", "/bin/sh", 1);
    struct term_pty_options o = {.cols = 80, .rows = 24};
    struct term_pty pty;
    char *err = NULL;
    assert_true(term_pty_spawn(&o, &pty, &err));
    assert_string_equal(pty.program, "/bin/sh");
    assert_int_equal(write(pty.master, "echo sh-$((6*7)); exit 3\r", 25), 25);
    char *out = read_all(pty.master);
    assert_non_null(strstr(out, "sh-42"));
    free(out);
    close(pty.master);
    int status = wait_exit(pty.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3);
}

int main(void)
{
    /* A SIGPIPE-ignoring server must not pass that on to its programs. */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_output_arrives_and_it_exits_cleanly),
        cmocka_unit_test(commands_are_found_on_path),
        cmocka_unit_test(the_program_sees_a_colour_terminal_and_its_environment),
        cmocka_unit_test(the_program_starts_in_the_requested_directory),
        cmocka_unit_test(missing_command_is_reported),
        cmocka_unit_test(missing_directory_is_reported),
        cmocka_unit_test(permission_denied_is_reported),
        cmocka_unit_test(bad_options_are_refused),
        cmocka_unit_test(the_program_leads_its_own_session_and_can_be_signalled),
        cmocka_unit_test(a_resize_reaches_the_program),
        cmocka_unit_test(the_program_starts_with_no_signals_ignored_or_blocked),
        cmocka_unit_test(no_argv_runs_the_users_shell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
