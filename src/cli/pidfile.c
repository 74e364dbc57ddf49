#include "cli/pidfile.h"

#include "core/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *pidfile_write(const char *data_dir, char **err)
{
    char *path = xasprintf("%s/serve-%ld.pid", data_dir, (long)getpid());
    char *tmp = xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        *err = xasprintf("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        free(path);
        return NULL;
    }
    free(tmp);
    return path;
}

void pidfile_remove(char *path)
{
    if (path)
        unlink(path);
    free(path);
}

bool pidfile_is_server(pid_t pid)
{
    if (pid <= 1)
        return false;
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/%ld", (long)pid);
    if (stat(proc, &st) != 0 || st.st_uid != getuid())
        return false;
    /* The program must be glovebox (glovebox-testing too; " (deleted)"
     * after a rebuild), and its first argument "serve". */
    char exe[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/%ld/exe", (long)pid);
    ssize_t n = readlink(proc, exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    if (strncmp(base, "glovebox", 8) != 0)
        return false;
    snprintf(proc, sizeof proc, "/proc/%ld/cmdline", (long)pid);
    char cmd[256];
    int fd = open(proc, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t len = read(fd, cmd, sizeof cmd - 1);
    close(fd);
    if (len <= 0)
        return false;
    cmd[len] = '\0';
    size_t first = strlen(cmd);
    return (ssize_t)first + 1 < len && strcmp(cmd + first + 1, "serve") == 0;
}

int pidfile_scan(const char *data_dir, pid_t **pids)
{
    *pids = NULL;
    DIR *d = opendir(data_dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        char tail[8];
        if (sscanf(e->d_name, "serve-%ld.pi%1s", &pid, tail) != 2 || strcmp(tail, "d") != 0)
            continue;
        char expect[64];
        snprintf(expect, sizeof expect, "serve-%ld.pid", pid);
        if (strcmp(expect, e->d_name) != 0)
            continue;
        char *path = xasprintf("%s/%s", data_dir, e->d_name);
        if (pidfile_is_server((pid_t)pid)) {
            *pids = xrealloc(*pids, (size_t)(n + 1) * sizeof **pids);
            (*pids)[n++] = (pid_t)pid;
        } else {
            unlink(path); /* stale: the server is gone */
        }
        free(path);
    }
    closedir(d);
    return n;
}
