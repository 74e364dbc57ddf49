/* upload_file: a file of this machine into a page's file input. The gate
 * has already checked the path against rules.upload_file.paths; here the
 * ref's element must be an <input type=file>. glovebox's own Chromium reads
 * the file itself (WebDriver hands it the path). A browser behind an
 * endpoint may run elsewhere — a grid node, a farm, a container behind a
 * loopback port — so the file is sent first (the W3C extension
 * POST /session/{id}/se/file: a zip of the file, base64, as Selenium Grid
 * takes it; chromedriver knows it as /file) and the path the endpoint
 * answers is what is typed; only a loopback endpoint without either
 * command is handed the local path.
 *
 * A ref in a cross-origin frame (f2e5): in the browser glovebox started,
 * the input is found in the frame's own DevTools session and handed the
 * file there (DOM.setFileInputFiles — what chromedriver does for a file
 * input's send-keys — without entering the frame: four DevTools calls a
 * level fewer than chromedriver's requests); a frame with no session of
 * its own, and every other endpoint, is entered by W3C frame switching
 * (frames.c), where the element is found and the path typed (a WebDriver
 * element reference lives in its frame's context only). glovebox is back
 * at the top before it answers. */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/cdp.h"
#include "backend/webdriver/internal.h"

#include "core/app.h"
#include "core/args.h"
#include "core/base64.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* The largest file sent to a remote endpoint (it travels base64 in JSON). */
#define MAX_REMOTE_UPLOAD (32ll * 1024 * 1024)

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
    char *element; /* the input's WebDriver element id, once found */
    /* Sending the file: the zip, base64 (made on the worker pool), or why
     * not; the path the endpoint gave it; whether it was sent. */
    uv_work_t work;
    char *zip_b64, *zip_err;
    bool legacy; /* /se/file was unknown: the older /file */
    char *remote_path;
    int frame;     /* the ref's cross-origin frame; 0: the top page */
    bool entered;  /* the endpoint was switched into it */
    char *session; /* its DevTools session (the owned browser) */
    /* The answer, given once back at the top: out and caption, or code
     * and msg. */
    json_t *out;
    char *caption;
    enum error_code code;
    char *msg;
};

static void upload_free(struct upload *u)
{
    free(u->path);
    free(u->element);
    free(u->zip_b64);
    free(u->zip_err);
    free(u->remote_path);
    free(u->session);
    json_decref(u->out);
    free(u->caption);
    free(u->msg);
    free(u);
}

static void answer(struct upload *u)
{
    if (u->out)
        backend_call_done(u->bc, json_incref(u->out), "%s", u->caption);
    else
        backend_call_fail_code(u->bc, u->code, "%s", u->msg);
    upload_free(u);
}

static void at_top(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w, (void)value, (void)code, (void)err;
    answer(ud);
}

/* The answer is known: back to the top first when in a frame. */
static void finish(struct upload *u)
{
    if (u->entered)
        wd_command_quiet(wd_of(u->bc->session), "POST", "/frame", json_pack("{s:n}", "id"), at_top,
                         u);
    else
        answer(u);
}

static void fail(struct upload *u, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct upload *u, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    u->code = code;
    u->msg = xvasprintf(fmt, ap);
    va_end(ap);
    finish(u);
}

static void done(struct upload *u);

static void sent(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    (void)value;
    struct upload *u = ud;
    if (err) {
        fail(u, code, "cannot upload the file: %s", err);
        return;
    }
    done(u);
}

static void done(struct upload *u)
{
    const char *ref = args_string(u->bc->args, "ref", "");
    u->out = json_pack("{s:s, s:s, s:s, s:I}", "session", u->bc->session->id, "ref", ref, "path",
                       u->path, "bytes", (json_int_t)u->bytes);
    if (u->remote_path)
        json_object_set_new(u->out, "remote_path", json_string(u->remote_path));
    u->caption = xasprintf("put %s (%lld bytes) into the file input %s%s%s", u->path, u->bytes, ref,
                           u->remote_path ? ", sent to the endpoint as " : "",
                           u->remote_path ? u->remote_path : "");
    finish(u);
}

/* Types the file's path — on the browser's machine — into the input. */
static void type_path(struct wd *w, struct upload *u, const char *path)
{
    char *cmd = xasprintf("/element/%s/value", u->element);
    wd_command(w, "POST", cmd, json_pack("{s:s}", "text", path), sent, u);
    free(cmd);
}

/* Whether the endpoint is on this machine (it may then read the path). */
static bool loopback(const struct wd *w)
{
    const char *s = w->shown;
    return !strncmp(s, "http://127.", 11) || !strncmp(s, "http://localhost", 16) ||
           !strncmp(s, "http://[::1]", 12);
}

