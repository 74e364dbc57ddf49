/* A webdriver session's life: connect (start chromedriver when glovebox
 * owns the browser, wait for it, create or attach the remote session), the
 * commands, and the end (DELETE, then the owned processes and their
 * folder). */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/http.h"
#include "backend/webdriver/internal.h"
#include "backend/webdriver/url.h"

#include "core/app.h"
#include "core/children.h"
#include "core/log.h"
#include "core/pidns.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* How often, and how long, a started chromedriver is asked whether it is ready. */
#define STATUS_EVERY_MS 50
#define STATUS_TRIES    300
/* What a DELETE at the end may take: a stop must not hang on a dead hub. */
#define DELETE_TIMEOUT_MS 5000
/* A chromedriver that ignores SIGTERM gets SIGKILL after this. */
#define KILL_AFTER_MS 2000
/* Farms end sessions idle for 60-300 s: a keep-alive twice a minute. */
#define KEEPALIVE_DEFAULT_MS 30000
/* WebDriver error messages carry stack traces: the first part is enough. */
#define MESSAGE_MAX 300

static const struct backend_impl webdriver_impl;

struct wd *wd_of(struct session *s)
{
    return s->backend;
}

/* ---- commands ---- */

struct cmd {
    struct wd *w;
    wd_reply_fn fn;
    void *ud;
    long timeout_ms;
    bool changing; /* may change what the page shows (cast.c) */
};

