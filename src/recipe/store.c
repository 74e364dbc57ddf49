/* Recipe files on disk: NAME.recipe.json in the project's directory, then
 * the user's. Files are small and read whole (RECIPE_MAX_BYTES); a save
 * writes a temporary file and renames it over the old one, so a reader
 * never sees half a recipe. */
#include "core/paths.h"
#include "core/xmalloc.h"
#include "recipe/recipe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUFFIX ".recipe.json"

char *recipe_dir(enum recipe_where where)
{
    if (where == RECIPE_PROJECT)
        return xstrdup(".glovebox/recipes");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/')
        return xasprintf("%s/glovebox/recipes", xdg);
    const char *home = getenv("HOME");
    return home && home[0] == '/' ? xasprintf("%s/.config/glovebox/recipes", home) : NULL;
}

static const char *where_name(enum recipe_where w)
{
    return w == RECIPE_PROJECT ? "project" : "user";
}

/* Files parsed lately, by path and bytes: a recipe run in a loop is read
 * on every run, and parsing and checking it again was a tenth of a
 * ten-step run. The bytes are compared whole, so an edit is always seen. */
#define PARSED_MAX       8
#define PARSED_MAX_BYTES (64 * 1024)

static struct parsed {
    char *path, *bytes;
    size_t len;
    json_t *doc; /* shared with callers, never changed */
    unsigned used;
} parsed[PARSED_MAX];

static json_t *parsed_find(const char *path, const char *bytes, size_t len)
{
    static unsigned clock;
    for (int i = 0; i < PARSED_MAX; i++) {
        struct parsed *p = &parsed[i];
        if (p->doc && p->len == len && strcmp(p->path, path) == 0 &&
            memcmp(p->bytes, bytes, len) == 0) {
            p->used = ++clock;
            return json_incref(p->doc);
        }
    }
    return NULL;
}

static void parsed_keep(const char *path, const char *bytes, size_t len, json_t *doc)
{
    if (len > PARSED_MAX_BYTES)
        return;
    struct parsed *p = &parsed[0];
    for (int i = 1; i < PARSED_MAX; i++)
        if (!parsed[i].doc || (p->doc && parsed[i].used < p->used))
            p = &parsed[i];
    free(p->path);
    free(p->bytes);
    json_decref(p->doc);
    p->path = xstrdup(path);
    p->bytes = xmalloc(len + 1);
    memcpy(p->bytes, bytes, len);
    p->len = len;
    p->doc = json_incref(doc);
}

/* The file's contents, parsed and checked, with its name: NULL with *err. */
static json_t *read_recipe(const char *path, const char *name, char **err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        *err = xasprintf("%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > RECIPE_MAX_BYTES) {
        *err = xasprintf("%s: not a regular file of at most %d bytes", path, RECIPE_MAX_BYTES);
        close(fd);
        return NULL;
    }
    char *buf = xmalloc((size_t)st.st_size + 1);
    ssize_t n = read(fd, buf, (size_t)st.st_size);
    close(fd);
    if (n != st.st_size) {
        *err = xasprintf("%s: could not be read", path);
        free(buf);
        return NULL;
    }
    json_t *doc = parsed_find(path, buf, (size_t)n);
    if (doc) {
        free(buf);
        return doc;
    }
    json_error_t je;
    doc = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        free(buf);
        *err =
            xasprintf("%s: not JSON (line %d, column %d: %s)", path, je.line, je.column, je.text);
        return NULL;
    }
    char *why = NULL;
    if (!recipe_check(doc, name, &why)) {
        *err = xasprintf("%s: %s", path, why);
        free(why);
        free(buf);
        json_decref(doc);
        return NULL;
    }
    if (!json_object_get(doc, "name"))
        json_object_set_new(doc, "name", json_string(name));
    parsed_keep(path, buf, (size_t)n, doc);
    free(buf);
    return doc;
}

static char *file_path(enum recipe_where w, const char *name)
{
    char *dir = recipe_dir(w);
    char *path = dir ? xasprintf("%s/%s" SUFFIX, dir, name) : NULL;
    free(dir);
    return path;
}

static int by_name(const void *a, const void *b)
{
    const char *x = json_string_value(json_object_get(*(json_t *const *)a, "name"));
    const char *y = json_string_value(json_object_get(*(json_t *const *)b, "name"));
    return strcmp(x, y);
}

