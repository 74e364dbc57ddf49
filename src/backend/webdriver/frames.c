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
 * the endpoint: glovebox always goes back to the top before answering. */
#include "backend/webdriver/internal.h"

#include "core/xmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Frames one session numbers, and how deep they nest: beyond, a frame is
 * left out (each costs a few requests per snapshot). */
#define MAX_FRAMES  64
#define MAX_NESTING 8

/* The top-page position of a frame's viewport, from its iframe element
 * (arguments[0]) in the context glovebox is in: the element's box, its
 * border and padding, and the same-origin frames it sits in. */
static const char ORIGIN_SCRIPT[] =
    "var f=arguments[0],x=0,y=0;while(f){var v=f.ownerDocument.defaultView,"
    "r=f.getBoundingClientRect(),s=v.getComputedStyle(f);"
    "x+=r.left+f.clientLeft+parseFloat(s.paddingLeft);y+=r.top+f.clientTop+parseFloat(s.paddingTop)"
    ";"
    "try{f=v.frameElement;}catch(e){f=null;}}return [x,y];";

static const char *const W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

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

/* Frame n's entry {parent, el}, or NULL. */
static const json_t *frame_entry(const struct wd *w, int n)
{
    return n > 0 ? json_array_get(w->frames, (size_t)n - 1) : NULL;
}

static const char *element_id(const json_t *el)
{
    return json_string_value(json_object_get(el, W3C_ELEMENT));
}

/* The number of the frame of iframe element el inside frame parent: the
 * one it had, or a new one; 0 when there are too many or el is not an
 * element reference. */
static int frame_add(struct wd *w, int parent, const json_t *el)
{
    const char *id = element_id(el);
    if (!id)
        return 0;
    if (!w->frames)
        w->frames = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(w->frames, i, f)
    {
        if (json_integer_value(json_object_get(f, "parent")) == parent &&
            strcmp(element_id(json_object_get(f, "el")), id) == 0)
            return (int)i + 1;
    }
    if (json_array_size(w->frames) >= MAX_FRAMES)
        return 0;
    json_array_append_new(w->frames, json_pack("{s:i, s:O}", "parent", parent, "el", el));
    return (int)json_array_size(w->frames);
}