/* The code of a WebDriver error ("invalid session id", …) and its message. */
static enum error_code code_of(const char *error, const char *message)
{
    /* A browser that crashed or was closed: the device is gone, whatever
     * the endpoint calls it. */
    static const char *const gone[] = {"not reachable", "disconnected", "crashed",
                                       "browser has closed", "target window already closed"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        if (message && strstr(message, gone[i]))
            return ERROR_DEVICE_UNAVAILABLE;
    if (strcmp(error, "invalid session id") == 0)
        return ERROR_SESSION_EXPIRED;
    if (strcmp(error, "no such element") == 0 || strcmp(error, "no such window") == 0 ||
        strcmp(error, "no such frame") == 0 || strcmp(error, "unknown command") == 0)
        return strcmp(error, "unknown command") == 0 ? ERROR_NOT_SUPPORTED : ERROR_NOT_FOUND;
    if (strcmp(error, "invalid argument") == 0 || strcmp(error, "move target out of bounds") == 0)
        return ERROR_INVALID_ARGUMENT;
    if (strcmp(error, "timeout") == 0 || strcmp(error, "script timeout") == 0)
        return ERROR_TIMEOUT;
    /* Appium's "Method has not yet been implemented" by this driver. */
    if (strcmp(error, "unsupported operation") == 0 || strcmp(error, "unknown method") == 0)
        return ERROR_NOT_SUPPORTED;
    return ERROR_TOOL_FAILED;
}

static void reply(struct cmd *c, const struct wd_http_response *r)
{
    struct wd *w = c->w;
    if (r->error) {
        enum error_code code = ERROR_DEVICE_UNAVAILABLE;
        char *msg;
        if (r->timed_out) {
            code = ERROR_TIMEOUT;
            msg = xasprintf("the WebDriver endpoint %s did not answer within %ld ms", w->shown,
                            c->timeout_ms);
        } else if (w->stopping) {
            code = w->abort_code;
            msg = xasprintf("session %s ended: %s", w->session->id,
                            w->session->end_reason ? w->session->end_reason : r->error);
        } else {
            msg = xasprintf("cannot reach the WebDriver endpoint %s: %s", w->shown, r->error);
        }
        c->fn(w, c->ud, NULL, code, msg);
        free(msg);
        return;
    }
    json_error_t jerr;
    json_t *doc = r->body ? json_loadb(r->body, r->len, 0, &jerr) : NULL;
    json_t *value = json_object_get(doc, "value");
    const char *error = json_string_value(json_object_get(value, "error"));
    if (r->status >= 200 && r->status < 300 && doc && !error) {
        c->fn(w, c->ud, value ? value : json_null(), 0, NULL);
    } else if (error) {
        const char *m = json_string_value(json_object_get(value, "message"));
        enum error_code code = code_of(error, m);
        char *msg = xasprintf("WebDriver error \"%.100s\" from %s: %.*s", error, w->shown,
                              MESSAGE_MAX, m ? m : "(no message)");
        /* Keep the first line: the rest is the endpoint's stack trace. */
        char *nl = strchr(msg, '\n');
        if (nl)
            *nl = '\0';
        c->fn(w, c->ud, NULL, code, msg);
        if (code == ERROR_DEVICE_UNAVAILABLE && w->driver_pid && !w->stopping)
            session_stop(w->session, "the browser is gone");
        else if (code == ERROR_SESSION_EXPIRED && !w->stopping && w->session->was_live &&
                 w->session->state == SESSION_LIVE) {
            /* A farm ended it (idle, or its own time limit): nothing left
             * to DELETE, and every later call hears session_expired. */
            w->remote_gone = true;
            const char *said = m ? m : error;
            char *why =
                xasprintf("the endpoint ended remote session %s (%.*s)", w->remote_id,
                          (int)(strcspn(said, "\n") < 200 ? strcspn(said, "\n") : 200), said);
            session_stop(w->session, why);
            free(why);
        }
        free(msg);
    } else {
        char *msg = xasprintf("the WebDriver endpoint %s answered HTTP %ld without a WebDriver "
                              "reply (is it a WebDriver server?)",
                              w->shown, r->status);
        c->fn(w, c->ud, NULL, r->status == 404 ? ERROR_NOT_FOUND : ERROR_TOOL_FAILED, msg);
        free(msg);
    }
    json_decref(doc);
}

static void http_done(void *ud, const struct wd_http_response *r)
{
    struct cmd *c = ud;
    if (c->changing)
        wd_cast_changed(c->w);
    reply(c, r);
    free(c);
}

static void send_request(struct wd *w, const char *method, const char *path, json_t *body,
                         long timeout_ms, bool changing, wd_reply_fn fn, void *ud)
{
    struct cmd *c = xcalloc(1, sizeof *c);
    c->w = w;
    c->fn = fn;
    c->ud = ud;
    c->timeout_ms = timeout_ms;
    c->changing = changing;
    if (changing)
        wd_cast_changing(w);
    if (!body && strcmp(method, "POST") == 0)
        body = json_object();
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    char *url = xasprintf("%s%s", w->base, path);
    w->last_request_ms = uv_now(w->app->loop);
    wd_http_request(w->http, method, url, text, timeout_ms, http_done, c);
    free(url);
    free(text);
}

void wd_request(struct wd *w, const char *method, const char *path, json_t *body, long timeout_ms,
                wd_reply_fn fn, void *ud)
{
    send_request(w, method, path, body, timeout_ms, false, fn, ud);
}

/* A command on the remote session; changing: it may change what the page
 * shows (every command but GETs and the quiet ones). */
static void command(struct wd *w, const char *method, const char *path, json_t *body,
                    long timeout_ms, bool changing, wd_reply_fn fn, void *ud)
{
    /* Switching windows: the DevTools socket is on one tab. */
    if (strcmp(method, "POST") == 0 && strcmp(path, "/window") == 0)
        wd_cast_window(w, json_string_value(json_object_get(body, "handle")));
    char *full = xasprintf("/session/%s%s", w->remote_id, path);
    send_request(w, method, full, body, timeout_ms, changing && strcmp(method, "GET") != 0, fn, ud);
    free(full);
}

void wd_command_within(struct wd *w, const char *method, const char *path, json_t *body,
                       long timeout_ms, wd_reply_fn fn, void *ud)
{
    command(w, method, path, body, timeout_ms, true, fn, ud);
}

void wd_command(struct wd *w, const char *method, const char *path, json_t *body, wd_reply_fn fn,
                void *ud)
{
    command(w, method, path, body, w->timeout_ms, true, fn, ud);
}

void wd_command_quiet(struct wd *w, const char *method, const char *path, json_t *body,
                      wd_reply_fn fn, void *ud)
{
    command(w, method, path, body, w->timeout_ms, false, fn, ud);
}

/* ---- the end ---- */

static void remove_everything(struct wd *w)
{
    pidns_destroy(w->ns);
    w->ns = NULL;
    wd_driver_remove_tmpdir(w);
}

static void really_ended(struct wd *w)
{
    wd_driver_remove_tmpdir(w);
    session_ended(w->session, w->session->end_reason ? w->session->end_reason : "stopped");
}

/* A device farm's session is stopped before ours ends: ended means no
 * billed device is left running. */
static void ended(struct wd *w)
{
    if (!wd_farm_stop(w, really_ended))
        really_ended(w);
}

static void namespace_ended(pid_t pid, int status, void *ud)
{
    (void)pid;
    (void)status;
    struct wd *w = ud;
    w->ns_init = 0;
    if (w->timer_open)
        uv_timer_stop(&w->timer);
    ended(w);
}

static void namespace_late(uv_timer_t *t)
{
    struct wd *w = t->data;
    log_warn("%s: the browser's processes still run %d ms after they were killed; ending the "
             "session without them",
             w->session->id, KILL_AFTER_MS);
    children_forget(w->ns_init);
    w->ns_init = 0;
    ended(w);
}

/* The session ends once the browser has: a Chromium still dying would write
 * into the profile as it is removed, and leave a folder behind. */
static void end_session(struct wd *w)
{
    if (w->timer_open)
        uv_timer_stop(&w->timer);
    if (!w->ns) {
        ended(w);
        return;
    }
    w->ns_init = pidns_init_pid(w->ns);
    /* The timer also keeps the loop, and so a shutdown, waiting for it. */
    if (w->timer_open)
        uv_timer_start(&w->timer, namespace_late, KILL_AFTER_MS, 0);
    children_watch(w->ns_init, namespace_ended, w);
    pidns_destroy(w->ns);
    w->ns = NULL;
}

static void kill_driver(uv_timer_t *t)
{
    struct wd *w = t->data;
    if (!w->driver_alive)
        return;
    log_info("%s: chromedriver still running %d ms after SIGTERM; killing it", w->session->id,
             KILL_AFTER_MS);
    kill(-w->driver_pid, SIGKILL);
    kill(w->driver_pid, SIGKILL);
}

/* The remote session is gone (or was never made): end what glovebox owns. */
static void end_driver(struct wd *w)
{
    if (!w->driver_alive) {
        end_session(w);
        return;
    }
    /* chromedriver ends its browser on SIGTERM; the namespace catches the rest. */
    kill(-w->driver_pid, SIGTERM);
    uv_timer_start(&w->timer, kill_driver, KILL_AFTER_MS, 0);
}

static void deleted(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)ud;
    (void)value;
    (void)code;
    if (err)
        log_info("%s: DELETE of the remote session: %s", w->session->id, err);
    end_driver(w);
}

