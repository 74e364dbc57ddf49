/* upload_file: a file of this machine into a page's file input. The gate
 * has already checked the path against rules.upload_file.paths; here the
 * ref's element must be an <input type=file>, and the browser must run on
 * this machine (glovebox's own Chromium, or an endpoint on loopback), since
 * WebDriver hands it the path and the browser reads the file itself. */
#include "backend/webdriver/internal.h"

#include "core/args.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The W3C name of an element reference in JSON. */
#define ELEMENT_KEY "element-6066-11e4-a52e-4f735466cecf"

/* arguments[0]: a ref. The element itself (a WebDriver element reference),
 * or a string saying why not. */
static const char INPUT_SCRIPT[] =
    "var m=window.__glovebox_refs,e=m&&m.get(arguments[0]);"
    "if(!e||!e.isConnected)return 'gone';"
    "if(e.tagName!=='INPUT'||e.type!=='file')return 'not a file input';return e;";

struct upload {
    struct backend_call *bc;
    char *path; /* resolved */
    long long bytes;
};

static void upload_free(struct upload *u)
{
    free(u->path);
    free(u);
}

static void sent(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    (void)value;
    struct upload *u = ud;
    const char *ref = args_string(u->bc->args, "ref", "");
    if (err)
        backend_call_fail_code(u->bc, code, "cannot upload the file: %s", err);
    else
        backend_call_done(u->bc,
                          json_pack("{s:s, s:s, s:s, s:I}", "session", u->bc->session->id, "ref",
                                    ref, "path", u->path, "bytes", (json_int_t)u->bytes),
                          "put %s (%lld bytes) into the file input %s", u->path, u->bytes, ref);
    upload_free(u);
}

static void found(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct upload *u = ud;
    const char *ref = args_string(u->bc->args, "ref", "");
    const char *id = json_string_value(json_object_get(value, ELEMENT_KEY));
    if (err) {
        backend_call_fail_code(u->bc, code, "cannot upload the file: %s", err);
    } else if (json_is_string(value)) {
        backend_call_fail_code(
            u->bc,
            strcmp(json_string_value(value), "gone") ? ERROR_INVALID_ARGUMENT : ERROR_NOT_FOUND,
            "ref %s is %s%s", ref, json_string_value(value),
            strcmp(json_string_value(value), "gone") ? " (upload_file needs an <input type=file>)"
                                                     : ": take a new snapshot");
    } else if (!id) {
        backend_call_fail(u->bc, "cannot upload the file: the endpoint sent no element for %s",
                          ref);
    } else {
        char *path = xasprintf("/element/%s/value", id);
        /* Files are named by their path on the browser's machine: this one. */
        wd_command(w, "POST", path, json_pack("{s:s}", "text", u->path), sent, u);
        free(path);
        return;
    }
    upload_free(u);
}

/* Whether the browser runs here: glovebox's own, or an endpoint on
 * loopback. */
static bool local(const struct wd *w)
{
    if (w->driver_pid)
        return true;
    const char *s = w->shown;
    return !strncmp(s, "http://127.", 11) || !strncmp(s, "http://localhost", 16) ||
           !strncmp(s, "http://[::1]", 12);
}

void wd_upload_file_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    if (w->native || !local(w)) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED, "cannot upload a file: %s",
                               w->native ? "native apps have no file inputs"
                                         : "the browser runs on another machine (uploads to "
                                           "remote endpoints are not built yet)");
        return;
    }
    const char *given = args_string(bc->args, "path", "");
    char *real = realpath(given, NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "argument \"path\": \"%.200s\" is not a file", given);
        free(real);
        return;
    }
    struct upload *u = xcalloc(1, sizeof *u);
    u->bc = bc;
    u->path = real;
    u->bytes = (long long)st.st_size;
    wd_command(
        w, "POST", "/execute/sync",
        json_pack("{s:s, s:[s]}", "script", INPUT_SCRIPT, "args", args_string(bc->args, "ref", "")),
        found, u);
}
