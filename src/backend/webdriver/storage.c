/* storage_save and storage_load: a login that survives sessions. save
 * writes the current page's cookies (GET …/cookie: what the page's origin
 * sees) and its origin's localStorage to <data dir>/storage/NAME.json
 * (mode 0600, written whole or not at all: a temporary file renamed); load
 * puts them back into a page of the same origin, which WebDriver requires
 * for cookies. Results say how many, never the values. */
#include "backend/webdriver/internal.h"

#include "core/app.h"
#include "core/args.h"
#include "core/paths.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char PAGE_SCRIPT[] =
    "var s=[];try{for(var i=0;i<localStorage.length;i++){var k=localStorage.key(i);"
    "s.push([k,localStorage.getItem(k)]);}}catch(e){}"
    "return [location.origin,location.href,s];";

/* arguments[0]: [[key, value]…] */
static const char RESTORE_SCRIPT[] =
    "var s=arguments[0];for(var i=0;i<s.length;i++)localStorage.setItem(s[i][0],s[i][1]);"
    "return s.length;";

struct job {
    struct backend_call *bc;
    char *path;
    json_t *doc;  /* what is saved or loaded */
    size_t at;    /* the cookie being added */
    size_t added; /* cookies the browser took */
};

static void job_free(struct job *j)
{
    free(j->path);
    json_decref(j->doc);
    free(j);
}