static void answer_connect(struct wd *w, struct session *s, enum error_code code, const char *err)
{
    webdriver_connected_fn fn = w->connected;
    w->connected = NULL;
    if (fn)
        fn(w->connected_ud, s, code, err);
}

/* A recording's samples use only their own copies: nothing to wait for. */
static void recording_idle(void *ud)
{
    (void)ud;
}

static void webdriver_stop(struct session *s)
{
    struct wd *w = wd_of(s);
    w->stopping = true;
    /* Before the requests are cut off: its sample in flight then ends it. */
    frame_recording_end(&w->rec, recording_idle, NULL);
    if (w->timer_open)
        uv_timer_stop(&w->timer);
    const char *why = s->end_reason ? s->end_reason : "stopped";
    if (w->connected) {
        enum error_code code = w->fail_code ? w->fail_code : ERROR_SESSION_EXPIRED;
        char *msg = w->fail_code
                        ? xstrdup(why)
                        : xasprintf("session %s was stopped before it was ready: %s", s->id, why);
        answer_connect(w, NULL, code, msg);
        free(msg);
    }
    /* Calls in flight hear why now rather than at their time limit. */
    w->abort_code =
        w->driver_pid && !w->driver_alive ? ERROR_DEVICE_UNAVAILABLE : ERROR_SESSION_EXPIRED;
    wd_http_abort_all(w->http, why);
    if (w->remote_id && !w->attached && !w->remote_gone && (!w->driver_pid || w->driver_alive)) {
        char *path = xasprintf("/session/%s", w->remote_id);
        wd_request(w, "DELETE", path, NULL,
                   w->timeout_ms < DELETE_TIMEOUT_MS ? w->timeout_ms : DELETE_TIMEOUT_MS, deleted,
                   NULL);
        free(path);
        return;
    }
    end_driver(w);
}

