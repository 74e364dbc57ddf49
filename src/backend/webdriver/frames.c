/* Cross-origin iframes: the page's script cannot look into them, so
 * glovebox enters each one with W3C frame switching (POST /frame with the
 * iframe element, POST /frame/parent back), runs the same script there and
 * splices what it found into the page's answer where the iframe is.
 *
 * Frame switching rather than the browser's DevTools: it works on every
 * endpoint (chromedriver, grids, farms), and the frame's refs then live in
 * the frame's own page (window.__glovebox_refs of its main world), which is
 * where execute/sync runs once switched in — so click, type_text, wait_for
 * and scope reach them the same way on every endpoint. Actions themselves
 * are sent from the top at the element's top-page position (W3C pointer
 * actions are in the top viewport); a field focused inside the frame gets
 * the keys.
 *
 * Frames are numbered per session (w->frames: f1 = [0]), each by the
 * iframe's W3C element reference and the frame it sits in, so the path
 * from the top can be walked again for a ref like "f2e7". A page snapshot
 * or find numbers them afresh. Entering a frame is a session-wide state of
 * the endpoint: glovebox always goes back to the top before answering.
 *
 * A screenshot walks the frames the same way to find their password
 * fields (wd_frames_secrets), in a map of its own so the snapshot's frame
 * numbers stay; and in the owned browser a frame's DevTools session can
 * be looked up for a ref's frame (wd_frame_session, upload_file). */
#include "backend/webdriver/cdp.h"
#include "backend/webdriver/internal.h"

#include "core/xmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Frames one session numbers, and how deep they nest: beyond, a frame is
 * left out (each costs a few requests per snapshot). */
#define MAX_FRAMES  64
#define MAX_NESTING 8
/* A DevTools call in the walk that takes longer falls back to nothing. */
#define CDP_TIMEOUT_MS 3000

/* Frame arguments[0]'s iframe, in the page of the frame it sits in; kept
 * in window[arguments[1]] (a snapshot's frames when not given). */
static const char IFRAME_SCRIPT[] =
    "var m=window[arguments[1]||'__glovebox_frames'],f=m&&m.get(arguments[0]);"
    "return f&&f.isConnected?f:null;";
/* Where a screenshot's walk keeps the iframes it enters (numbered afresh
 * in each page or frame by each screenshot; SECRETS_SCRIPT, shot.c). */
#define SHOT_MAP "__glovebox_shot_frames"

/* IFRAME_SCRIPT as an expression for Runtime.evaluate (malloc'd). */
static char *iframe_expr(const char *map, int n)
{
    return xasprintf("(function(){var m=window.%s,f=m&&m.get(%d);"
                     "return f&&f.isConnected?f:null;})()",
                     map, n);
}

/* The top-page position of frame arguments[0]'s viewport, from its iframe
 * in the context glovebox is in: the element's box, its border and
 * padding, and the same-origin frames it sits in. */
static const char ORIGIN_SCRIPT[] =
    "var m=window.__glovebox_frames,f=m&&m.get(arguments[0]),x=0,y=0;if(!f||!f.isConnected)"
    "return null;while(f){var v=f.ownerDocument.defaultView,"
    "r=f.getBoundingClientRect(),s=v.getComputedStyle(f);"
    "x+=r.left+f.clientLeft+parseFloat(s.paddingLeft);y+=r.top+f.clientTop+parseFloat(s.paddingTop)"
    ";"
    "try{f=v.frameElement;}catch(e){f=null;}}return [x,y];";

