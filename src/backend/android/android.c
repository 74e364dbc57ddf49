/* Android sessions: connecting to a device (the device list, then its screen
 * size, density, version and model in one shell step), their life, and the
 * one path every operation's adb steps take (android_run), which ends the
 * session when its device goes away. */
#define LOG_MODULE "android"
#include "backend/android/android.h"
#include "backend/android/internal.h"
#include "core/app.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct android *android_of(struct session *s)
{
    return s->backend;
}

/* ---- the device list ---------------------------------------------------- */

static const char *explain_state(const char *state)
{
    if (strcmp(state, "device") == 0)
        return NULL;
    if (strcmp(state, "unauthorized") == 0)
        return "the device has not allowed this computer yet: unlock it and accept the \"Allow "
               "USB debugging?\" prompt (tick \"Always allow\"); if no prompt shows, revoke USB "
               "debugging authorizations in Developer options and replug";
    if (strcmp(state, "offline") == 0)
        return "the device is known but does not answer adb: it is booting, its connection "
               "dropped, or it was unplugged; wait, replug it or run `adb reconnect offline`";
    if (strncmp(state, "no permissions", 14) == 0)
        return "the adb server may not open this USB device: install udev rules for Android "
               "devices (Debian: android-sdk-platform-tools-common), add yourself to plugdev "
               "and replug";
    if (strcmp(state, "authorizing") == 0 || strcmp(state, "connecting") == 0)
        return "adb is still setting up the connection; try again in a moment";
    if (strcmp(state, "recovery") == 0 || strcmp(state, "sideload") == 0 ||
        strcmp(state, "bootloader") == 0 || strcmp(state, "rescue") == 0)
        return "the device is not running Android (recovery or bootloader mode)";
    return "the device is not ready for adb";
}

/* "key:value" after the state. */
static bool is_field(const char *tok)
{
    const char *c = strchr(tok, ':');
    if (!c || c == tok)
        return false;
    for (const char *p = tok; p < c; p++)
        if (!((*p >= 'a' && *p <= 'z') || *p == '_'))
            return false;
    return true;
}

/* host:devices-l: "SERIAL  STATE product:P model:M device:D transport_id:N" a line. */
static json_t *parse_devices(const char *text)
{
    json_t *list = json_array();
    /* Serials, models and products are the devices' own bytes: kept as
     * they are when UTF-8, else made so (jansson takes nothing else). */
    char *copy = utf8_scrub(xstrdup(text));
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tsave = NULL;
        char *serial = strtok_r(line, " \t\r", &tsave);
        if (!serial)
            continue;
        struct strbuf state = {0};
        json_t *d = json_pack("{s:s}", "serial", serial);
        for (char *tok = strtok_r(NULL, " \t\r", &tsave); tok;
             tok = strtok_r(NULL, " \t\r", &tsave)) {
            if (is_field(tok)) {
                char *c = strchr(tok, ':');
                *c = 0;
                if (strcmp(tok, "transport_id") == 0)
                    json_object_set_new(d, tok, json_integer(atoll(c + 1)));
                else
                    json_object_set_new(d, tok, json_string(c + 1));
            } else if (json_object_size(d) == 1) {
                if (state.len)
                    strbuf_putc(&state, ' ');
                strbuf_puts(&state, tok);
            }
        }
        const char *st = state.len ? state.data : "unknown";
        json_object_set_new(d, "state", json_string(st));
        const char *why = explain_state(st);
        if (why)
            json_object_set_new(d, "explanation", json_string(why));
        strbuf_finish(&state);
        json_array_append_new(list, d);
    }
    free(copy);
    return list;
}

struct listing {
    struct adb_server srv;
    android_listed_fn done;
    void *ud;
};

