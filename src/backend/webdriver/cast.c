/* The browser glovebox started, through its own DevTools socket as well as
 * chromedriver: chromedriver costs a few ms per command (a Runtime.evaluate
 * on the socket under 1 ms), and a capture ~50 ms whichever way it is
 * asked for (Chromium draws a frame for it; docs/BENCHMARKS.md, WebDriver).
 *
 * So a screenshot of a page that has not changed since the last capture is
 * that capture again. What "not changed" means: no command that may
 * change the page (every one but GETs and the quiet ones) ended or is in
 * flight since the capture was asked for, and the page did not change by
 * itself either — for that the browser runs a screencast from the first
 * screenshot on: it sends a JPEG frame each time it draws, and a frame
 * whose bytes differ from the one before means the picture changed. Each
 * such event moves `epoch` on, and a capture serves only for the epoch it
 * was asked in. Frames are never shown themselves. A static page sends no
 * frame after a command's own: SETTLE_MS after a command, the page is
 * captured on the socket in the background, ready for the screenshot that
 * usually follows. The socket is on one tab: while the commands go to
 * another one, they go through chromedriver. */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/cdp.h"
#include "backend/webdriver/http.h"
#include "backend/webdriver/internal.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

/* The background capture this long after a page-changing command. */
#define SETTLE_MS 100
/* The screencast's JPEG quality: high enough that any change the eye sees
 * changes the bytes; its frames only say that something changed. */
#define CAST_QUALITY 90
/* A script over DevTools that takes longer falls back to chromedriver. */
#define SCRIPT_TIMEOUT_MS 3000

enum cast_state { CAST_IDLE, CAST_LISTING, CAST_OPEN, CAST_OFF };

struct wd_cast {
    struct wd *w;
    int port; /* the browser's DevTools port on loopback */
    enum cast_state state;
    struct wd_cdp *cdp;
    bool casting;        /* Page.startScreencast answered */
    unsigned long epoch; /* moved on by each change of the page */
    int changing;        /* page-changing commands in flight */
    char *last_frame;    /* the screencast's latest frame (JPEG, base64) */
    char *picture;       /* the latest capture (PNG, base64) */
    unsigned long picture_epoch;
    bool dialog;    /* an alert, confirm or prompt is open */
    char *handle;   /* the window glovebox's socket is on */
    bool elsewhere; /* the commands go to another window */
    uv_timer_t settle;
    bool capturing; /* the background capture is in flight */
    /* Frames in processes of their own, attached as targets: {target id
     * (= frame id): session id}. */
    json_t *targets;
    bool enabled; /* Page.enable and the auto-attach sent */
};

void wd_cast_init(struct wd *w, const json_t *caps)
{
    const char *addr = json_string_value(
        json_object_get(json_object_get(caps, "goog:chromeOptions"), "debuggerAddress"));
    const char *colon = addr ? strrchr(addr, ':') : NULL;
    /* Only the browser glovebox started, on this machine. */
    if (!w->driver_pid || w->native || !colon ||
        (strncmp(addr, "localhost:", 10) != 0 && strncmp(addr, "127.0.0.1:", 10) != 0))
        return;
    int port = atoi(colon + 1);
    if (port <= 0 || port > 65535)
        return;
    w->cast = xcalloc(1, sizeof *w->cast);
    w->cast->w = w;
    w->cast->port = port;
    uv_timer_init(w->app->loop, &w->cast->settle);
    w->cast->settle.data = w->cast;
    uv_unref((uv_handle_t *)&w->cast->settle);
}

static void off(struct wd_cast *c)
{
    c->state = CAST_OFF;
    wd_cdp_close(c->cdp);
    c->cdp = NULL;
    free(c->picture);
    c->picture = NULL;
    free(c->last_frame);
    c->last_frame = NULL;
}

static void cast_free(uv_handle_t *h)
{
    struct wd_cast *c = h->data;
    json_decref(c->targets);
    free(c->handle);
    free(c);
}