int wd_ref_frame(const char *ref)
{
    const char *p = ref;
    int frame = 0;
    if (*p == 'f') {
        char *end;
        long n = strtol(p + 1, &end, 10);
        if (end == p + 1 || p[1] == '0' || n > MAX_FRAMES)
            return -1;
        frame = (int)n;
        p = end;
    }
    if (p[0] != 'e' || p[1] < '1' || p[1] > '9' || strlen(p) > 10)
        return -1;
    for (p += 2; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    return frame;
}

void wd_frames_forget(struct wd *w)
{
    json_decref(w->frames);
    w->frames = NULL;
}

int wd_frames_next(const struct wd *w)
{
    return (int)json_array_size(w->frames) + 1;
}

/* The frame frame n's iframe is in (0: the top), or -1 when n is unknown. */
static int parent_of(const struct wd *w, int n)
{
    const json_t *p = n > 0 ? json_array_get(w->frames, (size_t)n - 1) : NULL;
    return p ? (int)json_integer_value(p) : -1;
}

/* Frame n, whose iframe is in frame parent, as a page numbered it; false
 * when the number does not follow on (or there are too many). */
static bool frame_register(struct wd *w, int parent, int n)
{
    if (!w->frames)
        w->frames = json_array();
    size_t size = json_array_size(w->frames);
    if (n >= 1 && (size_t)n <= size)
        return json_array_set_new(w->frames, (size_t)n - 1, json_integer(parent)) == 0;
    if ((size_t)n != size + 1 || n > MAX_FRAMES)
        return false;
    json_array_append_new(w->frames, json_integer(parent));
    return true;
}

/* Frame n's ancestors, outermost first (n last). */
static size_t frame_path(const struct wd *w, int n, int path[MAX_NESTING + 1])
{
    size_t len = 0;
    for (int p = parent_of(w, n); p >= 0 && len <= MAX_NESTING; p = parent_of(w, n)) {
        path[len++] = n;
        n = p;
    }
    for (size_t i = 0; i < len / 2; i++) {
        int t = path[i];
        path[i] = path[len - 1 - i];
        path[len - 1 - i] = t;
    }
    return len;
}

static void ignore(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w, (void)ud, (void)value, (void)code, (void)err;
}

void wd_frame_top(struct wd *w)
{
    wd_command_quiet(w, "POST", "/frame", json_pack("{s:n}", "id"), ignore, NULL);
}

/* ---- into a frame and back ---- */

struct move {
    struct wd *w;
    int path[MAX_NESTING + 1];
    size_t len, at;
    double dx, dy;
    wd_frame_fn fn;
    void *ud;
    json_t *value; /* the command's answer, for wd_frame_command */
    char *method, *cmd_path;
    json_t *body;
    long timeout_ms;
};

static void move_free(struct move *m)
{
    json_decref(m->value);
    json_decref(m->body);
    free(m->method);
    free(m->cmd_path);
    free(m);
}

/* The move ends with code and err: back at the top first. */
static void move_fail(struct move *m, enum error_code code, const char *err)
{
    if (code != ERROR_DEVICE_UNAVAILABLE && code != ERROR_SESSION_EXPIRED)
        wd_frame_top(m->w);
    m->fn(m->w, m->ud, NULL, 0, 0, code, err);
    move_free(m);
}

static void enter_next(struct move *m);

static void entered_one(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    (void)w, (void)value;
    struct move *m = ud;
    if (err) {
        move_fail(m,
                  code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED
                      ? code
                      : ERROR_NOT_FOUND,
                  err);
        return;
    }
    m->at++;
    enter_next(m);
}

static void got_iframe(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct move *m = ud;
    if (err || !json_is_object(value)) {
        /* The iframe left the page, or the page navigated. */
        move_fail(m, err ? code : ERROR_NOT_FOUND, err ? err : "the frame left the page");
        return;
    }
    wd_command_quiet(w, "POST", "/frame", json_pack("{s:O}", "id", value), entered_one, m);
}

static void enter_next(struct move *m)
{
    if (m->at == m->len) {
        m->fn(m->w, m->ud, NULL, 0, 0, 0, NULL);
        move_free(m);
        return;
    }
    wd_command_quiet(m->w, "POST", "/execute/sync",
                     json_pack("{s:s, s:[i]}", "script", IFRAME_SCRIPT, "args", m->path[m->at]),
                     got_iframe, m);
}

static void at_top(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w, (void)value;
    struct move *m = ud;
    if (err) {
        move_fail(m, code, err);
        return;
    }
    enter_next(m);
}

static struct move *move_new(struct wd *w, int n, wd_frame_fn fn, void *ud)
{
    struct move *m = xcalloc(1, sizeof *m);
    m->w = w;
    m->fn = fn;
    m->ud = ud;
    m->len = frame_path(w, n, m->path);
    return m;
}

void wd_frame_enter(struct wd *w, int n, wd_frame_fn fn, void *ud)
{
    struct move *m = move_new(w, n, fn, ud);
    if (m->len == 0) {
        move_free(m);
        fn(w, ud, NULL, 0, 0, ERROR_NOT_FOUND,
           "the frame is not known (take a new snapshot or find)");
        return;
    }
    /* From the top, whatever an earlier call left. */
    wd_command_quiet(w, "POST", "/frame", json_pack("{s:n}", "id"), at_top, m);
}

static void leave_next(struct move *m);

static void got_origin(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct move *m = ud;
    if (err || json_array_size(value) != 2) {
        move_fail(m, err ? code : ERROR_NOT_FOUND, err ? err : "the frame left the page");
        return;
    }
    m->dx += json_number_value(json_array_get(value, 0));
    m->dy += json_number_value(json_array_get(value, 1));
    leave_next(m);
}

static void left_one(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)value;
    struct move *m = ud;
    if (err) {
        move_fail(m, code, err);
        return;
    }
    /* In the iframe's own context now: where is it? */
    wd_command_quiet(w, "POST", "/execute/sync",
                     json_pack("{s:s, s:[i]}", "script", ORIGIN_SCRIPT, "args", m->path[m->at]),
                     got_origin, m);
}