static void free_wd(struct wd *w)
{
    free(w->base);
    free(w->shown);
    free(w->remote_id);
    free(w->browser);
    free(w->tmpdir);
    free(w->downloads);
    free(w->platform);
    wd_native_forget_refs(w);
    wd_frames_forget(w);
    free(w->credentials_env);
    json_decref(w->capabilities);
    free(w);
}

static void timer_closed(uv_handle_t *h)
{
    free_wd(h->data);
}

static void webdriver_destroy(struct session *s)
{
    struct wd *w = wd_of(s);
    if (!w)
        return;
    s->backend = NULL;
    w->destroyed = true;
    wd_farm_release(w);
    if (w->ns_init)
        children_forget(w->ns_init);
    if (w->driver_alive) {
        /* Only at exit after a failed shutdown: never leave it running. */
        children_forget(w->driver_pid);
        kill(-w->driver_pid, SIGKILL);
    }
    remove_everything(w);
    if (w->downloads)
        webdriver_downloads_remove(w->app, s->id);
    wd_http_destroy(w->http);
    w->http = NULL;
    wd_cast_destroy(w);
    /* At exit the server has closed every handle already, and the loop is
     * gone: nothing refers to the timer any more. */
    if (uv_is_closing((uv_handle_t *)&w->timer))
        free_wd(w);
    else
        uv_close((uv_handle_t *)&w->timer, timer_closed);
}

static json_t *webdriver_describe(struct session *s)
{
    struct wd *w = wd_of(s);
    json_t *o = json_pack("{s:s, s:b}", "url", w->shown, "owned", w->driver_pid != 0);
    if (w->remote_id)
        json_object_set_new(o, "remote_session", json_string(w->remote_id));
    if (w->browser)
        json_object_set_new(o, "browser", json_string(w->browser));
    if (w->native)
        json_object_set_new(o, "native_app", json_true());
    if (w->attached)
        json_object_set_new(o, "attached", json_true());
    if (w->credentials_env)
        json_object_set_new(o, "credentials_env", json_string(w->credentials_env));
    if (w->driver_alive)
        json_object_set_new(o, "driver_pid", json_integer(w->driver_pid));
    if (w->width > 0 && w->height > 0) {
        json_object_set_new(o, "width", json_integer(w->width));
        json_object_set_new(o, "height", json_integer(w->height));
    }
    return o;
}

/* ---- connecting ---- */

/* Ends the start: the session stops with msg as its reason and connected
 * hears code and msg (webdriver_stop). */
void wd_fail_start(struct wd *w, enum error_code code, const char *msg)
{
    w->fail_code = code;
    session_stop(w->session, msg);
}

static void driver_exited(pid_t pid, int status, void *ud)
{
    (void)pid;
    struct wd *w = ud;
    w->driver_alive = false;
    w->driver_status = status;
    if (w->stopping) {
        if (w->timer_open)
            uv_timer_stop(&w->timer);
        /* Whatever request was still going to it will not be answered. */
        wd_http_abort_all(w->http, "chromedriver exited");
        if (w->session->state == SESSION_STOPPING)
            end_session(w);
        return;
    }
    char *why = WIFSIGNALED(status)
                    ? xasprintf("chromedriver was killed by signal %d", WTERMSIG(status))
                    : xasprintf("chromedriver exited with status %d", WEXITSTATUS(status));
    log_warn("%s: %s; ending the session", w->session->id, why);
    if (w->connected)
        wd_fail_start(w, ERROR_DEVICE_UNAVAILABLE, why);
    else
        session_stop(w->session, why);
    free(why);
}

