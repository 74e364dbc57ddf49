/* Apps on a device, through the package and activity managers' shell
 * commands: the list (pm + the launcher's activities), launching (monkey's
 * launcher intent, or am start for a component), stopping (am force-stop)
 * and clearing data (pm clear). Each call is one shell step; an app id is
 * checked before it reaches the device's sh, so it is never quoted. */
#include "backend/android/internal.h"
#include "core/app.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ident_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* A Java name of at least min_parts dot-separated identifiers, each starting
 * with a letter or '_' (what Android accepts as a package name); n chars. */
static bool java_name(const char *s, size_t n, int min_parts)
{
    int parts = 0;
    size_t i = 0;
    while (i < n) {
        if (!ident_char(s[i], true))
            return false;
        while (i < n && ident_char(s[i], false))
            i++;
        parts++;
        if (i < n && (s[i] != '.' || i + 1 == n))
            return false;
        i += i < n;
    }
    return parts >= min_parts;
}

/* app: "com.example.app", or for launch_app a component
 * "com.example.app/.MainActivity". false with bc answered. */
static bool check_app(struct backend_call *bc, const char *app, bool component)
{
    const char *slash = strchr(app, '/');
    bool ok;
    if (slash && component) {
        const char *act = slash + 1;
        ok =
            java_name(app, (size_t)(slash - app), 2) &&
            (*act == '.' ? java_name(act + 1, strlen(act + 1), 1) : java_name(act, strlen(act), 2));
    } else {
        ok = java_name(app, strlen(app), 2);
    }
    if (!ok)
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "app: \"%.100s\" is not an Android package name such as "
                               "com.example.app%s; app_list shows the installed ones",
                               app, component ? " (or a component com.example.app/.Activity)" : "");
    return ok;
}

/* ---- app_list ----------------------------------------------------------- */

static json_t *package_set(const char *text)
{
    json_t *set = json_object();
    char *copy = xstrdup(text), *save = NULL;
    for (char *l = strtok_r(copy, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save))
        if (strncmp(l, "package:", 8) == 0 && l[8])
            json_object_set_new(set, l + 8, json_true());
    free(copy);
    return set;
}

/* `cmd package query-activities` (long form): "name=ACTIVITY" then
 * "packageName=PKG" inside each ActivityInfo. */
static json_t *launcher_activities(const char *text)
{
    json_t *map = json_object();
    char *copy = xstrdup(text), *save = NULL;
    const char *name = NULL;
    for (char *l = strtok_r(copy, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save)) {
        while (*l == ' ')
            l++;
        if (strncmp(l, "name=", 5) == 0)
            name = l + 5;
        else if (strncmp(l, "packageName=", 12) == 0 && name) {
            if (!json_object_get(map, l + 12))
                json_object_set_new(map, l + 12, json_string(name));
            name = NULL;
        }
    }
    free(copy);
    return map;
}

static char *section_of(const char *out, int index)
{
    const char *p = out;
    for (int i = 0; i < index && p; i++) {
        p = strstr(p, "@@\n");
        p = p ? p + 3 : NULL;
    }
    if (!p)
        return xstrdup("");
    const char *end = strstr(p, "@@\n");
    return xasprintf("%.*s", (int)(end ? (size_t)(end - p) : strlen(p)), p);
}

static void listed(struct backend_call *bc, const struct adb_reply *r)
{
    if (android_step_failed(bc, r, "list the apps"))
        return;
    bool all = args_bool(bc->args, "all", false);
    char *third = section_of((const char *)r->out, 0), *every = section_of((const char *)r->out, 1),
         *acts = section_of((const char *)r->out, 2);
    json_t *user = package_set(third), *pkgs = package_set(every),
           *launchable = launcher_activities(acts);
    free(third);
    free(every);
    free(acts);
    json_t *apps = json_array();
    struct strbuf text = {0};
    const char *pkg;
    json_t *v;
    void *tmp;
    /* jansson keeps insertion order: the device's order. */
    json_object_foreach_safe(pkgs, tmp, pkg, v)
    {
        json_t *act = json_object_get(launchable, pkg);
        if (!all && !act)
            continue;
        json_t *e = json_pack("{s:s, s:b, s:b}", "app", pkg, "launchable", act != NULL, "system",
                              json_object_get(user, pkg) == NULL);
        if (act)
            json_object_set(e, "activity", act);
        json_array_append_new(apps, e);
        strbuf_printf(&text, "\n%s%s", pkg, json_object_get(user, pkg) ? "" : " (system)");
    }
    size_t n = json_array_size(apps);
    json_t *result = json_pack("{s:s, s:I, s:o}", "session", bc->session->id, "count",
                               (json_int_t)n, "apps", apps);
    backend_call_done(bc, result, "%zu %sapp(s)%s", n, all ? "" : "launchable ",
                      text.data ? text.data : "");
    strbuf_finish(&text);
    json_decref(user);
    json_decref(pkgs);
    json_decref(launchable);
}

