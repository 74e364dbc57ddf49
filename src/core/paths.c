#include "core/paths.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *paths_default_data_dir(void)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && xdg[0] == '/')
        return xasprintf("%s/glovebox", xdg);
    const char *home = getenv("HOME");
    if (home && home[0] == '/')
        return xasprintf("%s/.local/share/glovebox", home);
    return xasprintf("/tmp/glovebox-%u", (unsigned)getuid());
}

bool paths_mkdir_p(const char *path, char **err)
{
    char *copy = xstrdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0700) != 0 && errno != EEXIST) {
            *err = xasprintf("cannot create %s: %s", copy, strerror(errno));
            free(copy);
            return false;
        }
        *p = '/';
    }
    free(copy);
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        *err = xasprintf("cannot create %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void paths_remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
