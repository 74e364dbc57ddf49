#include "core/program_path.h"

#include "core/xmalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

char *program_path_normal(const char *base, const char *path)
{
    char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", base, path);
    size_t len = strlen(joined);
    char *out = xmalloc(len + 2);
    size_t n = 0; /* out holds "/a/b" (no trailing slash) or "" for the root */
    for (const char *p = joined; *p;) {
        while (*p == '/')
            p++;
        size_t k = strcspn(p, "/");
        if (k == 0)
            break;
        if (k == 1 && p[0] == '.') {
            /* nothing */
        } else if (k == 2 && p[0] == '.' && p[1] == '.') {
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--; /* the slash before the dropped component */
        } else {
            out[n++] = '/';
            memcpy(out + n, p, k);
            n += k;
        }
        p += k;
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    free(joined);
    return out;
}

static char *current_dir(void)
{
    char *here = getcwd(NULL, 0);
    return here ? here : xstrdup("/");
}

static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *program_path_resolve(const char *program, const char *cwd, const char *path, char **err)
{
    if (!program || !program[0]) {
        *err = xstrdup("empty command");
        return NULL;
    }
    char *here = current_dir();
    char *base = cwd ? program_path_normal(here, cwd) : xstrdup(here);
    free(here);
    if (strchr(program, '/')) {
        char *full = program_path_normal(base, program);
        free(base);
        return full;
    }
    if (!path)
        path = getenv("PATH");
    if (!path)
        path = DEFAULT_PATH;
    char *found = NULL;
    for (const char *p = path; !found;) {
        size_t k = strcspn(p, ":");
        char *dir = xasprintf("%.*s", (int)k, p);
        char *full = program_path_normal(base, *dir ? dir : ".");
        char *candidate = xasprintf("%s%s%s", full, strcmp(full, "/") ? "/" : "", program);
        free(full);
        free(dir);
        if (executable_file(candidate))
            found = candidate;
        else
            free(candidate);
        if (!p[k])
            break;
        p += k + 1;
    }
    free(base);
    if (!found)
        *err =
            xasprintf("cannot run \"%.200s\": %s (not found in PATH)", program, strerror(ENOENT));
    return found;
}