static void listed(void *ud, const struct adb_reply *r)
{
    struct listing *l = ud;
    if (!r->ok) {
        l->done(NULL, r->code, r->error, l->ud);
    } else {
        json_t *devices = parse_devices((const char *)r->out);
        char *addr = xasprintf("%s:%d", l->srv.host, l->srv.port);
        l->done(json_pack("{s:s, s:I, s:o}", "adb_server", addr, "count",
                          (json_int_t)json_array_size(devices), "devices", devices),
                0, NULL, l->ud);
        free(addr);
    }
    free(l);
}

/* Defer an answer to the next loop turn (the api promises "always later"). */
struct later {
    uv_timer_t timer;
    void (*fn)(void *ud, enum error_code code, const char *err);
    void *ud;
    enum error_code code;
    char *err;
};

static void later_closed(uv_handle_t *h)
{
    struct later *l = h->data;
    free(l->err);
    free(l);
}

static void later_fire(uv_timer_t *t)
{
    struct later *l = t->data;
    l->fn(l->ud, l->code, l->err);
    uv_close((uv_handle_t *)&l->timer, later_closed);
}

static void fail_later(struct app *app, void (*fn)(void *, enum error_code, const char *), void *ud,
                       enum error_code code, char *err)
{
    struct later *l = xcalloc(1, sizeof *l);
    l->fn = fn;
    l->ud = ud;
    l->code = code;
    l->err = err;
    uv_timer_init(app->loop, &l->timer);
    l->timer.data = l;
    uv_timer_start(&l->timer, later_fire, 0, 0);
}

struct list_fail {
    android_listed_fn done;
    void *ud;
};

static void list_failed(void *ud, enum error_code code, const char *err)
{
    struct list_fail *f = ud;
    f->done(NULL, code, err, f->ud);
    free(f);
}

void android_list(struct app *app, const char *adb_server, bool remote_ok, android_listed_fn done,
                  void *ud)
{
    struct listing *l = xcalloc(1, sizeof *l);
    char *err = NULL;
    if (!adb_server_resolve(adb_server, "adb_server", remote_ok, &l->srv, &err)) {
        free(l);
        struct list_fail *f = xcalloc(1, sizeof *f);
        f->done = done;
        f->ud = ud;
        fail_later(app, list_failed, f, ERROR_INVALID_ARGUMENT, err);
        return;
    }
    l->done = done;
    l->ud = ud;
    adb_request(app->loop, &l->srv, NULL, "host:devices-l", ADB_HOST, ANDROID_TIMEOUT_MS,
                ANDROID_MAX_TEXT, listed, l);
}

/* ---- sessions ------------------------------------------------------------ */

static void end_if_idle(struct android *a)
{
    if (a->stopping && a->pending == 0 && !a->ended) {
        a->ended = true;
        session_ended(a->session, a->stop_reason ? a->stop_reason : "stopped");
    }
}

void android_hold(struct android *a)
{
    a->pending++;
}

void android_release(struct android *a)
{
    a->pending--;
    end_if_idle(a);
}

/* The recording is written: the session may end. */
static void recording_idle(void *ud)
{
    android_release(ud);
}

static void android_stop(struct session *s)
{
    struct android *a = android_of(s);
    a->stopping = true;
    /* Held until the recording is written (a sample on its way first): the
     * end of the last session at shutdown closes every handle, its adb
     * connection too. The second hold keeps a until this function ends. */
    android_hold(a);
    android_hold(a);
    frame_recording_end(&a->rec, recording_idle, a);
    android_waits_end(a, a->stop_reason ? a->stop_reason : "the session was stopped");
    android_shell_end(a);
    android_touch_end(a);
    android_stream_end(a);
    android_release(a);
}

static void android_free(struct android *a)
{
    free(a->serial);
    free(a->model);
    free(a->product);
    free(a->version);
    free(a->stop_reason);
    free(a->input_note);
    android_refs_clear(a);
    free(a);
}

static void android_destroy(struct session *s)
{
    struct android *a = android_of(s);
    if (!a)
        return;
    android_free(a);
    s->backend = NULL;
}