void android_app_list_op(struct backend_call *bc)
{
    android_run(bc, ADB_SHELL_V2,
                "pm list packages -3; echo @@; pm list packages; echo @@; cmd package "
                "query-activities -a android.intent.action.MAIN -c "
                "android.intent.category.LAUNCHER",
                ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, listed);
}

/* ---- launch, stop, reset ----------------------------------------------- */

/* Whether the reply's output (stdout then stderr) contains s. */
static bool said(const struct adb_reply *r, const char *s)
{
    return (r->out_len && strstr((const char *)r->out, s)) ||
           (r->err_len && strstr((const char *)r->err, s));
}

static void not_installed(struct backend_call *bc, const char *app, const char *what)
{
    backend_call_fail_code(bc, ERROR_NOT_FOUND,
                           "app: %s is not installed%s on %s; app_list shows the installed apps",
                           app, what, android_of(bc->session)->serial);
}

static void launched(struct backend_call *bc, const struct adb_reply *r)
{
    const char *app = args_string(bc->args, "app", "");
    if (r->ok && (said(r, "No activities found") || said(r, "does not exist"))) {
        not_installed(bc, app,
                      strchr(app, '/') ? " or has no such activity"
                                       : " or has no launcher activity");
        return;
    }
    /* am start reports a failed intent on stderr and may still exit 0. */
    if (r->ok && r->exit_code == 0 && said(r, "Error:")) {
        backend_call_fail(bc, "cannot launch %s: %.300s", app,
                          r->err_len ? (const char *)r->err : (const char *)r->out);
        return;
    }
    if (android_step_failed(bc, r, "launch the app"))
        return;
    backend_call_done(bc, json_pack("{s:s, s:s}", "session", bc->session->id, "app", app),
                      "launched %s", app);
}

void android_app_launch_op(struct backend_call *bc)
{
    const char *app = args_string(bc->args, "app", "");
    if (!check_app(bc, app, true))
        return;
    /* The launcher's intent, as tapping the icon does; a component is started as named. */
    char *cmd = strchr(app, '/')
                    ? xasprintf("am start -n %s", app)
                    : xasprintf("monkey -p %s -c android.intent.category.LAUNCHER 1", app);
    android_run(bc, ADB_SHELL_V2, cmd, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, launched);
    free(cmd);
}

/* stop, reset and uninstall: `pm path APP && <command>`; pm path prints "package:…"
 * for an installed app and fails for others. */
static void app_done(struct backend_call *bc, const struct adb_reply *r, const char *verb,
                     const char *past, const char *success)
{
    const char *app = args_string(bc->args, "app", "");
    if (r->ok && !(r->out_len && strstr((const char *)r->out, "package:"))) {
        not_installed(bc, app, "");
        return;
    }
    if (android_step_failed(bc, r, verb))
        return;
    if (success && !said(r, success)) {
        backend_call_fail(bc, "cannot %s: the device answered \"%.300s\"", verb,
                          (const char *)r->out);
        return;
    }
    backend_call_done(bc, json_pack("{s:s, s:s}", "session", bc->session->id, "app", app), "%s %s",
                      past, app);
}

static void stopped(struct backend_call *bc, const struct adb_reply *r)
{
    app_done(bc, r, "stop the app", "stopped", NULL);
}

static void reset_done(struct backend_call *bc, const struct adb_reply *r)
{
    app_done(bc, r, "clear the app's data", "cleared the data of", "Success");
}

static void app_step(struct backend_call *bc, const char *command, android_step_fn step)
{
    const char *app = args_string(bc->args, "app", "");
    if (!check_app(bc, app, false))
        return;
    char *cmd = xasprintf("pm path %s && %s %s", app, command, app);
    android_run(bc, ADB_SHELL_V2, cmd, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, step);
    free(cmd);
}

void android_app_stop_op(struct backend_call *bc)
{
    app_step(bc, "am force-stop", stopped);
}

void android_app_reset_op(struct backend_call *bc)
{
    app_step(bc, "pm clear", reset_done);
}

/* pm uninstall says Failure […] and exits 1 for what it refuses (a
 * system app, a device admin): the device's words go back. */
static void uninstalled(struct backend_call *bc, const struct adb_reply *r)
{
    app_done(bc, r, "uninstall the app", "uninstalled", "Success");
}

void android_app_uninstall_op(struct backend_call *bc)
{
    app_step(bc, args_bool(bc->args, "keep_data", false) ? "pm uninstall -k" : "pm uninstall",
             uninstalled);
}

/* ---- app_install -------------------------------------------------------- */

struct install {
    uv_work_t work;
    struct backend_call *bc;
    char *path;   /* on this machine */
    char *remote; /* on the device */
    uint8_t *data;
    size_t len;
    enum error_code code;
    char *err;
};

