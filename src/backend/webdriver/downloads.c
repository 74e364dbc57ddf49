/* Files the pages of glovebox's own Chromium download: saved in
 * <data dir>/downloads/<session id>/ (the module points Chromium there),
 * listed by the downloads tool and read as resources
 * glovebox://download/{session}/{name}. They live as long as the session
 * is known (session_list shows it); its folder goes when the ended session
 * is forgotten, or the server stops. */
#include "backend/backend.h"
#include "backend/webdriver/webdriver.h"

#include "core/app.h"
#include "core/args.h"
#include "core/paths.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "downloads.schema.h"
#include "mcp/resources.h"
#include "mcp/tool.h"
#include "session/session.h"
#include "tools/screen_call.h"
#include "tools/screen_resources.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define DOWNLOAD_PREFIX "glovebox://download/"
/* Chromium's name for a file still arriving: <name>.crdownload. */
#define PARTIAL_SUFFIX ".crdownload"
/* Entries one listing shows; the rest are counted. */
#define MAX_LISTED 1000

char *webdriver_downloads_dir(struct app *app, const char *session_id)
{
    return xasprintf("%s/downloads/%s", app->data_dir, session_id);
}

void webdriver_downloads_remove(struct app *app, const char *session_id)
{
    char *dir = webdriver_downloads_dir(app, session_id);
    paths_remove_tree(dir);
    free(dir);
}

char *webdriver_downloads_prepare(struct app *app, const char *session_id, char **err)
{
    if (!app_ensure_data_dir(app, err))
        return NULL;
    char *parent = xasprintf("%s/downloads", app->data_dir);
    if (mkdir(parent, 0700) != 0 && errno != EEXIST) {
        *err = xasprintf("cannot make %s: %s", parent, strerror(errno));
        free(parent);
        return NULL;
    }
    free(parent);
    /* Session ids start again with each server: a folder of this id is
     * an earlier server's. */
    webdriver_downloads_remove(app, session_id);
    char *dir = webdriver_downloads_dir(app, session_id);
    if (mkdir(dir, 0700) != 0) {
        *err = xasprintf("cannot make %s: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

/* A name Chromium gave a file: one path component, not hidden. */
static bool plain_name(const char *name)
{
    return *name && name[0] != '.' && !strchr(name, '/');
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *mime_of(const char *name)
{
    static const char *const types[][2] = {
        {".txt", "text/plain"},
        {".csv", "text/csv"},
        {".html", "text/html"},
        {".json", "application/json"},
        {".pdf", "application/pdf"},
        {".zip", "application/zip"},
        {".png", "image/png"},
        {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},
        {".gif", "image/gif"},
        {".webp", "image/webp"},
        {".svg", "image/svg+xml"},
        {".xml", "application/xml"},
        {".gz", "application/gzip"},
        {".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcasecmp(dot, types[i][0]) == 0)
            return types[i][1];
    return "application/octet-stream";
}

/* name percent-encoded for a URI (all but RFC 3986's unreserved). */
static char *uri_of(const char *session_id, const char *name)
{
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, DOWNLOAD_PREFIX "%s/", session_id);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~", *p))
            strbuf_putc(&sb, (char)*p);
        else
            strbuf_printf(&sb, "%%%02X", *p);
    }
    return strbuf_steal(&sb);
}

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The percent-decoded s; NULL when it is not well formed or holds NUL. */
static char *uri_decode(const char *s)
{
    char *out = xmalloc(strlen(s) + 1), *o = out;
    for (; *s; s++) {
        if (*s != '%') {
            *o++ = *s;
            continue;
        }
        int hi = hex(s[1]), lo = hi < 0 ? -1 : hex(s[2]);
        if (lo < 0 || (hi == 0 && lo == 0)) {
            free(out);
            return NULL;
        }
        *o++ = (char)(hi * 16 + lo);
        s += 2;
    }
    *o = '\0';
    return out;
}

/* The files of a session's folder: [{name, size, complete, uri?, path}],
 * the complete ones as resource links appended to links (may be NULL). */
static json_t *listing(struct app *app, const char *session_id, json_t *links, size_t *more)
{
    json_t *list = json_array();
    *more = 0;
    char *dir = webdriver_downloads_dir(app, session_id);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!plain_name(de->d_name))
            continue;
        char *path = xasprintf("%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (json_array_size(list) >= MAX_LISTED) {
            (*more)++;
            free(path);
            continue;
        }
        bool complete = !ends_with(de->d_name, PARTIAL_SUFFIX);
        char *name = complete ? xstrdup(de->d_name)
                              : xstrndup(de->d_name, strlen(de->d_name) - strlen(PARTIAL_SUFFIX));
        json_t *e = json_pack("{s:s, s:I, s:b, s:s}", "name", name, "size", (json_int_t)st.st_size,
                              "complete", complete, "path", path);
        if (complete) {
            char *uri = uri_of(session_id, name);
            json_object_set_new(e, "uri", json_string(uri));
            json_object_set_new(e, "mime_type", json_string(mime_of(name)));
            if (links)
                json_array_append_new(links, json_pack("{s:s, s:s, s:s, s:s, s:I}", "type",
                                                       "resource_link", "uri", uri, "name", name,
                                                       "mimeType", mime_of(name), "size",
                                                       (json_int_t)st.st_size));
            free(uri);
        }
        json_array_append_new(list, e);
        free(name);
        free(path);
    }
    if (d)
        closedir(d);
    free(dir);
    return list;
}

static bool is_webdriver(const struct session *s)
{
    return s->impl && strcmp(s->impl->kind, "webdriver") == 0;
}

static void handle(struct tool_call *call)
{
    char *err = NULL;
    struct session *s = screen_call_resolve(call, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return;
    }
    if (!is_webdriver(s)) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                            "downloads: not supported by %s sessions (browsers only)",
                            s->impl->kind);
        return;
    }
    struct app *app = tool_call_app(call);
    char *dir = webdriver_downloads_dir(app, s->id);
    struct stat st;
    bool saved = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    free(dir);
    if (!saved) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                            "downloads: session %s saves no downloads here: only glovebox's own "
                            "Chromium (webdriver_connect without url) saves them in the data "
                            "folder; an endpoint's browser keeps them on its own machine",
                            s->id);
        return;
    }
    json_t *content = json_array();
    json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", ""));
    size_t more;
    json_t *list = listing(app, s->id, content, &more);
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%zu download%s", json_array_size(list),
                  json_array_size(list) == 1 ? "" : "s");
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        bool complete = json_is_true(json_object_get(e, "complete"));
        strbuf_printf(&sb, "\n%s (%lld bytes%s)%s%s", json_string_value(json_object_get(e, "name")),
                      (long long)json_integer_value(json_object_get(e, "size")),
                      complete ? "" : ", still arriving", complete ? " " : "",
                      complete ? json_string_value(json_object_get(e, "uri")) : "");
    }
    json_object_set_new(json_array_get(content, 0), "text", json_string(sb.data ? sb.data : ""));
    strbuf_finish(&sb);
    json_t *out = json_pack("{s:s, s:I, s:o}", "session", s->id, "count",
                            (json_int_t)json_array_size(list), "downloads", list);
    if (more)
        json_object_set_new(out, "skipped", json_integer((json_int_t)more));
    tool_call_done_content(call, content, out);
}