static void leave_next(struct move *m)
{
    if (m->at == 0) {
        m->fn(m->w, m->ud, m->value, (int)lround(m->dx), (int)lround(m->dy), 0, NULL);
        move_free(m);
        return;
    }
    m->at--;
    wd_command_quiet(m->w, "POST", "/frame/parent", NULL, left_one, m);
}

void wd_frame_leave(struct wd *w, int n, wd_frame_fn fn, void *ud)
{
    struct move *m = move_new(w, n, fn, ud);
    m->at = m->len;
    leave_next(m);
}

/* wd_frame_command: the command's answer, then back to the top. */
static void commanded(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct move *m = ud;
    if (err) {
        move_fail(m, code, err);
        return;
    }
    m->value = json_incref(value);
    m->at = m->len;
    leave_next(m);
}

static void command_entered(struct wd *w, void *ud, json_t *value, int dx, int dy,
                            enum error_code code, const char *err)
{
    (void)value, (void)dx, (void)dy;
    struct move *m = ud;
    if (err) {
        m->fn(w, m->ud, NULL, 0, 0, code, err);
        move_free(m);
        return;
    }
    json_t *body = m->body;
    m->body = NULL;
    wd_command_within(w, m->method, m->cmd_path, body, m->timeout_ms, commanded, m);
}

void wd_frame_command(struct wd *w, int n, const char *method, const char *path, json_t *body,
                      long timeout_ms, wd_frame_fn fn, void *ud)
{
    struct move *m = move_new(w, n, fn, ud);
    m->method = xstrdup(method);
    m->cmd_path = xstrdup(path);
    m->body = body;
    m->timeout_ms = timeout_ms;
    wd_frame_enter(w, n, command_entered, m);
}

/* ---- a frame's DevTools session (the owned browser) ---- */

struct finding {
    struct wd *w;
    int path[MAX_NESTING + 1];
    size_t len, at;
    char *session; /* the frame's reached so far; NULL: the page's own */
    wd_session_fn fn;
    void *ud;
};

static void finding_end(struct finding *f, const char *session)
{
    f->fn(f->w, f->ud, session);
    free(f->session);
    free(f);
}

static void finding_next(struct finding *f);

static void found_frame(void *ud, json_t *result, const char *err)
{
    struct finding *f = ud;
    const char *frame_id =
        json_string_value(json_object_get(json_object_get(result, "node"), "frameId"));
    const char *session = !err && frame_id ? wd_cast_frame_session(f->w, frame_id) : NULL;
    if (!session) {
        /* In its parent's process: no session of its own. */
        finding_end(f, NULL);
        return;
    }
    free(f->session);
    f->session = xstrdup(session);
    f->at++;
    finding_next(f);
}