static void install_free(struct install *in)
{
    free(in->path);
    free(in->remote);
    free(in->data);
    free(in->err);
    free(in);
}

/* Worker pool: the whole file, bounded. */
static void read_run(uv_work_t *w)
{
    struct install *in = w->data;
    FILE *f = fopen(in->path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        in->code = ERROR_NOT_FOUND;
        in->err = xasprintf("path: cannot read \"%s\" on the glovebox machine: %s", in->path,
                            f ? "not a regular file" : strerror(errno));
        if (f)
            fclose(f);
        return;
    }
    if ((uint64_t)st.st_size > ANDROID_MAX_APK || st.st_size == 0) {
        in->code = ERROR_INVALID_ARGUMENT;
        in->err = xasprintf("path: \"%s\" has %lld bytes; an APK of 1 to %u bytes is expected",
                            in->path, (long long)st.st_size, ANDROID_MAX_APK);
        fclose(f);
        return;
    }
    in->data = xmalloc((size_t)st.st_size);
    in->len = fread(in->data, 1, (size_t)st.st_size, f);
    if (in->len != (size_t)st.st_size) {
        in->code = ERROR_TOOL_FAILED;
        in->err = xasprintf("path: reading \"%s\" stopped after %zu bytes", in->path, in->len);
    }
    fclose(f);
}

/* Progress in bytes of the APK, plus one for the install itself: the
 * copy reports each MiB, then "copied; installing" at the APK's size, then
 * "installed" (each value greater than the last, as MCP asks). */
static void progress(struct backend_call *bc, double done, double total, const char *msg)
{
    if (bc->progress)
        bc->progress(bc, done, total, msg);
}

static void copying(struct backend_call *bc, size_t sent, size_t total)
{
    char msg[96];
    snprintf(msg, sizeof msg, "copied %.1f of %.1f MiB to the device", (double)sent / 1048576.0,
             (double)total / 1048576.0);
    progress(bc, (double)sent, (double)total + 1, msg);
}

static void installed(struct backend_call *bc, const struct adb_reply *r)
{
    struct install *in = bc->backend_data;
    bc->backend_data = NULL;
    if (!android_step_failed(bc, r, "install the app")) {
        const char *out = (const char *)r->out;
        if (!strstr(out, "Success")) {
            /* "Failure [INSTALL_FAILED_…: why]": the device's words. */
            const char *f = strstr(out, "Failure");
            size_t n = strcspn(f ? f : out, "\r\n");
            backend_call_fail(bc, "cannot install %s: %.*s", in->path, (int)(n > 400 ? 400 : n),
                              f ? f : out);
        } else {
            progress(bc, (double)in->len + 1, (double)in->len + 1, "installed");
            backend_call_done(bc,
                              json_pack("{s:s, s:s, s:I}", "session", bc->session->id, "path",
                                        in->path, "bytes", (json_int_t)in->len),
                              "installed %s (%zu bytes); app_list shows it", in->path, in->len);
        }
    }
    install_free(in);
}

static void pushed(struct backend_call *bc, const struct adb_reply *r)
{
    struct install *in = bc->backend_data;
    if (!r->ok) {
        bc->backend_data = NULL;
        backend_call_fail_code(bc, r->code, "cannot copy %s to the device: %s", in->path, r->error);
        install_free(in);
        return;
    }
    free(in->data);
    in->data = NULL;
    progress(bc, (double)in->len, (double)in->len + 1, "copied; installing");
    char *cmd = xasprintf("pm install -r -t %s 2>&1; rm -f %s", in->remote, in->remote);
    android_run(bc, ADB_SHELL_V2, cmd, 300000, ANDROID_MAX_TEXT, installed);
    free(cmd);
}

static void read_done(uv_work_t *w, int status)
{
    (void)status;
    struct install *in = w->data;
    struct backend_call *bc = in->bc;
    if (in->err) {
        backend_call_fail_code(bc, in->code, "%s", in->err);
        install_free(in);
        return;
    }
    if (bc->session->state != SESSION_LIVE) {
        backend_call_fail_code(bc, ERROR_SESSION_EXPIRED, "cannot install: session %s has ended",
                               bc->session->id);
        install_free(in);
        return;
    }
    progress(bc, 0, (double)in->len + 1, "copying to the device");
    bc->backend_data = in;
    android_push(bc, in->remote, in->data, in->len, copying, pushed);
}

void android_app_install_op(struct backend_call *bc)
{
    static unsigned seq;
    struct install *in = xcalloc(1, sizeof *in);
    in->bc = bc;
    in->path = xstrdup(args_string(bc->args, "path", ""));
    /* A name of glovebox's own in the shell's scratch directory: nothing to quote. */
    in->remote = xasprintf("/data/local/tmp/glovebox-%ld-%u.apk", (long)getpid(), ++seq);
    in->work.data = in;
    uv_queue_work(bc->app->loop, &in->work, read_run, read_done);
}
