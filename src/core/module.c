#define LOG_MODULE "module"
#include "core/module.h"

#include "core/log.h"
#include "core/xmalloc.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef GLOVEBOX_MODULE_DIR_DEFAULT
#define GLOVEBOX_MODULE_DIR_DEFAULT "/usr/local/lib/glovebox"
#endif

#define MAX_MODULES 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct module_info *loaded[MAX_MODULES]; /* under lock */
static int n_loaded;

static const struct module_info *find_loaded(const char *name)
{
    for (int i = 0; i < n_loaded; i++)
        if (strcmp(loaded[i]->name, name) == 0)
            return loaded[i];
    return NULL;
}

/* The directory the running executable is in, or NULL. */
static char *exe_dir(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return NULL;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    return xstrdup(path);
}

/* Checks what a handle exports; false with *err. */
static bool check_info(const struct module_info *info, const char *name, const char *file,
                       char **err)
{
    if (info->abi != MODULE_ABI || !info->name || strcmp(info->name, name) != 0 || !info->api) {
        *err = xasprintf("%s is not a glovebox %s module of this version (ABI %u, expected %u); "
                         "reinstall glovebox",
                         file, name, info->abi, MODULE_ABI);
        return false;
    }
    return true;
}

/* dlopen dir/glovebox-<name>.so; NULL with *err (a message naming the file). */
static const struct module_info *open_in(const char *dir, const char *name, const char *symbol,
                                         char **err)
{
    char *file = xasprintf("%s/glovebox-%s.so", dir, name);
    const struct module_info *info = NULL;
    if (access(file, F_OK) != 0) {
        *err = xasprintf("%s: not found", file);
        free(file);
        return NULL;
    }
    /* RTLD_NOW: a module missing a symbol fails here with a reason, not at
     * some later call. RTLD_LOCAL: its libraries stay its own. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!h) {
        const char *why = dlerror();
        *err = xasprintf("cannot load %s: %s", file, why ? why : "unknown reason");
    } else if (!(info = dlsym(h, symbol))) {
        *err = xasprintf("%s does not export %s", file, symbol);
        dlclose(h);
    } else if (!check_info(info, name, file, err)) {
        info = NULL;
        dlclose(h);
    } else {
        log_info("loaded %s in %.1f ms", file,
                 (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    free(file);
    return info;
}

/* Where modules are looked for, in order (NULL entries skipped; the caller
 * frees both): $GLOVEBOX_MODULE_DIR alone, else the executable's directory
 * and then the installed module directory. */
static void search_dirs(char *dirs[2])
{
    const char *env = getenv("GLOVEBOX_MODULE_DIR");
    dirs[0] = dirs[1] = NULL;
    if (env && *env) {
        dirs[0] = xstrdup(env);
    } else {
        dirs[0] = exe_dir();
        dirs[1] = xstrdup(GLOVEBOX_MODULE_DIR_DEFAULT);
    }
}

bool module_installed(const char *name)
{
    char *symbol = xasprintf("glovebox_module_%s", name);
    bool found = dlsym(RTLD_DEFAULT, symbol) != NULL;
    free(symbol);
    char *dirs[2];
    search_dirs(dirs);
    for (int i = 0; i < 2; i++) {
        if (dirs[i] && !found) {
            char *file = xasprintf("%s/glovebox-%s.so", dirs[i], name);
            found = access(file, F_OK) == 0;
            free(file);
        }
        free(dirs[i]);
    }
    return found;
}

static const struct module_info *load(const char *name, char **err)
{
    char *symbol = xasprintf("glovebox_module_%s", name);
    /* Linked in (tests, fuzzers): nothing to load. */
    const struct module_info *info = dlsym(RTLD_DEFAULT, symbol);
    if (info) {
        if (!check_info(info, name, "the executable", err))
            info = NULL;
        free(symbol);
        return info;
    }
    char *dirs[2];
    search_dirs(dirs);
    char *why = NULL;
    for (int i = 0; i < 2 && !info; i++) {
        if (!dirs[i])
            continue;
        char *e = NULL;
        info = open_in(dirs[i], name, symbol, &e);
        if (!info) {
            char *joined = why ? xasprintf("%s; %s", why, e) : xstrdup(e);
            free(why);
            free(e);
            why = joined;
        }
    }
    if (!info)
        *err =
            xasprintf("the %s module is not available (%s)", name, why ? why : "nowhere to look");
    free(why);
    free(dirs[0]);
    free(dirs[1]);
    free(symbol);
    return info;
}

const void *module_get(const char *name, char **err)
{
    pthread_mutex_lock(&lock);
    const struct module_info *info = find_loaded(name);
    if (!info) {
        if (n_loaded == MAX_MODULES) {
            *err = xasprintf("too many modules loaded to load %s", name);
        } else if ((info = load(name, err))) {
            loaded[n_loaded++] = info;
        }
    }
    pthread_mutex_unlock(&lock);
    return info ? info->api : NULL;
}

bool module_loaded(const char *name)
{
    pthread_mutex_lock(&lock);
    bool yes = find_loaded(name) != NULL;
    pthread_mutex_unlock(&lock);
    return yes;
}

void module_finish_all(void)
{
    pthread_mutex_lock(&lock);
    for (int i = n_loaded - 1; i >= 0; i--)
        if (loaded[i]->finish)
            loaded[i]->finish();
    pthread_mutex_unlock(&lock);
}
