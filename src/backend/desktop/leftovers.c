#define LOG_MODULE "desktop"
#include "backend/desktop/leftovers.h"

#include "backend/desktop/internal.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Start time of pid in clock ticks since boot (/proc/pid/stat field 22), or
 * 0 when there is no such process. */
static unsigned long long start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name may hold spaces and parentheses: skip to the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    unsigned long long t = 0;
    /* After ')': state is field 3; start time is field 22. */
    if (sscanf(p + 2,
               "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
               "%*d %llu",
               &t) != 1)
        return 0;
    return t;
}

static char *dir_of(const char *data_dir)
{
    return xasprintf("%s/desktops", data_dir);
}

static char *record_path(const struct desktop *d)
{
    char *dir = dir_of(d->app->data_dir);
    char *path =
        xasprintf("%s/%d-%llu-%s", dir, (int)getpid(), start_time(getpid()), d->session->id);
    free(dir);
    return path;
}

void leftovers_record(const struct desktop *d)
{
    char *err = NULL;
    if (!d->app->data_dir || !app_ensure_data_dir(d->app, &err)) {
        free(err);
        return;
    }
    char *dir = dir_of(d->app->data_dir);
    mkdir(dir, 0700);
    char *path = record_path(d);
    char *tmp = xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f) {
        log_warn("cannot record the processes of %s in %s: %s", d->session->id, dir,
                 strerror(errno));
    } else {
        for (int i = 0; i < d->n_children; i++)
            if (d->children[i].alive)
                fprintf(f, "%d %llu\n", (int)d->children[i].pid, start_time(d->children[i].pid));
        /* Written whole, then renamed: a sweep never reads half a record. */
        if (fclose(f) != 0 || rename(tmp, path) != 0)
            unlink(tmp);
    }
    free(tmp);
    free(path);
    free(dir);
}

void leftovers_forget(const struct desktop *d)
{
    if (!d->app->data_dir)
        return;
    char *path = record_path(d);
    unlink(path);
    free(path);
}

/* End the groups a record names; returns how many. */
static int end_groups(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int pid, n = 0;
    unsigned long long t;
    while (fscanf(f, "%d %llu", &pid, &t) == 2) {
        if (pid > 1 && t && start_time(pid) == t) {
            /* Still the process glovebox started: its group goes. */
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            n++;
        }
    }
    fclose(f);
    return n;
}

int leftovers_sweep(const char *data_dir)
{
    if (!data_dir)
        return 0;
    char *dir = dir_of(data_dir);
    DIR *dh = opendir(dir);
    int ended = 0;
    struct dirent *e;
    while (dh && (e = readdir(dh))) {
        int owner;
        unsigned long long owner_start;
        if (sscanf(e->d_name, "%d-%llu-", &owner, &owner_start) != 2)
            continue;
        /* Its glovebox still runs: not a leftover. */
        if (owner == getpid() || (owner > 1 && start_time(owner) == owner_start))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        int n = end_groups(path);
        if (n)
            log_info("ended %d process group(s) left by glovebox pid %d (%s)", n, owner, e->d_name);
        ended += n;
        unlink(path);
        free(path);
    }
    if (dh)
        closedir(dh);
    free(dir);
    return ended;
}