void wd_cast_destroy(struct wd *w)
{
    struct wd_cast *c = w->cast;
    if (!c)
        return;
    w->cast = NULL;
    off(c);
    /* At exit the server has closed every handle already. */
    if (uv_is_closing((uv_handle_t *)&c->settle))
        cast_free((uv_handle_t *)&c->settle);
    else
        uv_close((uv_handle_t *)&c->settle, cast_free);
}

void wd_cast_changing(struct wd *w)
{
    if (w->cast)
        w->cast->changing++;
}

/* The socket is there for the tab the commands go to. */
static bool usable(const struct wd_cast *c)
{
    return c->state == CAST_OPEN && wd_cdp_ready(c->cdp) && !c->dialog && !c->elsewhere;
}

struct capture {
    struct wd_cast *c;
    unsigned long epoch; /* when it was asked for */
    wd_reply_fn fn;      /* the screenshot's, or NULL */
    void *ud;
};

static void captured(void *ud, json_t *result, const char *err)
{
    struct capture *k = ud;
    struct wd_cast *c = k->c;
    const char *data = json_string_value(json_object_get(result, "data"));
    if (!k->fn)
        c->capturing = false;
    /* Kept when nothing changed while it was taken. */
    if (!err && data && c->state == CAST_OPEN && k->epoch == c->epoch && !c->changing) {
        free(c->picture);
        c->picture = xstrdup(data);
        c->picture_epoch = k->epoch;
    }
    if (k->fn) {
        if (!err && data)
            k->fn(c->w, k->ud, json_object_get(result, "data"), 0, NULL);
        else if (c->w->destroyed || c->w->stopping)
            k->fn(c->w, k->ud, NULL, c->w->abort_code ? c->w->abort_code : ERROR_DEVICE_UNAVAILABLE,
                  "the session ended");
        else /* chromedriver says why */
            wd_command_quiet(c->w, "GET", "/screenshot", NULL, k->fn, k->ud);
    }
    free(k);
}

static void capture(struct wd_cast *c, wd_reply_fn fn, void *ud)
{
    struct capture *k = xcalloc(1, sizeof *k);
    k->c = c;
    k->epoch = c->epoch;
    k->fn = fn;
    k->ud = ud;
    wd_cdp_call(c->cdp, "Page.captureScreenshot",
                json_pack("{s:s, s:b}", "format", "png", "optimizeForSpeed", 1), SCRIPT_TIMEOUT_MS,
                captured, k);
}

static bool fresh(const struct wd_cast *c)
{
    return c->picture && c->picture_epoch == c->epoch && !c->changing;
}

static void settled(uv_timer_t *t)
{
    struct wd_cast *c = t->data;
    if (!usable(c) || !c->casting || c->changing || c->capturing || fresh(c))
        return;
    c->capturing = true;
    capture(c, NULL, NULL);
}

void wd_cast_changed(struct wd *w)
{
    struct wd_cast *c = w->cast;
    if (!c)
        return;
    c->changing--;
    c->epoch++;
    if (c->casting && c->state == CAST_OPEN && !c->changing)
        uv_timer_start(&c->settle, settled, SETTLE_MS, 0);
}

void wd_cast_window(struct wd *w, const char *handle)
{
    struct wd_cast *c = w->cast;
    if (!c || c->state == CAST_OFF)
        return;
    /* Before the socket knows its tab, another one cannot be told apart. */
    if (!handle || !c->handle) {
        off(c);
        return;
    }
    c->elsewhere = strcmp(handle, c->handle) != 0;
}

static json_t *auto_attach(void)
{
    return json_pack("{s:b, s:b, s:b}", "autoAttach", 1, "waitForDebuggerOnStart", 0, "flatten", 1);
}