static void found_iframe(void *ud, json_t *result, const char *err)
{
    struct finding *f = ud;
    const char *object_id =
        json_string_value(json_object_get(json_object_get(result, "result"), "objectId"));
    struct wd_cdp *c = wd_cast_cdp(f->w);
    if (err || !object_id || !c) {
        finding_end(f, NULL);
        return;
    }
    wd_cdp_call_in(c, f->session, "DOM.describeNode", json_pack("{s:s}", "objectId", object_id),
                   CDP_TIMEOUT_MS, found_frame, f);
}

static void finding_next(struct finding *f)
{
    struct wd_cdp *c = wd_cast_cdp(f->w);
    if (f->at == f->len || !c) {
        finding_end(f, c ? f->session : NULL);
        return;
    }
    char *expr = iframe_expr("__glovebox_frames", f->path[f->at]);
    wd_cdp_call_in(c, f->session, "Runtime.evaluate",
                   json_pack("{s:s, s:b}", "expression", expr, "returnByValue", 0), CDP_TIMEOUT_MS,
                   found_iframe, f);
    free(expr);
}

void wd_frame_session(struct wd *w, int n, wd_session_fn fn, void *ud)
{
    struct finding *f = xcalloc(1, sizeof *f);
    f->w = w;
    f->fn = fn;
    f->ud = ud;
    f->len = frame_path(w, n, f->path);
    if (f->len == 0) {
        finding_end(f, NULL);
        return;
    }
    finding_next(f);
}

/* ---- a snapshot's cross-origin frames, one after the other ---- */

/* A page or frame whose rows are known, and its cross-origin iframes. */
struct ctx {
    struct ctx *up;
    int frame;
    char *session; /* its DevTools session (the walk over the socket) */
    json_t *rows;  /* the script's rows, those of finished frames spliced in */
    json_t *xf;    /* [[index in its rows, x, y, depth, frame number]…] */
    size_t i;      /* the iframe walked now */
    size_t added;  /* rows spliced in so far */
    size_t abs;    /* where its first row is in the whole answer */
    int nesting;
};

struct walk {
    struct wd *w;
    struct ctx *cur;
    /* A screenshot's password fields (wd_frames_secrets) rather than a
     * snapshot's rows: its frames are not numbered for refs, and a frame
     * it cannot look into is painted over whole. */
    bool secrets;
    const char *map; /* the window property the iframes are kept in */
    int frames;      /* frames walked so far (secrets) */
    int max;
    bool hidden, keep;
    size_t total;
    char *script;
    wd_rows_fn fn;
    void *ud;
    /* Over the owned browser's DevTools (its frames in processes of their
     * own are targets with sessions); else WebDriver frame switching. What
     * to start again from when a frame is not such a target. */
    bool cdp;
    json_t *root_rows, *root_xf;
    size_t root_total, frames0;
    int root_frame;
    char *pending_session; /* the frame's entered over the socket */
};

static void left_out(struct walk *k, json_t *rows, const json_t *iframe);

/* Whether an iframe of the script's answer may be walked: not too deep, not
 * too many, and (a snapshot's) numbered in order. */
static bool admit(struct walk *k, int frame, int nesting, const json_t *x)
{
    if (nesting >= MAX_NESTING || json_array_size(x) != 5 || !json_is_integer(json_array_get(x, 0)))
        return false;
    if (k->secrets)
        return ++k->frames <= MAX_FRAMES;
    return frame_register(k->w, frame, (int)json_integer_value(json_array_get(x, 4)));
}

/* A context of frame's rows and iframes (both borrowed); its iframes get
 * their numbers. */