static json_t *android_describe(struct session *s)
{
    struct android *a = android_of(s);
    char *addr = xasprintf("%s:%d", a->srv.host, a->srv.port);
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:s}", "serial", a->serial, "model",
                          a->model, "width", a->width, "height", a->height, "density", a->density,
                          "version", a->version, "adb_server", addr);
    free(addr);
    json_object_set_new(o, "input", json_string(a->touch ? "events" : "commands"));
    if (a->touch)
        json_object_set_new(
            o, "touch_node",
            utf8_json_string(android_touch_node(a->touch), strlen(android_touch_node(a->touch))));
    else if (a->input_note)
        json_object_set_new(o, "input_note",
                            utf8_json_string(a->input_note, strlen(a->input_note)));
    const char *note = NULL;
    json_object_set_new(o, "stream", json_string(android_stream_state(a, &note)));
    /* The note quotes the device's own words (screenrecord's stderr),
     * which need not be UTF-8: json_string would give NULL, and no note. */
    if (note)
        json_object_set_new(o, "stream_note", utf8_json_string(note, strlen(note)));
    return o;
}

static const struct backend_impl android_impl = {
    .kind = "android",
    .stop = android_stop,
    .destroy = android_destroy,
    .describe = android_describe,
    .screenshot = android_screenshot_op,
    .capture = android_screenshot_op,
    .sample = android_stream_sample,
    .snapshot = android_snapshot_op,
    .find = android_find_op,
    .read_text = android_read_text_op,
    .click = android_click_op,
    .pointer = android_pointer_op,
    .type_text = android_type_text_op,
    .press_key = android_press_key_op,
    .scroll = android_scroll_op,
    .drag = android_drag_op,
    .wait_for = android_wait_for_op,
    .open_url = android_open_url_op,
    .press_button = android_press_button_op,
    .app_list = android_app_list_op,
    .app_launch = android_app_launch_op,
    .app_stop = android_app_stop_op,
    .app_reset = android_app_reset_op,
    .app_install = android_app_install_op,
    .app_uninstall = android_app_uninstall_op,
    .orientation = android_orientation_op,
    .set_network = android_set_network_op,
    .record_start = android_record_start_op,
    .record_stop = android_record_stop_op,
};

char *android_sh_quote(const char *s)
{
    struct strbuf sb = {0};
    strbuf_putc(&sb, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            strbuf_puts(&sb, "'\\''");
        else
            strbuf_putc(&sb, *p);
    }
    strbuf_putc(&sb, '\'');
    return strbuf_steal(&sb);
}

void android_set_rotation(struct android *a, int r)
{
    a->rotation = r & 3;
    a->width = a->rotation & 1 ? a->phys_height : a->phys_width;
    a->height = a->rotation & 1 ? a->phys_width : a->phys_height;
}

int android_parse_rotation(const char *dump)
{
    /* Android 8-13: "SurfaceOrientation: N"; later: a viewport's "orientation=N". */
    const char *p = strstr(dump, "SurfaceOrientation:");
    int r = -1;
    if (p && sscanf(p, "SurfaceOrientation: %d", &r) == 1 && r >= 0 && r <= 3)
        return r;
    p = strstr(dump, "orientation=");
    if (p && sscanf(p, "orientation=%d", &r) == 1 && r >= 0 && r <= 3)
        return r;
    return -1;
}

struct run {
    struct backend_call *bc;
    struct android *a;
    android_step_fn step;
    bool acts;                    /* the command may change the screen (stream.c) */
    android_progress_fn progress; /* a push's, or NULL */
};

/* Shell commands that only read: every other one counts as an action, after
 * which a screenshot must show its effect (stream.c). */
static bool reads_only(const char *cmd)
{
    static const char *const readers[] = {
        "uiautomator dump",  "settings get",        "pm list", "dumpsys", "getprop", "ime list",
        "cmd package query", "cmd package resolve", "wm size"};
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++)
        if (strncmp(cmd, readers[i], strlen(readers[i])) == 0)
            return true;
    return false;
}