static void event(void *ud, const char *method, json_t *params)
{
    struct wd_cast *c = ud;
    if (!method) {
        /* The socket is gone (the tab closed, the browser ended). */
        off(c);
        return;
    }
    if (strcmp(method, "Page.screencastFrame") == 0) {
        const char *data = json_string_value(json_object_get(params, "data"));
        if (data && (!c->last_frame || strcmp(data, c->last_frame) != 0)) {
            free(c->last_frame);
            c->last_frame = xstrdup(data);
            c->epoch++;
        }
        /* Unacknowledged, the browser sends no more frames. */
        wd_cdp_call(c->cdp, "Page.screencastFrameAck",
                    json_pack("{s:O}", "sessionId", json_object_get(params, "sessionId")),
                    SCRIPT_TIMEOUT_MS, NULL, NULL);
    } else if (strcmp(method, "Target.attachedToTarget") == 0) {
        const json_t *info = json_object_get(params, "targetInfo");
        const char *session = json_string_value(json_object_get(params, "sessionId"));
        const char *id = json_string_value(json_object_get(info, "targetId"));
        const char *type = json_string_value(json_object_get(info, "type"));
        if (session && id && type && strcmp(type, "iframe") == 0 &&
            json_object_size(c->targets) < 256) {
            json_object_set_new(c->targets, id, json_string(session));
            /* Its own frames of other sites are targets of its session. */
            wd_cdp_call_in(c->cdp, session, "Target.setAutoAttach", auto_attach(),
                           SCRIPT_TIMEOUT_MS, NULL, NULL);
        }
    } else if (strcmp(method, "Target.detachedFromTarget") == 0) {
        const char *session = json_string_value(json_object_get(params, "sessionId"));
        const char *key;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(c->targets, tmp, key, v)
        {
            if (session && strcmp(json_string_value(v), session) == 0)
                json_object_del(c->targets, key);
        }
    } else if (strcmp(method, "Page.javascriptDialogOpening") == 0) {
        c->dialog = true;
    } else if (strcmp(method, "Page.javascriptDialogClosed") == 0) {
        c->dialog = false;
        c->epoch++;
    }
}

static void casting(void *ud, json_t *result, const char *err)
{
    (void)result;
    struct wd_cast *c = ud;
    if (!err)
        c->casting = true;
}

/* The page target whose id is the window glovebox's commands go to. */
static void got_targets(void *ud, const struct wd_http_response *r)
{
    struct wd_cast *c = ud;
    if (c->state != CAST_LISTING)
        return;
    json_t *list = r->body && r->status == 200 ? json_loadb(r->body, r->len, 0, NULL) : NULL;
    const char *ws = NULL;
    size_t i;
    json_t *t;
    json_array_foreach(list, i, t)
    {
        const char *id = json_string_value(json_object_get(t, "id"));
        const char *type = json_string_value(json_object_get(t, "type"));
        if (id && type && strcmp(type, "page") == 0 && strcmp(id, c->handle) == 0)
            ws = json_string_value(json_object_get(t, "webSocketDebuggerUrl"));
    }
    /* ws://127.0.0.1:port/devtools/page/<id>: the path is what is asked. */
    const char *path = ws ? strstr(ws, "/devtools/") : NULL;
    if (!path) {
        json_decref(list);
        off(c);
        return;
    }
    c->cdp = wd_cdp_open(c->w->app->loop, c->port, path, event, c);
    json_decref(list);
    c->state = CAST_OPEN;
    c->enabled = false;
}

static void got_handle(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)code;
    (void)ud;
    struct wd_cast *c = w->cast;
    if (!c || c->state != CAST_LISTING)
        return;
    if (err || !json_is_string(value)) {
        off(c);
        return;
    }
    c->handle = xstrdup(json_string_value(value));
    char *url = xasprintf("http://127.0.0.1:%d/json/list", c->port);
    wd_http_request(w->http, "GET", url, NULL, SCRIPT_TIMEOUT_MS, got_targets, c);
    free(url);
}

/* Opens the socket in the background: the calls until it is open go
 * through chromedriver. */
static void start(struct wd_cast *c)
{
    c->state = CAST_LISTING;
    wd_command(c->w, "GET", "/window", NULL, got_handle, NULL);
}