static void list_dir(enum recipe_where w, json_t *seen, json_t *out)
{
    char *dir = recipe_dir(w);
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(SUFFIX);
        if (len <= sl || strcmp(e->d_name + len - sl, SUFFIX) != 0)
            continue;
        char *name = xstrndup(e->d_name, len - sl);
        if (json_object_get(seen, name)) {
            free(name);
            continue;
        }
        json_object_set_new(seen, name, json_true());
        char *path = xasprintf("%s/%s", dir, e->d_name);
        json_t *item =
            json_pack("{s:s, s:s, s:s}", "name", name, "where", where_name(w), "path", path);
        char *err = NULL;
        json_t *doc =
            recipe_name_valid(name, "file name", &err) ? read_recipe(path, name, &err) : NULL;
        if (doc) {
            const json_t *desc = json_object_get(doc, "description");
            json_object_set_new(item, "description",
                                json_string(desc ? json_string_value(desc) : ""));
            json_t *params = json_object_get(doc, "params");
            json_object_set_new(item, "params", params ? json_incref(params) : json_object());
            json_object_set_new(
                item, "steps",
                json_integer((json_int_t)json_array_size(json_object_get(doc, "steps"))));
            json_decref(doc);
        } else {
            json_object_set_new(item, "error", json_string(err));
            free(err);
        }
        json_array_append_new(out, item);
        free(path);
        free(name);
    }
    if (d)
        closedir(d);
    free(dir);
}

json_t *recipe_list_all(void)
{
    json_t *seen = json_object(), *out = json_array();
    list_dir(RECIPE_PROJECT, seen, out);
    list_dir(RECIPE_USER, seen, out);
    json_decref(seen);
    size_t n = json_array_size(out);
    json_t **items = xcalloc(n + 1, sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(out, i));
    qsort(items, n, sizeof *items, by_name);
    json_array_clear(out);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(out, items[i]);
    free(items);
    return out;
}

/* Which directory holds name, and its path; false when neither does. */
static bool locate(const char *name, enum recipe_where *w, char **path)
{
    for (int i = RECIPE_PROJECT; i <= RECIPE_USER; i++) {
        char *p = file_path((enum recipe_where)i, name);
        struct stat st;
        if (p && lstat(p, &st) == 0) {
            *w = (enum recipe_where)i;
            *path = p;
            return true;
        }
        free(p);
    }
    return false;
}

static bool not_found(const char *name, enum error_code *code, char **err)
{
    *code = ERROR_NOT_FOUND;
    *err = xasprintf("no recipe called \"%s\" (recipe_list shows the recipes)", name);
    return false;
}

json_t *recipe_load(const char *name, char **path, enum error_code *code, char **err)
{
    *path = NULL;
    *code = ERROR_INVALID_ARGUMENT;
    if (!recipe_name_valid(name, "name", err))
        return NULL;
    enum recipe_where w;
    if (!locate(name, &w, path)) {
        not_found(name, code, err);
        return NULL;
    }
    return read_recipe(*path, name, err);
}

bool recipe_store(const char *name, const json_t *doc, bool replace, char **path,
                  enum error_code *code, char **err)
{
    *path = NULL;
    *code = ERROR_INVALID_ARGUMENT;
    if (!recipe_name_valid(name, "name", err))
        return false;
    enum recipe_where w;
    if (locate(name, &w, path)) {
        if (!replace) {
            *err = xasprintf("a recipe called \"%s\" exists (%s); pass replace: true to "
                             "overwrite it",
                             name, *path);
            return false;
        }
    } else {
        struct stat st;
        w = stat(".glovebox", &st) == 0 && S_ISDIR(st.st_mode) ? RECIPE_PROJECT : RECIPE_USER;
        *path = file_path(w, name);
    }
    char *dir = recipe_dir(w);
    *code = ERROR_TOOL_FAILED;
    if (!dir || !*path) {
        free(dir);
        *err = xstrdup("no directory for recipes: set XDG_CONFIG_HOME or HOME, or create "
                       "./.glovebox");
        return false;
    }
    bool ok = paths_mkdir_p(dir, err);
    free(dir);
    if (!ok)
        return false;
    char *tmp = xasprintf("%s.tmp-%d", *path, (int)getpid());
    FILE *f = fopen(tmp, "wxe");
    ok =
        f && json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && rename(tmp, *path) != 0)
        ok = false;
    if (!ok) {
        *err = xasprintf("%s: could not be written: %s", *path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}

bool recipe_remove(const char *name, char **path, enum error_code *code, char **err)
{
    *path = NULL;
    *code = ERROR_INVALID_ARGUMENT;
    if (!recipe_name_valid(name, "name", err))
        return false;
    enum recipe_where w;
    if (!locate(name, &w, path))
        return not_found(name, code, err);
    if (unlink(*path) != 0) {
        *code = ERROR_TOOL_FAILED;
        *err = xasprintf("%s: could not be removed: %s", *path, strerror(errno));
        return false;
    }
    return true;
}
