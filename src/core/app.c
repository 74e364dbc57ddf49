#include "core/app.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

uint64_t app_uptime_ms(const struct app *app)
{
    return uv_now(app->loop) - app->started_ms;
}

static bool mkdir_p(const char *path, char **err)
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

bool app_ensure_data_dir(struct app *app, char **err)
{
    return mkdir_p(app->data_dir, err);
}