static struct ctx *ctx_new(struct walk *k, struct ctx *up, int frame, json_t *rows,
                           const json_t *xf)
{
    struct ctx *c = xcalloc(1, sizeof *c);
    c->up = up;
    c->frame = frame;
    c->rows = json_is_array(rows) ? json_copy(rows) : json_array();
    c->xf = json_array();
    c->nesting = up ? up->nesting + 1 : 0;
    size_t i;
    json_t *x;
    json_array_foreach(xf, i, x)
    {
        /* Too deep, too many, or not the script's shape: left out. */
        if (admit(k, frame, c->nesting, x))
            json_array_append(c->xf, x);
        else
            left_out(k, c->rows, x);
    }
    return c;
}

static void ctx_free(struct ctx *c)
{
    json_decref(c->rows);
    json_decref(c->xf);
    free(c->session);
    free(c);
}

static void walk_free(struct walk *k)
{
    struct ctx *c = k->cur;
    while (c) {
        struct ctx *up = c->up;
        ctx_free(c);
        c = up;
    }
    json_decref(k->root_rows);
    json_decref(k->root_xf);
    free(k->pending_session);
    free(k->script);
    free(k);
}

/* A frame the walk does not look into: a screenshot paints over the
 * whole of it that shows (its box, [x0, y0, x1, y1, devicePixelRatio] in
 * the top page's CSS pixels, is the script's iframe[3]), since a password
 * field in it cannot be found. */
static void left_out(struct walk *k, json_t *rows, const json_t *iframe)
{
    const json_t *box = json_array_get(iframe, 3);
    if (!k->secrets || json_array_size(box) != 5)
        return;
    double x0 = json_number_value(json_array_get(box, 0)),
           y0 = json_number_value(json_array_get(box, 1)),
           x1 = json_number_value(json_array_get(box, 2)),
           y1 = json_number_value(json_array_get(box, 3)),
           d = json_number_value(json_array_get(box, 4));
    if (d <= 0)
        d = 1;
    json_array_append_new(rows, json_pack("[f, f, f, f]", floor(x0 * d), floor(y0 * d),
                                          ceil((x1 - x0) * d) + 1, ceil((y1 - y0) * d) + 1));
}

static void walk_end(struct walk *k, enum error_code code, const char *err)
{
    struct ctx *root = k->cur;
    while (root->up)
        root = root->up;
    if (err)
        k->fn(k->w, k->ud, NULL, 0, code, err);
    else
        k->fn(k->w, k->ud, json_incref(root->rows), k->total, 0, NULL);
    walk_free(k);
}

static bool fatal(enum error_code code)
{
    return code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED;
}

static void step(struct walk *k);

/* The iframe now walked in k->cur. */
static const json_t *current_iframe(const struct walk *k)
{
    return json_array_get(k->cur->xf, k->cur->i);
}

static int current_number(const struct walk *k)
{
    return (int)json_integer_value(json_array_get(current_iframe(k), 4));
}

/* The script's arguments for the frame now walked. */
static json_t *frame_args(const struct walk *k)
{
    const struct ctx *c = k->cur;
    const json_t *x = current_iframe(k);
    size_t at = c->abs + (size_t)json_integer_value(json_array_get(x, 0)) + c->added;
    int budget = k->max > (int)at ? k->max - (int)at : 0;
    char *prefix = xasprintf("f%d", current_number(k));
    json_t *args =
        json_pack("[i, b, n, s, O, O, O, b, i]", budget, k->hidden, prefix, json_array_get(x, 1),
                  json_array_get(x, 2), json_array_get(x, 3), k->keep, wd_frames_next(k->w));
    free(prefix);
    return args;
}

/* The frame's answer (the script's JSON text; NULL: it gave none): its
 * context is walked next. */
static void descend(struct walk *k, const json_t *value, const char *session)
{
    struct ctx *c = k->cur;
    json_t *doc = json_is_string(value) ? json_loads(json_string_value(value), 0, NULL) : NULL;
    if (!json_is_array(json_array_get(doc, 0)))
        left_out(k, c->rows, current_iframe(k));
    struct ctx *child =
        ctx_new(k, c, current_number(k), json_array_get(doc, 0), json_array_get(doc, 2));
    child->session = session ? xstrdup(session) : NULL;
    k->total += (size_t)json_integer_value(json_array_get(doc, 1));
    json_decref(doc);
    child->abs =
        c->abs + (size_t)json_integer_value(json_array_get(current_iframe(k), 0)) + c->added;
    k->cur = child;
    step(k);
}