static void kept_alive(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)ud;
    (void)value;
    (void)code;
    /* An ended remote session has ended ours already (reply). */
    if (err && !w->stopping)
        log_info("%s: keep-alive: %s", w->session->id, err);
}

/* Idle for keepalive_ms: one cheap command (GET …/timeouts); otherwise
 * look again when that much time will have passed since the last one. */
static void keepalive_tick(uv_timer_t *t)
{
    struct wd *w = t->data;
    if (w->stopping)
        return;
    uint64_t idle = uv_now(w->app->loop) - w->last_request_ms;
    if (idle >= w->keepalive_ms) {
        wd_command(w, "GET", "/timeouts", NULL, kept_alive, NULL);
        idle = 0;
    }
    uv_timer_start(&w->timer, keepalive_tick, w->keepalive_ms - idle, 0);
}

static void set_live(struct wd *w)
{
    json_decref(w->capabilities);
    w->capabilities = NULL;
    session_set_live(w->session);
    if (w->keepalive_ms && w->timer_open)
        uv_timer_start(&w->timer, keepalive_tick, w->keepalive_ms, 0);
    log_info("%s: connected to %s (remote session %s)", w->session->id, w->shown, w->remote_id);
    answer_connect(w, w->session, 0, NULL);
}

static void attached(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)ud;
    (void)value;
    if (w->stopping)
        return;
    if (err) {
        char *msg = xasprintf("cannot attach to remote session \"%s\": %s", w->remote_id, err);
        wd_fail_start(w, code == ERROR_SESSION_EXPIRED ? ERROR_NOT_FOUND : code, msg);
        free(msg);
        return;
    }
    set_live(w);
}

static void got_rect(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)ud;
    (void)code;
    if (w->stopping)
        return;
    json_int_t width = json_integer_value(json_object_get(value, "width"));
    json_int_t height = json_integer_value(json_object_get(value, "height"));
    /* No size (an old driver): the first screenshot's is used. */
    if (!err && width > 0 && height > 0 && width <= 16384 && height <= 16384) {
        w->width = (int)width;
        w->height = (int)height;
    }
    set_live(w);
}

static void downloads_allowed(struct wd *w, void *ud, json_t *value, enum error_code code,
                              const char *err)
{
    (void)ud;
    (void)value;
    (void)code;
    if (w->stopping)
        return;
    if (err)
        log_warn("%s: downloads may not be saved: %s", w->session->id, err);
    set_live(w);
}

static void created(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)ud;
    if (w->stopping)
        return;
    if (err) {
        char *msg = xasprintf("cannot create a WebDriver session: %s", err);
        wd_fail_start(w, code, msg);
        free(msg);
        return;
    }
    const char *id = json_string_value(json_object_get(value, "sessionId"));
    if (!id || !*id) {
        wd_fail_start(w, ERROR_TOOL_FAILED,
                      "the WebDriver endpoint answered the new session "
                      "without a sessionId");
        return;
    }
    w->remote_id = xstrdup(id);
    const json_t *caps = json_object_get(value, "capabilities");
    const char *name = json_string_value(json_object_get(caps, "browserName"));
    const char *version = json_string_value(json_object_get(caps, "browserVersion"));
    if (!name)
        name = json_string_value(json_object_get(caps, "platformName"));
    if (name)
        w->browser = version ? xasprintf("%s %s", name, version) : xstrdup(name);
    /* Appium on a phone's own apps, not its browser: elements come from
     * the page source, the pointer is a finger. */
    const char *platform = json_string_value(json_object_get(caps, "platformName"));
    const char *browser = json_string_value(json_object_get(caps, "browserName"));
    if (platform && *platform && (!browser || !*browser)) {
        w->native = true;
        w->platform = xstrdup(platform);
        for (char *p = w->platform; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        /* The device's screen, which points are checked against. */
        wd_command(w, "GET", "/window/rect", NULL, got_rect, NULL);
        return;
    }
    wd_cast_init(w, caps);
    if (w->downloads) {
        /* Headless Chromium ignores the download prefs unless told
         * through DevTools that downloads are allowed, and where. */
        wd_command(w, "POST", "/goog/cdp/execute",
                   json_pack("{s:s, s:{s:s, s:s}}", "cmd", "Browser.setDownloadBehavior", "params",
                             "behavior", "allow", "downloadPath", w->downloads),
                   downloads_allowed, NULL);
        return;
    }
    set_live(w);
}

