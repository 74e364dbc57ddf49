/* Viewer links on disk (links.h). The secret itself is never written: a
 * file leaked from the data directory opens nothing. */
#include "viewer/links.h"

#include "core/paths.h"
#include "core/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const role_names[] = {"watch", "approve", "control"};

const char *view_role_name(enum view_role r)
{
    return role_names[r];
}

bool view_role_parse(const char *s, enum view_role *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, role_names[i]) == 0) {
            *out = (enum view_role)i;
            return true;
        }
    return false;
}

bool view_random_hex(char *buf, size_t n)
{
    unsigned char raw[64];
    if (n > sizeof raw || RAND_bytes(raw, (int)n) != 1)
        return false;
    for (size_t i = 0; i < n; i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return true;
}

bool view_random_secret(char *out)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char raw[33];
    if (RAND_bytes(raw, 32) != 1)
        return false;
    raw[32] = 0;
    /* 32 bytes = 256 bits: 42 full sextets and 4 bits. */
    size_t o = 0;
    for (size_t i = 0; i < 33 && o < VIEW_SECRET_LEN; i += 3) {
        uint32_t v = (uint32_t)raw[i] << 16 | (i + 1 < 33 ? (uint32_t)raw[i + 1] << 8 : 0) |
                     (i + 2 < 33 ? raw[i + 2] : 0);
        for (int k = 3; k >= 0 && o < VIEW_SECRET_LEN; k--)
            out[o++] = alphabet[(v >> (6 * k)) & 63];
    }
    out[VIEW_SECRET_LEN] = '\0';
    return true;
}

void view_sha256_hex(const char *s, size_t len, char *out)
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_Digest(s, len, md, &n, EVP_sha256(), NULL);
    for (unsigned i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

bool view_equal_ct(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    unsigned char diff = (unsigned char)(n != m);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ (i < m ? b[i] : 0));
    return diff == 0;
}

char *view_links_dir(const char *data_dir, bool create, char **err)
{
    char *dir = xasprintf("%s/viewer/links", data_dir);
    if (create) {
        if (!paths_mkdir_p(dir, err)) {
            free(dir);
            return NULL;
        }
        /* Only this user may list the links (names are ids, not secrets,
         * but revocation must not be anyone else's to do). */
        char *parent = xasprintf("%s/viewer", data_dir);
        chmod(parent, 0700);
        chmod(dir, 0700);
        free(parent);
    }
    return dir;
}

static bool valid_id(const char *id)
{
    if (strlen(id) != VIEW_ID_LEN)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

bool view_link_save(const char *data_dir, const struct view_link *l, char **err)
{
    char *dir = view_links_dir(data_dir, true, err);
    if (!dir)
        return false;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:b, s:b}", "id", l->id, "hash", l->hash,
                          "role", view_role_name(l->role), "session", l->session, "expires",
                          (json_int_t)l->expires, "once", l->once, "used", l->used);
    char *path = xasprintf("%s/%s.json", dir, l->id);
    char *tmp = xasprintf("%s/.%s.tmp", dir, l->id);
    bool ok = false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ok = json_dumpfd(o, fd, JSON_COMPACT) == 0;
        ok = close(fd) == 0 && ok;
        /* A rename: a reader sees the old file or the new one, never half. */
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    if (!ok)
        *err = xasprintf("cannot write %s: %s", path, strerror(errno));
    json_decref(o);
    free(path);
    free(tmp);
    free(dir);
    return ok;
}

bool view_link_load(const char *data_dir, const char *id, struct view_link *out)
{
    if (!valid_id(id))
        return false;
    char *path = xasprintf("%s/viewer/links/%s.json", data_dir, id);
    json_t *o = json_load_file(path, 0, NULL);
    free(path);
    if (!o)
        return false;
    const char *hash = NULL, *role = NULL, *session = NULL;
    json_int_t expires = 0;
    int once = 0, used = 0;
    bool ok =
        json_unpack(o, "{s:s, s:s, s:s, s:I, s?b, s?b}", "hash", &hash, "role", &role, "session",
                    &session, "expires", &expires, "once", &once, "used", &used) == 0 &&
        strlen(hash) == 64 && strlen(session) < sizeof out->session &&
        view_role_parse(role, &out->role);
    if (ok) {
        snprintf(out->id, sizeof out->id, "%s", id);
        memcpy(out->hash, hash, 65);
        snprintf(out->session, sizeof out->session, "%s", session);
        out->expires = expires;
        out->once = once;
        out->used = used;
    }
    json_decref(o);
    return ok;
}

bool view_link_exists(const char *data_dir, const char *id)
{
    if (!valid_id(id))
        return false;
    char *path = xasprintf("%s/viewer/links/%s.json", data_dir, id);
    struct stat st;
    bool ok = stat(path, &st) == 0;
    free(path);
    return ok;
}

int view_link_revoke(const char *data_dir, const char *id)
{
    char *dir = view_links_dir(data_dir, false, NULL);
    int n = 0;
    if (strcmp(id, "all") == 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len == VIEW_ID_LEN + 5 && strcmp(e->d_name + VIEW_ID_LEN, ".json") == 0) {
                char *path = xasprintf("%s/%s", dir, e->d_name);
                n += unlink(path) == 0;
                free(path);
            }
        }
        if (d)
            closedir(d);
    } else if (valid_id(id)) {
        char *path = xasprintf("%s/%s.json", dir, id);
        n = unlink(path) == 0;
        free(path);
    }
    free(dir);
    return n;
}

char *view_url_path(const char *data_dir, long pid)
{
    return xasprintf("%s/viewer/serve-%ld.url", data_dir, pid);
}