void android_device_lost(struct android *a, const char *error)
{
    if (a->stopping)
        return;
    free(a->stop_reason);
    a->stop_reason = xasprintf("the device %s went away: %s", a->serial, error);
    session_stop(a->session, a->stop_reason);
}

static void ran(void *ud, const struct adb_reply *r)
{
    struct run *run = ud;
    struct android *a = run->a;
    if (run->acts)
        android_stream_acted(a);
    run->step(run->bc, r);
    free(run);
    a->pending--;
    if (r->device_lost)
        android_device_lost(a, r->error);
    end_if_idle(a);
}

static struct run *run_new(struct backend_call *bc, android_step_fn step)
{
    struct android *a = android_of(bc->session);
    struct run *run = xcalloc(1, sizeof *run);
    run->bc = bc;
    run->a = a;
    run->step = step;
    a->pending++;
    return run;
}

static void pushing(void *ud, size_t sent, size_t total)
{
    struct run *run = ud;
    run->progress(run->bc, sent, total);
}

void android_push(struct backend_call *bc, const char *remote, const uint8_t *data, size_t len,
                  android_progress_fn progress, android_step_fn step)
{
    struct android *a = android_of(bc->session);
    /* A minute, plus a second per 4 MB: adb over USB 2 moves 20-40 MB/s. */
    uint64_t timeout = 60000 + len / 4000;
    struct run *run = run_new(bc, step);
    run->progress = progress;
    adb_push(a->app->loop, &a->srv, a->serial, remote, 0644, data, len, timeout,
             progress ? pushing : NULL, ran, run);
}

void android_run(struct backend_call *bc, enum adb_mode mode, const char *cmd, uint64_t timeout_ms,
                 size_t max_bytes, android_step_fn step)
{
    struct android *a = android_of(bc->session);
    struct run *run = run_new(bc, step);
    run->acts = mode == ADB_SHELL_V2 && !reads_only(cmd);
    char *service = xasprintf(mode == ADB_EXEC ? "exec:%s" : "shell,v2,raw:%s", cmd);
    adb_request(a->app->loop, &a->srv, a->serial, service, mode, timeout_ms, max_bytes, ran, run);
    free(service);
}

bool android_step_failed(struct backend_call *bc, const struct adb_reply *r, const char *what)
{
    if (!r->ok) {
        backend_call_fail_code(bc, r->code, "cannot %s: %s", what, r->error);
        return true;
    }
    if (r->exit_code != 0) {
        const uint8_t *msg = r->err_len ? r->err : r->out;
        size_t n = r->err_len ? r->err_len : r->out_len;
        backend_call_fail(bc, "cannot %s: the device's command exited with status %d: %.*s", what,
                          r->exit_code, (int)(n > 500 ? 500 : n), (const char *)msg);
        return true;
    }
    return false;
}

/* ---- connecting ----------------------------------------------------------- */

struct connecting {
    struct app *app;
    struct adb_server srv;
    char *serial, *name, *owner;
    bool shared, stream;
    int input; /* 0 auto, 1 events, 2 commands */
    android_connected_fn done;
    void *ud;
    json_t *device;    /* the chosen device from the list */
    struct android *a; /* made by the probe, until the session has it */
};

static void connecting_free(struct connecting *c)
{
    free(c->serial);
    free(c->name);
    free(c->owner);
    json_decref(c->device);
    if (c->a)
        android_free(c->a);
    free(c);
}

