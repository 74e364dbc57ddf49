/* The index of finished recordings and the folder they live in. */
#define LOG_MODULE "recordings"
#include "record/recordings.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temporary file older than this belongs to nobody any more (a writer
 * killed mid-way); younger ones may be another server's, still writing. */
#define STALE_TMP_S 3600

static struct recording_info *list;
static size_t count, cap;
static unsigned next_id = 1;
static bool scanned;

static const struct {
    const char *name, *mime;
} formats[] = {
    [REC_GIF] = {"gif", "image/gif"},
    [REC_WEBP] = {"webp", "image/webp"},
    [REC_WEBM] = {"webm", "video/webm"},
};

bool rec_format_parse(const char *name, enum rec_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(name, formats[i].name) == 0) {
            *out = (enum rec_format)i;
            return true;
        }
    return false;
}

const char *rec_format_name(enum rec_format f)
{
    return formats[f].name;
}

const char *rec_format_mime(enum rec_format f)
{
    return formats[f].mime;
}

static uint64_t env_u64(const char *name, uint64_t fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end) {
        log_warn("%s=\"%s\" is not a whole number; using %llu", name, v,
                 (unsigned long long)fallback);
        return fallback;
    }
    return n;
}

static void forget(const char *path)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(list[i].path, path) != 0)
            continue;
        free(list[i].path);
        free(list[i].session);
        list[i] = list[--count];
        return;
    }
}

/* "recording-N.ext" → N; 0 for other names. */
static unsigned id_number(const char *name)
{
    unsigned n = 0;
    int used = 0;
    if (sscanf(name, "recording-%u%n", &n, &used) != 1 || name[used] != '.')
        return 0;
    return n;
}

struct entry {
    char *path;
    struct timespec mtime;
    unsigned num; /* of recording-N: breaks ties between files of one instant */
    uint64_t bytes;
};

static int newest_first(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
    return (x->num < y->num) - (x->num > y->num);
}

/* Deletes what is too old or over the size budget, and stale temporary
 * files; keeps next_id above every recording seen. */
static void prune(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    uint64_t max_total = env_u64("GLOVEBOX_RECORDINGS_MAX_BYTES", RECORDINGS_DEFAULT_MAX_TOTAL);
    uint64_t max_age = env_u64("GLOVEBOX_RECORDINGS_MAX_AGE_S", RECORDINGS_DEFAULT_MAX_AGE_S);
    time_t now = time(NULL);
    struct entry *e = NULL;
    size_t n = 0, ecap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        unsigned num = id_number(de->d_name);
        bool tmp = strstr(de->d_name, ".tmp-") != NULL;
        if (!num && !tmp)
            continue;
        char *path = xasprintf("%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (tmp) {
            if (now - st.st_mtime > STALE_TMP_S && unlink(path) == 0)
                log_info("removed %s, left by a writer that did not finish", path);
            free(path);
            continue;
        }
        if (num >= next_id)
            next_id = num + 1;
        if (n == ecap) {
            ecap = ecap ? ecap * 2 : 32;
            e = xrealloc(e, ecap * sizeof *e);
        }
        e[n++] = (struct entry){path, st.st_mtim, num, (uint64_t)st.st_size};
    }
    closedir(d);
    if (n)
        qsort(e, n, sizeof *e, newest_first);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += e[i].bytes;
        const char *why = NULL;
        if (i > 0 && now - e[i].mtime.tv_sec > (time_t)max_age)
            why = "older than GLOVEBOX_RECORDINGS_MAX_AGE_S";
        else if (i > 0 && total > max_total)
            why = "over the GLOVEBOX_RECORDINGS_MAX_BYTES budget";
        if (why) {
            total -= e[i].bytes;
            if (unlink(e[i].path) == 0) {
                log_info("pruned %s (%s)", e[i].path, why);
                forget(e[i].path);
            }
        }
        free(e[i].path);
    }
    free(e);
}

char *recordings_new(struct app *app, enum rec_format format, char id[32], char **err)
{
    if (!app_ensure_data_dir(app, err))
        return NULL;
    char *dir = xasprintf("%s/recordings", app->data_dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        *err = xasprintf("cannot create %s: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    if (!scanned) {
        /* Numbers go on from those of an earlier run, so no file is
         * overwritten. */
        scanned = true;
        prune(dir);
    }
    snprintf(id, 32, "recording-%u", next_id++);
    char *path = xasprintf("%s/%s.%s", dir, id, formats[format].name);
    free(dir);
    return path;
}

void recordings_add(struct app *app, const struct recording_info *info)
{
    if (count == cap) {
        cap = cap ? cap * 2 : 16;
        list = xrealloc(list, cap * sizeof *list);
    }
    list[count] = *info;
    list[count].path = xstrdup(info->path);
    list[count].session = info->session ? xstrdup(info->session) : NULL;
    count++;
    if (app && app->data_dir) {
        char *dir = xasprintf("%s/recordings", app->data_dir);
        prune(dir);
        free(dir);
    }
}

const struct recording_info *recordings_find(const char *id)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i].id, id) == 0)
            return &list[i];
    return NULL;
}

size_t recordings_count(void)
{
    return count;
}

const struct recording_info *recordings_at(size_t i)
{
    return i < count ? &list[i] : NULL;
}

void recordings_clear(void)
{
    for (size_t i = 0; i < count; i++) {
        free(list[i].path);
        free(list[i].session);
    }
    free(list);
    list = NULL;
    count = cap = 0;
}

json_t *recordings_result(const struct recording_info *info, const char *stopped_reason)
{
    char uri[64];
    snprintf(uri, sizeof uri, "glovebox://recording/%s", info->id);
    const char *format = strrchr(info->path, '.');
    json_t *o = json_pack("{s:s?, s:s, s:i, s:I, s:s, s:I, s:s, s:s, s:s, s:b}", "session",
                          info->session, "recording", info->id, "frames", info->frames,
                          "duration_ms", (json_int_t)info->duration_ms, "path", info->path, "bytes",
                          (json_int_t)info->bytes, "uri", uri, "mime_type", info->mime, "format",
                          format ? format + 1 : "", "truncated", stopped_reason != NULL);
    json_object_set_new(o, "stopped_reason",
                        stopped_reason ? json_string(stopped_reason) : json_null());
    return o;
}
