/* The chromedriver glovebox starts when webdriver_connect names no
 * endpoint: on a free loopback port, in the session's PID namespace, with
 * HOME and TMPDIR in a private folder that also holds Chromium's profile,
 * so nothing of the browser outlives the session or lands in the user's
 * home. */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/internal.h"

#include "core/child_env.h"
#include "core/locale_env.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/pidns.h"
#include "core/program_path.h"
#include "core/xmalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A port nobody listens on now. chromedriver binds it a moment later; the
 * rare loser of that race fails to start and says so. */
static int free_port(char **err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        *err = xasprintf("cannot find a free loopback port: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

static char *find_program(const char *name)
{
    char *err = NULL;
    char *path = program_path_resolve(name, NULL, getenv("PATH"), &err);
    free(err);
    return path;
}

const char *wd_driver_chromium(void)
{
    static char *path;
    static bool looked;
    if (!looked) {
        looked = true;
        path = find_program("chromium");
        if (!path)
            path = find_program("chromium-browser");
        if (!path)
            path = find_program("google-chrome");
    }
    return path;
}

json_t *wd_driver_chrome_args(const struct wd *w)
{
    json_t *a = json_pack("[s, s, s, s, s, s, s]", "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-background-networking", "--no-first-run",
                          "--no-default-browser-check", "--disable-dev-shm-usage");
    json_array_append_new(a, json_sprintf("--user-data-dir=%s/profile", w->tmpdir));
    json_array_append_new(a, json_sprintf("--window-size=%d,%d", w->width, w->height));
    return a;
}

void wd_driver_remove_tmpdir(struct wd *w)
{
    if (!w->tmpdir)
        return;
    paths_remove_tree(w->tmpdir);
    free(w->tmpdir);
    w->tmpdir = NULL;
}

bool wd_driver_spawn(struct wd *w, char **err)
{
    char *driver = find_program("chromedriver");
    if (!driver) {
        *err = xstrdup("chromedriver is not installed (Debian: apt-get install chromium "
                       "chromium-driver), or pass the url of a WebDriver endpoint");
        return false;
    }
    if (!wd_driver_chromium()) {
        free(driver);
        *err = xstrdup("Chromium is not installed (Debian: apt-get install chromium "
                       "chromium-driver), or pass the url of a WebDriver endpoint");
        return false;
    }
    w->port = free_port(err);
    if (w->port < 0) {
        free(driver);
        return false;
    }
    const char *tmp = getenv("TMPDIR");
    char *templ = xasprintf("%s/glovebox-webdriver-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ)) {
        *err = xasprintf("cannot make a private folder for the browser (%s): %s", templ,
                         strerror(errno));
        free(templ);
        free(driver);
        return false;
    }
    w->tmpdir = templ;
    if (!pidns_create(&w->ns, err)) {
        free(driver);
        return false;
    }
    char port_arg[32];
    snprintf(port_arg, sizeof port_arg, "--port=%d", w->port);
    const char *argv[] = {driver, port_arg, "--log-level=SEVERE", NULL};
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        *err = xasprintf("pipe: %s", strerror(errno));
        free(driver);
        return false;
    }
    pid_t parent = getpid();
    pid_t pid = pidns_fork(w->ns);
    if (pid < 0) {
        *err = xasprintf("fork: %s", strerror(errno));
        close(report[0]);
        close(report[1]);
        free(driver);
        return false;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (!w->ns) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(127);
        }
        child_env_scrub(environ);
        setenv("HOME", w->tmpdir, 1);
        setenv("TMPDIR", w->tmpdir, 1);
        unsetenv("XDG_CONFIG_HOME");
        unsetenv("XDG_CACHE_HOME");
        unsetenv("XDG_DATA_HOME");
        if (!locale_env_chosen(environ))
            setenv(LOCALE_ENV_DEFAULT_NAME, LOCALE_ENV_DEFAULT_VALUE, 1);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execv(argv[0], (char *const *)argv);
        int e = errno;
        (void)!write(report[1], &e, sizeof e);
        _exit(127);
    }
    close(report[1]);
    int child_errno = 0;
    ssize_t n = read(report[0], &child_errno, sizeof child_errno);
    close(report[0]);
    if (n == (ssize_t)sizeof child_errno) {
        *err = xasprintf("cannot run %s: %s", driver, strerror(child_errno));
        waitpid(pid, NULL, 0);
        free(driver);
        return false;
    }
    free(driver);
    w->driver_pid = pid;
    return true;
}