const struct tool tool_downloads = {
    .name = "downloads",
    .title = "Files the browser downloaded",
    .description = "The files pages of a browser session glovebox started have downloaded (saved "
                   "in the data folder): name, size, whether complete, and a "
                   "glovebox://download/ resource link to read each.",
    .input_schema = tool_downloads_input_schema,
    .output_schema = tool_downloads_output_schema,
    .annotations = {.read_only = true, .destructive = false, .open_world = false},
    .handler = handle,
    .group = "webdriver",
};

/* ---- glovebox://download/{session}/{name} ---- */

static void provider_list(struct app *app, const char *owner, json_t *out)
{
    json_t *sessions = session_registry_list(app->sessions, owner, true);
    size_t i;
    json_t *s;
    json_array_foreach(sessions, i, s)
    {
        const char *kind = json_string_value(json_object_get(s, "kind"));
        if (!kind || strcmp(kind, "webdriver") != 0)
            continue;
        const char *id = json_string_value(json_object_get(s, "id"));
        size_t more;
        json_t *links = json_array();
        json_decref(listing(app, id, links, &more));
        size_t k;
        json_t *l;
        json_array_foreach(links, k, l)
        {
            json_object_del(l, "type");
            json_array_append(out, l);
        }
        json_decref(links);
    }
    json_decref(sessions);
}

static void provider_read(struct resource_read *r, const char *uri)
{
    const char *rest = uri + strlen(DOWNLOAD_PREFIX);
    const char *slash = strchr(rest, '/');
    char *name = slash ? uri_decode(slash + 1) : NULL;
    if (!name || !plain_name(name) || ends_with(name, PARTIAL_SUFFIX)) {
        resource_read_not_found(r,
                                "Resource not found: %s (expected " DOWNLOAD_PREFIX
                                "{session}/{name} of a file the downloads tool lists)",
                                uri);
        free(name);
        return;
    }
    char *id = xstrndup(rest, (size_t)(slash - rest));
    struct app *app = resource_read_app(r);
    char *err = NULL;
    struct session *s = session_resolve(app->sessions, resource_read_owner(r), id, &err);
    free(id);
    if (!s || !is_webdriver(s)) {
        resource_read_not_found(r, "Resource not found: %s", s ? uri : err);
        free(err);
        free(name);
        return;
    }
    char *dir = webdriver_downloads_dir(app, s->id);
    char *path = xasprintf("%s/%s", dir, name);
    free(dir);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        resource_read_not_found(r, "Resource not found: %s (session %s downloaded no %s)", uri,
                                s->id, name);
    else
        screen_resources_read_file(r, uri, name, path, mime_of(name));
    free(path);
    free(name);
}

/* Reading a download shows what the downloads tool shows. */
static const struct tool *provider_permission(const char *uri, json_t *args)
{
    const char *rest = uri + strlen(DOWNLOAD_PREFIX);
    const char *slash = strchr(rest, '/');
    json_object_set_new(args, "session",
                        json_stringn(rest, slash ? (size_t)(slash - rest) : strlen(rest)));
    return &tool_downloads;
}

const struct resource_provider webdriver_download_provider = {
    .uri_template = DOWNLOAD_PREFIX "{session}/{name}",
    .prefix = DOWNLOAD_PREFIX,
    .name = "download",
    .description = "A file a page of a browser session glovebox started downloaded (the "
                   "downloads tool lists them)",
    .mime_type = "application/octet-stream",
    .list = provider_list,
    .read = provider_read,
    .permission = provider_permission,
};