static bool name_ok(struct backend_call *bc, const char *name)
{
    size_t n = strlen(name);
    bool ok = n > 0 && n <= 64;
    for (size_t i = 0; ok && i < n; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
             (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-';
    if (!ok)
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "argument \"name\": expected 1-64 letters, digits, _ or -, got "
                               "\"%.80s\"",
                               name);
    return ok;
}

/* <data dir>/storage/NAME.json, the folder made; NULL after answering bc. */
static char *file_of(struct backend_call *bc, bool make)
{
    const char *name = args_string(bc->args, "name", "");
    if (!name_ok(bc, name))
        return NULL;
    char *err = NULL;
    if (!app_ensure_data_dir(bc->app, &err)) {
        backend_call_fail(bc, "cannot reach the data folder: %s", err);
        free(err);
        return NULL;
    }
    char *dir = xasprintf("%s/storage", bc->app->data_dir);
    if (make && !paths_mkdir_p(dir, &err)) {
        backend_call_fail(bc, "cannot make %s: %s", dir, err);
        free(err);
        free(dir);
        return NULL;
    }
    char *path = xasprintf("%s/%s.json", dir, name);
    free(dir);
    return path;
}

/* ---- save ---- */

static bool write_private(const char *path, const json_t *doc, char **err)
{
    char *tmp = xasprintf("%s.tmp-%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    bool ok = f && json_dumpf(doc, f, JSON_INDENT(1)) == 0;
    if (f && fclose(f) != 0)
        ok = false;
    else if (!f && fd >= 0)
        close(fd);
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        *err = xasprintf("%s: could not be written: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}

static void got_cookies(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    (void)w;
    struct job *j = ud;
    struct backend_call *bc = j->bc;
    if (err) {
        backend_call_fail_code(bc, code, "cannot save the storage: %s", err);
        job_free(j);
        return;
    }
    json_object_set(j->doc, "cookies", json_is_array(value) ? value : json_array());
    char *werr = NULL;
    if (!write_private(j->path, j->doc, &werr)) {
        backend_call_fail(bc, "cannot save the storage: %s", werr);
        free(werr);
        job_free(j);
        return;
    }
    size_t cookies = json_array_size(json_object_get(j->doc, "cookies"));
    size_t items = json_array_size(json_object_get(j->doc, "local_storage"));
    const char *origin = json_string_value(json_object_get(j->doc, "origin"));
    backend_call_done(bc,
                      json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "session", bc->session->id,
                                "name", args_string(bc->args, "name", ""), "path", j->path,
                                "origin", origin, "cookies", (json_int_t)cookies, "local_storage",
                                (json_int_t)items),
                      "saved %zu cookie%s and %zu localStorage item%s of %s to %s", cookies,
                      cookies == 1 ? "" : "s", items, items == 1 ? "" : "s", origin, j->path);
    job_free(j);
}

static void got_page(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct job *j = ud;
    if (err || !json_is_string(json_array_get(value, 0))) {
        backend_call_fail_code(j->bc, err ? code : ERROR_TOOL_FAILED, "cannot save the storage: %s",
                               err ? err : "no page is open");
        job_free(j);
        return;
    }
    const char *origin = json_string_value(json_array_get(value, 0));
    if (strncmp(origin, "http://", 7) && strncmp(origin, "https://", 8)) {
        backend_call_fail_code(j->bc, ERROR_INVALID_ARGUMENT,
                               "cannot save the storage: the page (%s) is not an http(s) page; "
                               "open_url a page of the site first",
                               origin);
        job_free(j);
        return;
    }
    j->doc = json_pack("{s:i, s:O, s:O, s:O}", "version", 1, "origin", json_array_get(value, 0),
                       "url", json_array_get(value, 1), "local_storage", json_array_get(value, 2));
    wd_command(w, "GET", "/cookie", NULL, got_cookies, j);
}

void wd_storage_save_op(struct backend_call *bc)
{
    char *path = file_of(bc, true);
    if (!path)
        return;
    struct job *j = xcalloc(1, sizeof *j);
    j->bc = bc;
    j->path = path;
    wd_command(wd_of(bc->session), "POST", "/execute/sync",
               json_pack("{s:s, s:[]}", "script", PAGE_SCRIPT, "args"), got_page, j);
}

/* ---- load ---- */

static void add_next(struct wd *w, struct job *j);

static void restored(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    (void)value;
    struct job *j = ud;
    struct backend_call *bc = j->bc;
    if (err) {
        backend_call_fail_code(bc, code, "cannot load the storage: %s", err);
        job_free(j);
        return;
    }
    size_t cookies = json_array_size(json_object_get(j->doc, "cookies"));
    size_t items = json_array_size(json_object_get(j->doc, "local_storage"));
    const char *origin = json_string_value(json_object_get(j->doc, "origin"));
    json_t *data = json_pack("{s:s, s:s, s:s, s:I, s:I}", "session", bc->session->id, "name",
                             args_string(bc->args, "name", ""), "origin", origin, "cookies",
                             (json_int_t)j->added, "local_storage", (json_int_t)items);
    if (j->added < cookies)
        json_object_set_new(data, "cookies_refused",
                            json_integer((json_int_t)(cookies - j->added)));
    backend_call_done(bc, data,
                      "loaded %zu cookie%s and %zu localStorage item%s into %s; reload the page "
                      "(open_url) for it to see them",
                      j->added, j->added == 1 ? "" : "s", items, items == 1 ? "" : "s", origin);
    job_free(j);
}

static void cookie_added(struct wd *w, void *ud, json_t *value, enum error_code code,
                         const char *err)
{
    (void)value;
    struct job *j = ud;
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED)) {
        backend_call_fail_code(j->bc, code, "cannot load the storage: %s", err);
        job_free(j);
        return;
    }
    /* A cookie the browser will not take (expired, another domain): the
     * rest still go in, and the answer counts it. */
    if (!err)
        j->added++;
    j->at++;
    add_next(w, j);
}

static void add_next(struct wd *w, struct job *j)
{
    const json_t *cookies = json_object_get(j->doc, "cookies");
    if (j->at < json_array_size(cookies)) {
        wd_command(w, "POST", "/cookie",
                   json_pack("{s:O}", "cookie", json_array_get(cookies, j->at)), cookie_added, j);
        return;
    }
    wd_command(w, "POST", "/execute/sync",
               json_pack("{s:s, s:[O]}", "script", RESTORE_SCRIPT, "args",
                         json_object_get(j->doc, "local_storage")),
               restored, j);
}

static void origin_checked(struct wd *w, void *ud, json_t *value, enum error_code code,
                           const char *err)
{
    struct job *j = ud;
    const char *want = json_string_value(json_object_get(j->doc, "origin"));
    const char *have = json_string_value(json_array_get(value, 0));
    if (err) {
        backend_call_fail_code(j->bc, code, "cannot load the storage: %s", err);
        job_free(j);
        return;
    }
    if (!have || strcmp(have, want) != 0) {
        backend_call_fail_code(j->bc, ERROR_INVALID_ARGUMENT,
                               "cannot load the storage \"%s\": it was saved from %s, and the "
                               "page is on %s; open_url a page of %s first (WebDriver adds "
                               "cookies to the page's own site only)",
                               args_string(j->bc->args, "name", ""), want, have ? have : "nothing",
                               want);
        job_free(j);
        return;
    }
    add_next(w, j);
}

void wd_storage_load_op(struct backend_call *bc)
{
    char *path = file_of(bc, false);
    if (!path)
        return;
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        if (access(path, F_OK) != 0)
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "no saved storage \"%s\" (%s); storage_save makes one",
                                   args_string(bc->args, "name", ""), path);
        else
            backend_call_fail(bc, "cannot read %s: %s (line %d)", path, jerr.text, jerr.line);
        free(path);
        return;
    }
    if (!json_is_string(json_object_get(doc, "origin")) ||
        !json_is_array(json_object_get(doc, "cookies")) ||
        !json_is_array(json_object_get(doc, "local_storage"))) {
        backend_call_fail(bc, "cannot read %s: not a file storage_save wrote", path);
        json_decref(doc);
        free(path);
        return;
    }
    struct job *j = xcalloc(1, sizeof *j);
    j->bc = bc;
    j->path = path;
    j->doc = doc;
    wd_command(wd_of(bc->session), "POST", "/execute/sync",
               json_pack("{s:s, s:[]}", "script", PAGE_SCRIPT, "args"), origin_checked, j);
}