static void connect_fail(struct connecting *c, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void connect_fail(struct connecting *c, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    c->done(NULL, code, msg, c->ud);
    free(msg);
    connecting_free(c);
}

/* The section after the index-th "@@" line marker of the probe's output. */
static char *section(const char *out, int index)
{
    const char *p = out;
    for (int i = 0; i < index; i++) {
        p = strstr(p, "@@\n");
        if (!p)
            return xstrdup("");
        p += 3;
    }
    const char *end = strstr(p, "@@\n");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
        n--;
    return xasprintf("%.*s", (int)n, p);
}

/* "Override size: WxH" wins over "Physical size: WxH". */
static void parse_size(const char *s, int *w, int *h)
{
    const char *o = strstr(s, "Override size:");
    const char *p = strstr(s, "Physical size:");
    if (o)
        sscanf(o, "Override size: %dx%d", w, h);
    else if (p)
        sscanf(p, "Physical size: %dx%d", w, h);
}

static void parse_density(const char *s, int *d)
{
    const char *o = strstr(s, "Override density:");
    const char *p = strstr(s, "Physical density:");
    if (o)
        sscanf(o, "Override density: %d", d);
    else if (p)
        sscanf(p, "Physical density: %d", d);
}

/* The session, now that everything about the device is known; touch (may
 * be NULL) is how taps reach it. */
static void connected_live(struct connecting *c, struct android_touch *touch)
{
    struct android *a = c->a;
    c->a = NULL;
    struct session_client who = {.owner = c->owner, .shared = c->shared};
    struct session *s = session_add(c->app->sessions, &android_impl, c->name, &who);
    a->session = s;
    s->backend = a;
    if (touch)
        android_touch_attach(touch, a);
    session_set_live(s);
    if (c->stream)
        android_stream_start(a);
    log_info("%s: %s (%s, Android %s, %dx%d at %d dpi) through %s:%d; taps %s%s%s", s->id,
             a->serial, a->model, a->version, a->width, a->height, a->density, a->srv.host,
             a->srv.port, touch ? "as events to " : "through `input`",
             touch           ? android_touch_node(touch)
             : a->input_note ? ": "
                             : "",
             a->input_note ? a->input_note : "");
    c->done(s, 0, NULL, c->ud);
    connecting_free(c);
}

static void touch_opened(void *ud, struct android_touch *t, const char *why)
{
    struct connecting *c = ud;
    if (!t && c->input == 1) {
        connect_fail(c, ERROR_NOT_SUPPORTED,
                     "input: \"events\" cannot be used on %s: %s; connect with input \"auto\" "
                     "or \"commands\" to tap through `input`",
                     c->a->serial, why);
        return;
    }
    if (!t)
        c->a->input_note = xstrdup(why);
    connected_live(c, t);
}

static void probed(void *ud, const struct adb_reply *r)
{
    struct connecting *c = ud;
    const char *serial = json_string_value(json_object_get(c->device, "serial"));
    if (!r->ok) {
        connect_fail(c, r->code, "cannot reach %s: %s", serial, r->error);
        return;
    }
    const char *out = (const char *)r->out;
    char *size = section(out, 0), *dens = section(out, 1), *version = section(out, 2),
         *model = section(out, 3), *orient = section(out, 4);
    utf8_scrub(model);
    utf8_scrub(version);
    int rot = android_parse_rotation(orient);
    free(orient);
    int w = 0, h = 0, d = 0;
    parse_size(size, &w, &h);
    parse_density(dens, &d);
    free(size);
    free(dens);
    if (w <= 0 || h <= 0) {
        free(version);
        free(model);
        connect_fail(c, ERROR_TOOL_FAILED,
                     "cannot read the screen size of %s: `wm size` printed \"%.200s\"", serial,
                     out);
        return;
    }
    struct android *a = xcalloc(1, sizeof *a);
    a->app = c->app;
    a->srv = c->srv;
    a->serial = xstrdup(serial);
    const char *listed_model = json_string_value(json_object_get(c->device, "model"));
    a->model = model[0] ? model : xstrdup(listed_model ? listed_model : "");
    if (model != a->model)
        free(model);
    a->product = xstrdup(json_string_value(json_object_get(c->device, "product"))
                             ? json_string_value(json_object_get(c->device, "product"))
                             : "");
    a->version = version;
    a->phys_width = w;
    a->phys_height = h;
    a->density = d;
    android_set_rotation(a, rot < 0 ? 0 : rot);
    c->a = a;
    if (c->input == 2) {
        connected_live(c, NULL);
        return;
    }
    android_touch_open(c->app->loop, &c->srv, a->serial, touch_opened, c);
}

static void connect_listed(json_t *out, enum error_code code, const char *err, void *ud)
{
    struct connecting *c = ud;
    if (!out) {
        connect_fail(c, code, "%s", err);
        return;
    }
    json_t *devices = json_object_get(out, "devices");
    json_t *chosen = NULL;
    size_t i;
    json_t *d;
    struct strbuf names = {0};
    json_array_foreach(devices, i, d)
    {
        const char *serial = json_string_value(json_object_get(d, "serial"));
        strbuf_printf(&names, "%s%s (%s)", i ? ", " : "", serial,
                      json_string_value(json_object_get(d, "state")));
        if (c->serial && strcmp(serial, c->serial) == 0)
            chosen = d;
    }
    size_t n = json_array_size(devices);
    if (!c->serial) {
        if (n == 1)
            chosen = json_array_get(devices, 0);
        else {
            if (n == 0)
                connect_fail(c, ERROR_DEVICE_UNAVAILABLE,
                             "the adb server at %s:%d sees no device; plug one in (USB debugging "
                             "on) or start an emulator, then check with `adb devices -l`",
                             c->srv.host, c->srv.port);
            else
                connect_fail(c, ERROR_INVALID_ARGUMENT,
                             "serial: %zu devices are connected, say which: %s", n, names.data);
            strbuf_finish(&names);
            json_decref(out);
            return;
        }
    }
    if (!chosen) {
        connect_fail(c, ERROR_NOT_FOUND,
                     "serial: no device \"%s\" on the adb server at %s:%d; "
                     "connected: %s",
                     c->serial, c->srv.host, c->srv.port, names.len ? names.data : "none");
        strbuf_finish(&names);
        json_decref(out);
        return;
    }
    strbuf_finish(&names);
    const char *state = json_string_value(json_object_get(chosen, "state"));
    if (strcmp(state, "device") != 0) {
        connect_fail(c, ERROR_DEVICE_UNAVAILABLE, "the device %s is %s: %s",
                     json_string_value(json_object_get(chosen, "serial")), state,
                     json_string_value(json_object_get(chosen, "explanation")));
        json_decref(out);
        return;
    }
    c->device = json_incref(chosen);
    json_decref(out);
    adb_request(
        c->app->loop, &c->srv, json_string_value(json_object_get(c->device, "serial")),
        "shell,v2,raw:wm size; echo @@; wm density; echo @@; getprop "
        "ro.build.version.release; echo @@; getprop ro.product.model; echo @@; dumpsys input "
        "| grep rientation",
        ADB_SHELL_V2, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, probed, c);
}

void android_connect(struct app *app, const struct android_options *o, android_connected_fn done,
                     void *ud)
{
    struct connecting *c = xcalloc(1, sizeof *c);
    c->app = app;
    c->serial = o->serial ? xstrdup(o->serial) : NULL;
    c->name = o->name ? xstrdup(o->name) : NULL;
    c->owner = o->client && o->client->owner ? xstrdup(o->client->owner) : NULL;
    c->shared = o->client && o->client->shared;
    c->stream = o->stream;
    c->input = o->input && strcmp(o->input, "events") == 0     ? 1
               : o->input && strcmp(o->input, "commands") == 0 ? 2
                                                               : 0;
    c->done = done;
    c->ud = ud;
    char *err = NULL;
    if (!adb_server_resolve(o->adb_server, "adb_server", o->remote_ok, &c->srv, &err)) {
        /* android_list answers the same error later. */
        free(err);
    }
    android_list(app, o->adb_server, o->remote_ok, connect_listed, c);
}