/* Frame n's ancestors, outermost first (n last). */
static size_t frame_path(const struct wd *w, int n, int path[MAX_NESTING + 1])
{
    size_t len = 0;
    for (const json_t *f = frame_entry(w, n); f && len <= MAX_NESTING; f = frame_entry(w, n)) {
        path[len++] = n;
        n = (int)json_integer_value(json_object_get(f, "parent"));
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

static void enter_next(struct move *m);

static void entered_one(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    (void)value;
    struct move *m = ud;
    if (err) {
        /* The iframe left the page, or the page navigated. */
        if (code != ERROR_DEVICE_UNAVAILABLE && code != ERROR_SESSION_EXPIRED) {
            wd_frame_top(w);
            code = ERROR_NOT_FOUND;
        }
        m->fn(w, m->ud, NULL, 0, 0, code, err);
        move_free(m);
        return;
    }
    m->at++;
    enter_next(m);
}

static void enter_next(struct move *m)
{
    if (m->at == m->len) {
        m->fn(m->w, m->ud, NULL, 0, 0, 0, NULL);
        move_free(m);
        return;
    }
    const json_t *el = json_object_get(frame_entry(m->w, m->path[m->at]), "el");
    wd_command_quiet(m->w, "POST", "/frame", json_pack("{s:O}", "id", el), entered_one, m);
}

static void at_top(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct move *m = ud;
    if (err) {
        m->at = m->len; /* nothing to go back out of */
        entered_one(w, ud, value, code, err);
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
    (void)code;
    struct move *m = ud;
    if (err || json_array_size(value) != 2) {
        wd_frame_top(w);
        m->fn(w, m->ud, NULL, 0, 0, code ? code : ERROR_TOOL_FAILED,
              err ? err : "the iframe's position is not known");
        move_free(m);
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
        wd_frame_top(w);
        m->fn(w, m->ud, NULL, 0, 0, code, err);
        move_free(m);
        return;
    }
    /* In the iframe's own context now: where is it? */
    const json_t *el = json_object_get(frame_entry(w, m->path[m->at]), "el");
    wd_command_quiet(w, "POST", "/execute/sync",
                     json_pack("{s:s, s:[O]}", "script", ORIGIN_SCRIPT, "args", el), got_origin, m);
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
    struct move *m = ud;
    if (err) {
        wd_frame_top(w);
        m->fn(w, m->ud, NULL, 0, 0, code, err);
        move_free(m);
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

/* ---- a snapshot's cross-origin frames, one after the other ---- */

/* A page or frame whose rows are known, and its cross-origin iframes. */
struct ctx {
    struct ctx *up;
    int frame;
    json_t *rows; /* the script's rows, those of finished frames spliced in */
    json_t *xf;   /* [[index in its rows, x, y, depth]…] */
    json_t *els;  /* the iframes' element references, once asked */
    size_t i;     /* the iframe walked now */
    size_t added; /* rows spliced in so far */
    size_t abs;   /* where its first row is in the whole answer */
    int nesting;
    int pending_frame; /* the number of the iframe walked now */
};

struct walk {
    struct wd *w;
    struct ctx *cur;
    int max;
    bool hidden, keep;
    size_t total;
    char *script;
    wd_rows_fn fn;
    void *ud;
};

static struct ctx *ctx_new(struct ctx *up, int frame, json_t *rows, const json_t *xf)
{
    struct ctx *c = xcalloc(1, sizeof *c);
    c->up = up;
    c->frame = frame;
    c->rows = rows ? rows : json_array();
    c->xf = json_is_array(xf) ? json_incref((json_t *)xf) : json_array();
    c->nesting = up ? up->nesting + 1 : 0;
    return c;
}

static void ctx_free(struct ctx *c)
{
    json_decref(c->rows);
    json_decref(c->xf);
    json_decref(c->els);
    free(c);
}

static void step(struct walk *k);

static void walk_end(struct walk *k, enum error_code code, const char *err)
{
    struct ctx *c = k->cur;
    while (c->up) {
        struct ctx *up = c->up;
        ctx_free(c);
        c = up;
    }
    if (err)
        k->fn(k->w, k->ud, NULL, 0, code, err);
    else
        k->fn(k->w, k->ud, json_incref(c->rows), k->total, 0, NULL);
    ctx_free(c);
    free(k->script);
    free(k);
}

static void got_els(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct walk *k = ud;
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED)) {
        walk_end(k, code, err);
        return;
    }
    /* Without them the frames are left out. */
    k->cur->els = json_is_array(value) && json_array_size(value) == json_array_size(k->cur->xf)
                      ? json_incref(value)
                      : json_array();
    if (json_array_size(k->cur->els) == 0)
        k->cur->i = json_array_size(k->cur->xf);
    step(k);
}

static void frame_ran(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct walk *k = ud;
    struct ctx *c = k->cur;
    if (err && (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED)) {
        walk_end(k, code, err);
        return;
    }
    /* The frame's rows; a frame that failed (it navigated while looked
     * at) gives none. */
    json_t *doc =
        !err && json_is_string(value) ? json_loads(json_string_value(value), 0, NULL) : NULL;
    json_t *rows = json_array_get(doc, 0);
    struct ctx *child = ctx_new(c, c->pending_frame, json_is_array(rows) ? json_incref(rows) : NULL,
                                c->nesting + 1 < MAX_NESTING ? json_array_get(doc, 2) : NULL);
    k->total += (size_t)json_integer_value(json_array_get(doc, 1));
    json_decref(doc);
    child->abs = c->abs +
                 (size_t)json_integer_value(json_array_get(json_array_get(c->xf, c->i), 0)) +
                 c->added;
    k->cur = child;
    step(k);
}

static void frame_entered(struct wd *w, void *ud, json_t *value, enum error_code code,
                          const char *err)
{
    (void)value;
    struct walk *k = ud;
    struct ctx *c = k->cur;
    if (err) {
        if (code == ERROR_DEVICE_UNAVAILABLE || code == ERROR_SESSION_EXPIRED) {
            walk_end(k, code, err);
            return;
        }
        /* Gone before it was entered: left out, still in c's context. */
        c->i++;
        step(k);
        return;
    }
    const json_t *x = json_array_get(c->xf, c->i);
    size_t at = c->abs + (size_t)json_integer_value(json_array_get(x, 0)) + c->added;
    int budget = k->max > (int)at ? k->max - (int)at : 0;
    char *prefix = xasprintf("f%d", c->pending_frame);
    json_t *args =
        json_pack("[i, b, n, s, O, O, O, b]", budget, k->hidden, prefix, json_array_get(x, 1),
                  json_array_get(x, 2), json_array_get(x, 3), k->keep);
    free(prefix);
    wd_command_quiet(w, "POST", "/execute/sync",
                     json_pack("{s:s, s:o}", "script", k->script, "args", args), frame_ran, k);
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

static void step(struct walk *k)
{
    struct ctx *c = k->cur;
    if (json_array_size(c->xf) && !c->els) {
        wd_command_quiet(
            k->w, "POST", "/execute/sync",
            json_pack("{s:s, s:[]}", "script", "return window.__glovebox_xframes||[];", "args"),
            got_els, k);
        return;
    }
    while (c->i < json_array_size(c->xf)) {
        int n = frame_add(k->w, c->frame, json_array_get(c->els, c->i));
        if (n > 0) {
            c->pending_frame = n;
            wd_command_quiet(k->w, "POST", "/frame",
                             json_pack("{s:O}", "id", json_array_get(c->els, c->i)), frame_entered,
                             k);
            return;
        }
        c->i++;
    }
    if (!c->up) {
        walk_end(k, 0, NULL);
        return;
    }
    wd_command_quiet(k->w, "POST", "/frame/parent", NULL, went_up, k);
}

void wd_frames_walk(struct wd *w, int frame, json_t *rows, size_t total, const json_t *xf,
                    const char *script, int max, bool hidden, bool keep, wd_rows_fn fn, void *ud)
{
    struct walk *k = xcalloc(1, sizeof *k);
    k->w = w;
    k->max = max;
    k->hidden = hidden;
    k->keep = keep;
    k->total = total;
    k->script = xstrdup(script);
    k->fn = fn;
    k->ud = ud;
    k->cur = ctx_new(NULL, frame, rows, xf);
    /* A page snapshot numbers the frames afresh. */
    if (frame == 0 && !keep)
        wd_frames_forget(w);
    step(k);
}