/* The frame now walked is done: its rows into its parent's. */
static void ascend(struct walk *k)
{
    struct ctx *c = k->cur, *up = c->up;
    size_t at =
        (size_t)json_integer_value(json_array_get(json_array_get(up->xf, up->i), 0)) + up->added;
    if (at > json_array_size(up->rows))
        at = json_array_size(up->rows);
    size_t i;
    json_t *row;
    json_array_foreach(c->rows, i, row) json_array_insert(up->rows, at + i, row);
    up->added += json_array_size(c->rows);
    up->i++;
    k->cur = up;
    ctx_free(c);
    step(k);
}

/* -- by WebDriver frame switching -- */

static void frame_ran(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct walk *k = ud;
    if (err && fatal(code)) {
        walk_end(k, code, err);
        return;
    }
    /* A frame that failed (it navigated while looked at) gives no rows. */
    descend(k, err ? NULL : value, NULL);
}

static void frame_entered(struct wd *w, void *ud, json_t *value, enum error_code code,
                          const char *err)
{
    (void)value;
    struct walk *k = ud;
    if (err) {
        if (fatal(code)) {
            walk_end(k, code, err);
            return;
        }
        /* Gone before it was entered: left out, still in its parent. */
        left_out(k, k->cur->rows, current_iframe(k));
        k->cur->i++;
        step(k);
        return;
    }
    wd_command_quiet(w, "POST", "/execute/sync",
                     json_pack("{s:s, s:o}", "script", k->script, "args", frame_args(k)), frame_ran,
                     k);
}

static void got_walk_iframe(struct wd *w, void *ud, json_t *value, enum error_code code,
                            const char *err)
{
    struct walk *k = ud;
    if (err || !json_is_object(value)) {
        frame_entered(w, k, NULL, err ? code : ERROR_NOT_FOUND, err ? err : "gone");
        return;
    }
    wd_command_quiet(w, "POST", "/frame", json_pack("{s:O}", "id", value), frame_entered, k);
}

static void went_up(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)value;
    struct walk *k = ud;
    if (err) {
        wd_frame_top(w);
        walk_end(k, code, err);
        return;
    }
    ascend(k);
}

/* -- over the DevTools socket -- */

static void restart_w3c(struct walk *k);

static void cdp_ran(void *ud, json_t *result, const char *err)
{
    struct walk *k = ud;
    const json_t *value = json_object_get(json_object_get(result, "result"), "value");
    if (err || json_object_get(result, "exceptionDetails") || !json_is_string(value)) {
        restart_w3c(k);
        return;
    }
    descend(k, value, k->pending_session);
}

static void cdp_eval(struct walk *k, const char *session, const char *expr, bool by_value,
                     wd_cdp_reply_fn fn)
{
    struct wd_cdp *c = wd_cast_cdp(k->w);
    if (!c) {
        fn(k, NULL, "the browser's DevTools socket is not open");
        return;
    }
    wd_cdp_call_in(c, session, "Runtime.evaluate",
                   json_pack("{s:s, s:b}", "expression", expr, "returnByValue", by_value),
                   CDP_TIMEOUT_MS, fn, k);
}

static void described(void *ud, json_t *result, const char *err)
{
    struct walk *k = ud;
    const char *frame_id =
        json_string_value(json_object_get(json_object_get(result, "node"), "frameId"));
    const char *session = !err && frame_id ? wd_cast_frame_session(k->w, frame_id) : NULL;
    if (!session) {
        /* Not a frame of its own process (the same site, another port):
         * WebDriver frame switching reaches it. */
        restart_w3c(k);
        return;
    }
    free(k->pending_session);
    k->pending_session = xstrdup(session);
    json_t *args = frame_args(k);
    char *list = json_dumps(args, JSON_COMPACT);
    json_decref(args);
    char *expr = xasprintf("(function(){%s}).apply(null,%s)", k->script, list);
    free(list);
    cdp_eval(k, session, expr, true, cdp_ran);
    free(expr);
}

