/* glovebox stop / glovebox resume: the person's stop button for every
 * running server (or one, with --pid), by SIGUSR1 / SIGUSR2; glovebox policy
 * apply reaches them the same way (SIGHUP). */
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/pidfile.h"
#include "core/paths.h"
#include "core/xmalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *to, const struct cli_signal_command *c)
{
    fprintf(to,
            "Usage: glovebox %s [--pid PID] [--data-dir DIR]\n"
            "\n"
            "%s\n"
            "\n"
            "Options:\n"
            "  --pid PID        only this server\n"
            "  --data-dir DIR   where the servers keep their pid files (default\n"
            "                   $XDG_DATA_HOME/glovebox; the same as their --data-dir)\n"
            "  -h, --help       show this help\n"
            "\n"
            "Exit status: 0 when at least one server was %s, 1 when none was found,\n"
            "2 on a usage error.\n",
            c->name, c->about, c->done);
}

int cli_signal_servers(int argc, char **argv, const struct cli_signal_command *c)
{
    const char *cmd = c->name;
    long only = 0;
    char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout, c);
            free(dir);
            return EXIT_OK;
        } else if (strcmp(a, "--pid") == 0 && v) {
            if (!options_parse_int(v, 2, 0x7fffffff, &only)) {
                fprintf(stderr, "glovebox %s: --pid expects a process id, got \"%s\"\n", cmd, v);
                free(dir);
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--data-dir") == 0 && v) {
            free(dir);
            dir = xstrdup(v);
            i++;
        } else {
            fprintf(stderr, "glovebox %s: %s \"%s\" (try --help)\n", cmd,
                    strcmp(a, "--pid") == 0 || strcmp(a, "--data-dir") == 0
                        ? "a value is needed after"
                        : "unknown option",
                    a);
            free(dir);
            return EXIT_USAGE;
        }
    }
    int sig = c->sig;
    const char *done = c->done;
    if (only) {
        free(dir);
        /* Never signal something else: SIGUSR1 would kill most programs. */
        if (!pidfile_is_server((pid_t)only)) {
            fprintf(stderr, "glovebox %s: process %ld is not a glovebox serve of yours\n", cmd,
                    only);
            return EXIT_FAILURE_RUNTIME;
        }
        if (kill((pid_t)only, sig) != 0) {
            fprintf(stderr, "glovebox %s: cannot signal %ld: %s\n", cmd, only, strerror(errno));
            return EXIT_FAILURE_RUNTIME;
        }
        printf("%s glovebox serve pid %ld\n", done, only);
        return EXIT_OK;
    }
    if (!dir)
        dir = paths_default_data_dir();
    pid_t *pids;
    int n = pidfile_scan(dir, &pids);
    int signalled = 0;
    for (int i = 0; i < n; i++) {
        if (kill(pids[i], sig) == 0) {
            printf("%s glovebox serve pid %ld\n", done, (long)pids[i]);
            signalled++;
        } else {
            fprintf(stderr, "glovebox %s: cannot signal %ld: %s\n", cmd, (long)pids[i],
                    strerror(errno));
        }
    }
    free(pids);
    if (signalled == 0)
        fprintf(stderr, "glovebox %s: no running glovebox serve found (pid files in %s)\n", cmd,
                dir);
    free(dir);
    return signalled ? EXIT_OK : EXIT_FAILURE_RUNTIME;
}

int cli_stop(int argc, char **argv)
{
    static const struct cli_signal_command stop = {
        "stop", SIGUSR1, "paused",
        "Pauses every input action of every running glovebox serve of this user at\n"
        "once (SIGUSR1): tools that change anything are refused and the ones running\n"
        "are stopped, until glovebox resume. Screens can still be read."};
    return cli_signal_servers(argc, argv, &stop);
}

int cli_resume(int argc, char **argv)
{
    static const struct cli_signal_command resume = {
        "resume", SIGUSR2, "resumed", "Lets paused glovebox servers act again (SIGUSR2)."};
    return cli_signal_servers(argc, argv, &resume);
}