/* A socket that is open: the screencast is started once asked for. */
static bool open_socket(struct wd *w)
{
    struct wd_cast *c = w->cast;
    if (!c)
        return false;
    if (c->state == CAST_IDLE)
        start(c);
    if (c->state == CAST_OPEN && !c->enabled && wd_cdp_ready(c->cdp)) {
        /* Once the socket is open (commands sent before are refused). */
        c->enabled = true;
        wd_cdp_call(c->cdp, "Page.enable", NULL, SCRIPT_TIMEOUT_MS, NULL, NULL);
        /* Cross-site frames run in processes of their own: attached, their
         * sessions let snapshots into them (frames.c). */
        json_decref(c->targets);
        c->targets = json_object();
        wd_cdp_call(c->cdp, "Target.setAutoAttach", auto_attach(), SCRIPT_TIMEOUT_MS, NULL, NULL);
    }
    return c->state == CAST_OPEN && wd_cdp_ready(c->cdp) && !c->dialog && !c->elsewhere;
}

const char *wd_cast_frame(struct wd *w)
{
    if (!open_socket(w))
        return NULL;
    struct wd_cast *c = w->cast;
    if (!c->casting) {
        wd_cdp_call(c->cdp, "Page.startScreencast",
                    json_pack("{s:s, s:i}", "format", "jpeg", "quality", CAST_QUALITY),
                    SCRIPT_TIMEOUT_MS, casting, c);
        return NULL;
    }
    return fresh(c) ? c->picture : NULL;
}

bool wd_cast_capture(struct wd *w, wd_reply_fn fn, void *ud)
{
    if (!open_socket(w))
        return false;
    capture(w->cast, fn, ud);
    return true;
}

/* ---- scripts: Runtime.evaluate on the socket, else execute/sync ---- */

struct script {
    struct wd *w;
    char *source;
    json_t *args;
    wd_reply_fn fn;
    void *ud;
};

static void script_free(struct script *s)
{
    free(s->source);
    json_decref(s->args);
    free(s);
}

static void through_driver(struct script *s)
{
    wd_command_quiet(s->w, "POST", "/execute/sync",
                     json_pack("{s:s, s:O}", "script", s->source, "args", s->args), s->fn, s->ud);
    script_free(s);
}

static void evaluated(void *ud, json_t *result, const char *err)
{
    struct script *s = ud;
    if (s->w->destroyed || s->w->stopping) {
        s->fn(s->w, s->ud, NULL, s->w->abort_code ? s->w->abort_code : ERROR_DEVICE_UNAVAILABLE,
              "the session ended");
        script_free(s);
        return;
    }
    /* A page that threw, or a socket that went: chromedriver says why. */
    if (err || json_object_get(result, "exceptionDetails")) {
        through_driver(s);
        return;
    }
    json_t *value = json_object_get(json_object_get(result, "result"), "value");
    s->fn(s->w, s->ud, value ? value : json_null(), 0, NULL);
    script_free(s);
}

void wd_script(struct wd *w, const char *source, json_t *args, wd_reply_fn fn, void *ud)
{
    struct script *s = xcalloc(1, sizeof *s);
    s->w = w;
    s->source = xstrdup(source);
    s->args = args;
    s->fn = fn;
    s->ud = ud;
    if (!open_socket(w)) {
        through_driver(s);
        return;
    }
    char *list = json_dumps(args, JSON_COMPACT | JSON_ENCODE_ANY);
    char *expr = xasprintf("(function(){%s}).apply(null,%s)", source, list);
    free(list);
    wd_cdp_call(w->cast->cdp, "Runtime.evaluate",
                json_pack("{s:s, s:b}", "expression", expr, "returnByValue", 1), SCRIPT_TIMEOUT_MS,
                evaluated, s);
    free(expr);
}

struct wd_cdp *wd_cast_cdp(struct wd *w)
{
    return open_socket(w) ? w->cast->cdp : NULL;
}

const char *wd_cast_frame_session(struct wd *w, const char *frame_id)
{
    if (!open_socket(w))
        return NULL;
    return json_string_value(json_object_get(w->cast->targets, frame_id));
}