/* W3C new session: the caller's capabilities in alwaysMatch; for a browser
 * glovebox starts, its program and the arguments that keep it headless and
 * private. */
static json_t *new_session_body(struct wd *w)
{
    json_t *always = w->capabilities ? json_deep_copy(w->capabilities) : json_object();
    if (w->driver_pid) {
        if (!json_object_get(always, "browserName"))
            json_object_set_new(always, "browserName", json_string("chrome"));
        json_t *opts = json_object_get(always, "goog:chromeOptions");
        if (!json_is_object(opts)) {
            opts = json_object();
            json_object_set_new(always, "goog:chromeOptions", opts);
        }
        json_t *args = json_object_get(opts, "args");
        if (!json_is_array(args)) {
            args = json_array();
            json_object_set_new(opts, "args", args);
        }
        json_t *ours = wd_driver_chrome_args(w);
        json_array_extend(args, ours);
        json_decref(ours);
        if (!json_object_get(opts, "binary") && wd_driver_chromium())
            json_object_set_new(opts, "binary", json_string(wd_driver_chromium()));
        /* Downloads land in the data folder, without asking. */
        char *err = NULL;
        if (!w->downloads)
            w->downloads = webdriver_downloads_prepare(w->app, w->session->id, &err);
        if (!w->downloads) {
            log_warn("%s: downloads will not be saved: %s", w->session->id, err);
            free(err);
        } else if (!json_object_get(opts, "prefs")) {
            json_object_set_new(opts, "prefs",
                                json_pack("{s:s, s:s, s:b, s:b}", "download.default_directory",
                                          w->downloads, "savefile.default_directory", w->downloads,
                                          "download.prompt_for_download", false,
                                          "download.directory_upgrade", true));
        }
        /* Everything the console says, for browser_logs. */
        if (!json_object_get(always, "goog:loggingPrefs"))
            json_object_set_new(always, "goog:loggingPrefs", json_pack("{s:s}", "browser", "ALL"));
    }
    return json_pack("{s:{s:o, s:[{}]}}", "capabilities", "alwaysMatch", always, "firstMatch");
}

static void begin_session(struct wd *w)
{
    if (w->remote_id) {
        wd_command(w, "GET", "/timeouts", NULL, attached, NULL);
        return;
    }
    wd_request(w, "POST", "/session", new_session_body(w), w->timeout_ms, created, NULL);
}

static char *trimmed_base(const char *url);

void wd_farm_running(struct wd *w, const char *endpoint)
{
    w->base = trimmed_base(endpoint);
    free(w->shown);
    w->shown = wd_url_display(w->base);
    begin_session(w);
}

void wd_progress(struct wd *w, const char *message)
{
    if (w->progress && w->connected)
        w->progress(w->connected_ud, message);
}

static void poll_status(uv_timer_t *t);

static void status_answered(struct wd *w, void *ud, json_t *value, enum error_code code,
                            const char *err)
{
    (void)ud;
    (void)code;
    if (w->stopping)
        return;
    if (!err && json_is_true(json_object_get(value, "ready"))) {
        begin_session(w);
        return;
    }
    if (++w->status_tries >= STATUS_TRIES) {
        char *msg = xasprintf("chromedriver did not become ready within %d ms%s%s",
                              STATUS_EVERY_MS * STATUS_TRIES, err ? ": " : "", err ? err : "");
        wd_fail_start(w, ERROR_DEVICE_UNAVAILABLE, msg);
        free(msg);
        return;
    }
    uv_timer_start(&w->timer, poll_status, STATUS_EVERY_MS, 0);
}