static void got_iframe_object(void *ud, json_t *result, const char *err)
{
    struct walk *k = ud;
    const char *object_id =
        json_string_value(json_object_get(json_object_get(result, "result"), "objectId"));
    struct wd_cdp *c = wd_cast_cdp(k->w);
    if (err || !object_id || !c) {
        restart_w3c(k);
        return;
    }
    wd_cdp_call_in(c, k->cur->session, "DOM.describeNode",
                   json_pack("{s:s}", "objectId", object_id), CDP_TIMEOUT_MS, described, k);
}

static void cdp_enter(struct walk *k)
{
    char *expr = iframe_expr(k->map, current_number(k));
    cdp_eval(k, k->cur->session, expr, false, got_iframe_object);
    free(expr);
}

/* A frame the socket cannot reach: the whole walk again by WebDriver
 * (nothing was entered that way yet, so the endpoint is at the start). */
static void restart_w3c(struct walk *k)
{
    struct ctx *c = k->cur;
    while (c->up) {
        struct ctx *up = c->up;
        ctx_free(c);
        c = up;
    }
    ctx_free(c);
    while (json_array_size(k->w->frames) > k->frames0)
        json_array_remove(k->w->frames, json_array_size(k->w->frames) - 1);
    k->cdp = false;
    k->total = k->root_total;
    k->frames = 0;
    k->cur = ctx_new(k, NULL, k->root_frame, k->root_rows, k->root_xf);
    step(k);
}

static void step(struct walk *k)
{
    struct ctx *c = k->cur;
    if (k->w->destroyed || k->w->stopping) {
        walk_end(k, k->w->abort_code ? k->w->abort_code : ERROR_DEVICE_UNAVAILABLE,
                 "the session ended");
        return;
    }
    if (c->i < json_array_size(c->xf)) {
        if (k->cdp)
            cdp_enter(k);
        else
            wd_command_quiet(k->w, "POST", "/execute/sync",
                             json_pack("{s:s, s:[i, s]}", "script", IFRAME_SCRIPT, "args",
                                       current_number(k), k->map),
                             got_walk_iframe, k);
        return;
    }
    if (!c->up) {
        walk_end(k, 0, NULL);
        return;
    }
    if (k->cdp)
        ascend(k);
    else
        wd_command_quiet(k->w, "POST", "/frame/parent", NULL, went_up, k);
}

static void walk_start(struct wd *w, int frame, json_t *rows, size_t total, const json_t *xf,
                       const char *script, int max, bool hidden, bool keep, bool secrets,
                       wd_rows_fn fn, void *ud)
{
    struct walk *k = xcalloc(1, sizeof *k);
    k->w = w;
    k->secrets = secrets;
    k->map = secrets ? SHOT_MAP : "__glovebox_frames";
    k->max = max;
    k->hidden = hidden;
    k->keep = keep;
    k->total = k->root_total = total;
    k->script = xstrdup(script);
    k->fn = fn;
    k->ud = ud;
    k->root_frame = frame;
    k->root_rows = rows;
    k->root_xf = json_deep_copy(xf);
    /* The socket reaches the page's context only: a walk that starts in a
     * frame (a scope there) was entered by WebDriver. */
    k->cdp = frame == 0 && wd_cast_cdp(w) != NULL;
    k->cur = ctx_new(k, NULL, frame, rows, xf);
    k->frames0 = json_array_size(w->frames);
    step(k);
}

void wd_frames_walk(struct wd *w, int frame, json_t *rows, size_t total, const json_t *xf,
                    const char *script, int max, bool hidden, bool keep, wd_rows_fn fn, void *ud)
{
    walk_start(w, frame, rows, total, xf, script, max, hidden, keep, false, fn, ud);
}

void wd_frames_secrets(struct wd *w, json_t *rows, const json_t *xf, const char *script, int max,
                       wd_rows_fn fn, void *ud)
{
    walk_start(w, 0, rows, json_array_size(rows), xf, script, max, false, false, true, fn, ud);
}