static void file_sent(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct upload *u = ud;
    if (err && code == ERROR_NOT_SUPPORTED && !u->legacy) {
        /* chromedriver knows the command by its older name only. */
        u->legacy = true;
        wd_command(w, "POST", "/file", json_pack("{s:s}", "file", u->zip_b64), file_sent, u);
        return;
    }
    if (err && code == ERROR_NOT_SUPPORTED && loopback(w)) {
        type_path(w, u, u->path);
        return;
    }
    if (err || !json_is_string(value) || !*json_string_value(value)) {
        fail(u, err ? code : ERROR_TOOL_FAILED,
             "cannot upload the file to %s (POST /se/file and /file): %s", w->shown,
             err ? err : "it answered no path");
        return;
    }
    u->remote_path = xstrdup(json_string_value(value));
    type_path(w, u, u->remote_path);
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* A zip of one stored (uncompressed) file: what /se/file unpacks. */
static uint8_t *zip_one(const char *name, const uint8_t *data, uint32_t len, size_t *out_len)
{
    size_t n = strlen(name);
    if (n > 0xffff)
        n = 0xffff;
    uint32_t crc = (uint32_t)crc32(0L, data, len);
    size_t local = 30 + n, central = 46 + n;
    uint8_t *z = xcalloc(1, local + len + central + 22), *p = z;
    put32(p, 0x04034b50);
    put16(p + 4, 20);
    put16(p + 12, 0x21); /* 1980-01-01 */
    put32(p + 14, crc);
    put32(p + 18, len);
    put32(p + 22, len);
    put16(p + 26, (unsigned)n);
    memcpy(p + 30, name, n);
    memcpy(p + local, data, len);
    p += local + len;
    put32(p, 0x02014b50);
    put16(p + 4, 20);
    put16(p + 6, 20);
    put16(p + 14, 0x21);
    put32(p + 16, crc);
    put32(p + 20, len);
    put32(p + 24, len);
    put16(p + 28, (unsigned)n);
    memcpy(p + 46, name, n);
    p += central;
    put32(p, 0x06054b50);
    put16(p + 8, 1);
    put16(p + 10, 1);
    put32(p + 12, (uint32_t)central);
    put32(p + 16, (uint32_t)(local + len));
    *out_len = local + len + central + 22;
    return z;
}

static void zip_run(uv_work_t *work)
{
    struct upload *u = work->data;
    FILE *f = fopen(u->path, "rb");
    if (!f) {
        u->zip_err = xasprintf("cannot read %s: %s", u->path, strerror(errno));
        return;
    }
    uint8_t *data = xmalloc((size_t)u->bytes + 1);
    size_t got = fread(data, 1, (size_t)u->bytes, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        u->zip_err = xasprintf("cannot read %s: %s", u->path, strerror(errno));
    } else {
        const char *base = strrchr(u->path, '/');
        size_t zlen;
        uint8_t *zip = zip_one(base ? base + 1 : u->path, data, (uint32_t)got, &zlen);
        u->zip_b64 = base64_encode(zip, zlen);
        free(zip);
    }
    free(data);
}

static void zip_done(uv_work_t *work, int status)
{
    (void)status;
    struct upload *u = work->data;
    struct wd *w = wd_of(u->bc->session);
    if (!u->zip_b64) {
        fail(u, ERROR_TOOL_FAILED, "cannot upload the file: %s",
             u->zip_err ? u->zip_err : "cancelled");
        return;
    }
    wd_command(w, "POST", "/se/file", json_pack("{s:s}", "file", u->zip_b64), file_sent, u);
}

static void found(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct upload *u = ud;
    const char *ref = args_string(u->bc->args, "ref", "");
    const char *id = json_string_value(json_object_get(value, ELEMENT_KEY));
    if (err) {
        fail(u, code, "cannot upload the file: %s", err);
    } else if (json_is_string(value)) {
        bool gone = !strcmp(json_string_value(value), "gone");
        fail(u, gone ? ERROR_NOT_FOUND : ERROR_INVALID_ARGUMENT, "ref %s is %s%s", ref,
             json_string_value(value),
             gone ? ": take a new snapshot" : " (upload_file needs an <input type=file>)");
    } else if (!id) {
        fail(u, ERROR_TOOL_FAILED, "cannot upload the file: the endpoint sent no element for %s",
             ref);
    } else if (w->driver_pid) {
        /* glovebox's own browser shares this machine: it reads the path. */
        u->element = xstrdup(id);
        type_path(w, u, u->path);
    } else if (u->bytes > MAX_REMOTE_UPLOAD) {
        fail(u, ERROR_INVALID_ARGUMENT,
             "argument \"path\": %s has %lld bytes; at most %lld are sent to an endpoint", u->path,
             u->bytes, MAX_REMOTE_UPLOAD);
    } else {
        u->element = xstrdup(id);
        u->work.data = u;
        uv_queue_work(w->app->loop, &u->work, zip_run, zip_done);
    }
}

static void find_input(struct wd *w, struct upload *u)
{
    wd_command(w, "POST", "/execute/sync",
               json_pack("{s:s, s:[s]}", "script", INPUT_SCRIPT, "args",
                         args_string(u->bc->args, "ref", "")),
               found, u);
}

static void entered(struct wd *w, void *ud, json_t *value, int dx, int dy, enum error_code code,
                    const char *err)
{
    (void)value, (void)dx, (void)dy;
    struct upload *u = ud;
    if (err) {
        /* wd_frame_enter went back to the top already. */
        fail(u, code, "cannot upload the file: ref %s: %s", args_string(u->bc->args, "ref", ""),
             err);
        return;
    }
    u->entered = true;
    log_debug("%s: upload into frame f%d by frame switching", w->session->id, u->frame);
    find_input(w, u);
}

/* ---- over the owned browser's DevTools, in the frame's session ---- */

static void files_set(void *ud, json_t *result, const char *err)
{
    (void)result;
    struct upload *u = ud;
    struct wd *w = wd_of(u->bc->session);
    wd_cast_changed(w);
    struct wd_cdp *c = wd_cast_cdp(w);
    if (c)
        wd_cdp_call_in(c, u->session, "Runtime.releaseObjectGroup",
                       json_pack("{s:s}", "objectGroup", "glovebox-upload"), 3000, NULL, NULL);
    if (err)
        fail(u, ERROR_TOOL_FAILED, "cannot upload the file: %s", err);
    else
        done(u);
}

static void input_evaluated(void *ud, json_t *result, const char *err)
{
    struct upload *u = ud;
    struct wd *w = wd_of(u->bc->session);
    const json_t *r = json_object_get(result, "result");
    const char *object_id = json_string_value(json_object_get(r, "objectId"));
    const json_t *why = json_object_get(r, "value");
    struct wd_cdp *c = wd_cast_cdp(w);
    if (err || json_object_get(result, "exceptionDetails") || !c ||
        (!object_id && !json_is_string(why))) {
        /* The socket or the frame went: WebDriver says why. An exception
         * thrown in the page is an object of the group: let it go. */
        if (c)
            wd_cdp_call_in(c, u->session, "Runtime.releaseObjectGroup",
                           json_pack("{s:s}", "objectGroup", "glovebox-upload"), 3000, NULL, NULL);
        wd_frame_enter(w, u->frame, entered, u);
        return;
    }
    if (!object_id) {
        found(w, u, (json_t *)why, 0, NULL);
        return;
    }
    log_debug("%s: upload into frame f%d over DevTools", w->session->id, u->frame);
    wd_cast_changing(w);
    wd_cdp_call_in(c, u->session, "DOM.setFileInputFiles",
                   json_pack("{s:[s], s:s}", "files", u->path, "objectId", object_id),
                   w->timeout_ms, files_set, u);
}

static void got_session(struct wd *w, void *ud, const char *session)
{
    struct upload *u = ud;
    struct wd_cdp *c = wd_cast_cdp(w);
    if (!session || !c) {
        wd_frame_enter(w, u->frame, entered, u);
        return;
    }
    u->session = xstrdup(session);
    json_t *ref = json_string(args_string(u->bc->args, "ref", ""));
    char *arg = json_dumps(ref, JSON_ENCODE_ANY);
    json_decref(ref);
    char *expr = xasprintf("(function(){%s}).apply(null,[%s])", INPUT_SCRIPT, arg);
    free(arg);
    wd_cdp_call_in(c, u->session, "Runtime.evaluate",
                   json_pack("{s:s, s:b, s:s}", "expression", expr, "returnByValue", 0,
                             "objectGroup", "glovebox-upload"),
                   3000, input_evaluated, u);
    free(expr);
}

void wd_upload_file_op(struct backend_call *bc)
{
    struct wd *w = wd_of(bc->session);
    if (w->native) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "cannot upload a file: native apps have no file inputs");
        return;
    }
    /* The schema's pattern lets through refs no snapshot makes (f0e1, a
     * frame past the most): refused as other tools refuse them, not looked
     * for at the top and called gone. */
    const char *ref = args_string(bc->args, "ref", "");
    if (wd_ref_frame(ref) < 0) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "argument \"ref\" must be a ref from snapshot or find, such as "
                               "\"e3\" or \"f1e3\"; got \"%s\"",
                               ref);
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
    u->frame = wd_ref_frame(ref);
    if (u->frame > 0 && w->driver_pid && wd_cast_cdp(w))
        wd_frame_session(w, u->frame, got_session, u);
    else if (u->frame > 0)
        wd_frame_enter(w, u->frame, entered, u);
    else
        find_input(w, u);
}