static void poll_status(uv_timer_t *t)
{
    struct wd *w = t->data;
    wd_request(w, "GET", "/status", NULL, 2000, status_answered, NULL);
}

static char *trimmed_base(const char *url)
{
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        n--;
    return xstrndup(url, n);
}

void wd_connect(struct app *app, const struct webdriver_options *o, webdriver_connected_fn done,
                void *ud)
{
    struct wd *w = xcalloc(1, sizeof *w);
    w->app = app;
    w->connected = done;
    w->connected_ud = ud;
    w->timeout_ms = o->timeout_ms;
    w->credentials_env = o->credentials_env ? xstrdup(o->credentials_env) : NULL;
    /* The browser glovebox owns has no idle limit of its own. */
    w->keepalive_ms = o->keepalive_s >= 0 ? (uint64_t)o->keepalive_s * 1000
                      : o->url            ? KEEPALIVE_DEFAULT_MS
                                          : 0;
    w->width = o->width;
    w->height = o->height;
    w->capabilities = o->capabilities ? json_deep_copy(o->capabilities) : NULL;
    w->http = wd_http_create(app->loop);
    uv_timer_init(app->loop, &w->timer);
    w->timer.data = w;
    w->timer_open = true;
    w->session = session_add(app->sessions, &webdriver_impl, o->name, o->client);
    w->session->backend = w;
    if (o->attach) {
        w->remote_id = xstrdup(o->attach);
        w->attached = true;
    }
    w->progress = o->progress;
    if (o->farm) {
        w->shown = xstrdup("AWS Device Farm");
        char *err = NULL;
        if (!wd_farm_start(w, o->farm, &err)) {
            wd_fail_start(w, ERROR_INVALID_ARGUMENT, err);
            free(err);
        }
        return;
    }
    if (o->url) {
        w->base = trimmed_base(o->url);
        w->shown = wd_url_display(w->base);
        begin_session(w);
        return;
    }
    char *err = NULL;
    if (!wd_driver_spawn(w, &err)) {
        w->shown = xstrdup("(chromedriver)");
        wd_fail_start(w, ERROR_DEVICE_UNAVAILABLE, err);
        free(err);
        return;
    }
    w->base = xasprintf("http://127.0.0.1:%d", w->port);
    w->shown = xstrdup(w->base);
    w->driver_alive = true;
    children_watch(w->driver_pid, driver_exited, w);
    log_info("%s: started chromedriver (pid %d) on port %d", w->session->id, (int)w->driver_pid,
             w->port);
    uv_timer_start(&w->timer, poll_status, STATUS_EVERY_MS, 0);
}

static const struct backend_impl webdriver_impl = {
    .kind = "webdriver",
    .stop = webdriver_stop,
    .destroy = webdriver_destroy,
    .describe = webdriver_describe,
    .screenshot = wd_screenshot_op,
    .capture = wd_screenshot_op,
    .click = wd_click_op,
    .type_text = wd_type_text_op,
    .press_key = wd_press_key_op,
    .scroll = wd_scroll_op,
    .drag = wd_drag_op,
    .snapshot = wd_snapshot_op,
    .find = wd_find_op,
    .wait_for = wd_wait_for_op,
    .record_start = wd_record_start_op,
    .window_list = wd_window_list_op,
    .browser_logs = wd_browser_logs_op,
    .press_button = wd_press_button_op,
    .app_launch = wd_app_launch_op,
    .storage_save = wd_storage_save_op,
    .storage_load = wd_storage_load_op,
    .upload_file = wd_upload_file_op,
    .window_manage = wd_window_manage_op,
    .record_stop = wd_record_stop_op,
    .pointer = wd_pointer_op,
    .key_hold = wd_key_hold_op,
    .read_text = wd_read_text_op,
    .open_url = wd_open_url_op,
};
