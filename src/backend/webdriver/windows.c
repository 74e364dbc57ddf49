/* Tabs and windows of a webdriver session: window_list (each window's
 * handle, title and URL, the current one focused) and window_manage
 * (focus: make it the window commands go to; close; resize and move the
 * current window). WebDriver tells a window's title only while it is
 * current, so window_list visits each and comes back: one command chain
 * on the loop, a step per answer. */
#include "backend/webdriver/internal.h"

#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

/* Windows listed at most. */
#define MAX_WINDOWS 64

struct tour {
    struct backend_call *bc;
    json_t *handles; /* the session's windows */
    char *current;   /* the handle commands went to before */
    size_t at;       /* the window being visited */
    json_t *windows; /* what was found */
    /* window_manage: the window asked for, once found. */
    bool manage;
    char *target;
    char *err;
    enum error_code code;
};

static void tour_free(struct tour *t)
{
    json_decref(t->handles);
    json_decref(t->windows);
    free(t->current);
    free(t->target);
    free(t->err);
    free(t);
}

static void visit(struct tour *t);
static void managed(struct tour *t);

/* Back on the window commands went to before (the last step of a tour). */
static void back_done(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    (void)value;
    struct tour *t = ud;
    struct backend_call *bc = t->bc;
    if (err && !t->err) {
        t->err = xstrdup(err);
        t->code = code;
    }
    if (t->manage) {
        managed(t);
        return;
    }
    if (t->err) {
        backend_call_fail_code(bc, t->code, "cannot list windows: %s", t->err);
        tour_free(t);
        return;
    }
    struct strbuf sb;
    strbuf_init(&sb);
    size_t i;
    json_t *win;
    json_array_foreach(t->windows, i, win)
    {
        strbuf_printf(&sb, "%s%s \"%s\" %s\n",
                      json_is_true(json_object_get(win, "focused")) ? "* " : "  ",
                      json_string_value(json_object_get(win, "id")),
                      json_string_value(json_object_get(win, "title")),
                      json_string_value(json_object_get(win, "url")));
    }
    size_t n = json_array_size(t->windows);
    json_t *data = json_pack("{s:s, s:I, s:O}", "session", bc->session->id, "count", (json_int_t)n,
                             "windows", t->windows);
    backend_call_done(bc, data, "%zu window%s\n%s", n, n == 1 ? "" : "s", sb.data ? sb.data : "");
    strbuf_finish(&sb);
    tour_free(t);
}

static void go_back(struct wd *w, struct tour *t)
{
    if (!t->current) {
        back_done(w, t, NULL, 0, NULL);
        return;
    }
    wd_command(w, "POST", "/window", json_pack("{s:s}", "handle", t->current), back_done, t);
}

static void got_url(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)code;
    (void)err;
    struct tour *t = ud;
    json_t *win = json_array_get(t->windows, json_array_size(t->windows) - 1);
    json_object_set_new(win, "url",
                        json_string(json_is_string(value) ? json_string_value(value) : ""));
    t->at++;
    if (t->at < json_array_size(t->handles) && t->at < MAX_WINDOWS)
        visit(t);
    else
        go_back(w, t);
}

static void got_title(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)code;
    (void)err;
    struct tour *t = ud;
    const char *handle = json_string_value(json_array_get(t->handles, t->at));
    json_array_append_new(t->windows,
                          json_pack("{s:s, s:s, s:b}", "id", handle, "title",
                                    json_is_string(value) ? json_string_value(value) : "",
                                    "focused", t->current && !strcmp(handle, t->current)));
    wd_command(w, "GET", "/url", NULL, got_url, t);
}

static void switched(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)value;
    struct tour *t = ud;
    if (err) {
        /* Closed between the list and the visit: skip it. */
        if (code == ERROR_NOT_FOUND) {
            t->at++;
            if (t->at < json_array_size(t->handles) && t->at < MAX_WINDOWS)
                visit(t);
            else
                go_back(w, t);
            return;
        }
        t->err = xstrdup(err);
        t->code = code;
        go_back(w, t);
        return;
    }
    wd_command(w, "GET", "/title", NULL, got_title, t);
}

static void visit(struct tour *t)
{
    const char *handle = json_string_value(json_array_get(t->handles, t->at));
    wd_command(wd_of(t->bc->session), "POST", "/window", json_pack("{s:s}", "handle", handle),
               switched, t);
}

static void got_handles(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    struct tour *t = ud;
    if (err || !json_is_array(value) || json_array_size(value) == 0) {
        backend_call_fail_code(t->bc, err ? code : ERROR_TOOL_FAILED, "cannot list windows: %s",
                               err ? err : "the endpoint listed no windows");
        tour_free(t);
        return;
    }
    t->handles = json_incref(value);
    t->windows = json_array();
    visit(t);
    (void)w;
}

static void got_current(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    (void)code;
    struct tour *t = ud;
    /* The current window may have been closed: then there is none to go
     * back to. */
    if (!err && json_is_string(value))
        t->current = xstrdup(json_string_value(value));
    wd_command(w, "GET", "/window/handles", NULL, got_handles, t);
}

static void tour(struct backend_call *bc, bool manage)
{
    struct tour *t = xcalloc(1, sizeof *t);
    t->bc = bc;
    t->manage = manage;
    wd_command(wd_of(bc->session), "GET", "/window", NULL, got_current, t);
}

void wd_window_list_op(struct backend_call *bc)
{
    tour(bc, false);
}

/* ---- window_manage: the windows listed first, to find the one meant ---- */

static void manage_done(struct wd *w, void *ud, json_t *value, enum error_code code,
                        const char *err)
{
    (void)w;
    (void)value;
    struct tour *t = ud;
    struct backend_call *bc = t->bc;
    const char *action = args_string(bc->args, "action", "focus");
    if (err)
        backend_call_fail_code(bc, code, "cannot %s window %s: %s", action, t->target, err);
    else
        backend_call_done(bc,
                          json_pack("{s:s, s:s, s:{s:s}}", "session", bc->session->id, "action",
                                    action, "window", "id", t->target),
                          "%s: window %s", action, t->target);
    tour_free(t);
}

/* After closing: commands go to the window that was current, or, when
 * that was the one closed, to the first left. */
static void closed(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct tour *t = ud;
    if (err) {
        manage_done(w, t, NULL, code, err);
        return;
    }
    const char *next = t->current && strcmp(t->current, t->target) ? t->current : NULL;
    if (!next && json_is_array(value) && json_array_size(value) > 0)
        next = json_string_value(json_array_get(value, 0));
    if (!next) {
        manage_done(w, t, NULL, 0, NULL);
        return;
    }
    wd_command(w, "POST", "/window", json_pack("{s:s}", "handle", next), manage_done, t);
}

static void focused_for_close(struct wd *w, void *ud, json_t *value, enum error_code code,
                              const char *err)
{
    (void)value;
    struct tour *t = ud;
    if (err) {
        manage_done(w, t, NULL, code, err);
        return;
    }
    wd_command(w, "DELETE", "/window", NULL, closed, t);
}

/* The windows are known (the tour came back to the current one): find the
 * one meant and act on it. */
static void managed(struct tour *t)
{
    struct backend_call *bc = t->bc;
    struct wd *w = wd_of(bc->session);
    if (t->err) {
        backend_call_fail_code(bc, t->code, "cannot find the window: %s", t->err);
        tour_free(t);
        return;
    }
    const char *want = args_string(bc->args, "window", "");
    const char *action = args_string(bc->args, "action", "focus");
    size_t i;
    json_t *win;
    json_array_foreach(t->windows, i, win)
    {
        const char *id = json_string_value(json_object_get(win, "id"));
        if (!strcmp(id, want) || strstr(json_string_value(json_object_get(win, "title")), want)) {
            t->target = xstrdup(id);
            break;
        }
    }
    if (!t->target) {
        backend_call_fail_code(bc, ERROR_NOT_FOUND,
                               "window: no window of %s has the id or a title with \"%s\"; "
                               "window_list shows them",
                               bc->session->id, want);
        tour_free(t);
        return;
    }
    if (!strcmp(action, "focus")) {
        wd_command(w, "POST", "/window", json_pack("{s:s}", "handle", t->target), manage_done, t);
    } else if (!strcmp(action, "close")) {
        wd_command(w, "POST", "/window", json_pack("{s:s}", "handle", t->target), focused_for_close,
                   t);
    } else {
        /* move and resize: the window's rectangle, which WebDriver sets for
         * the current window only. */
        if (!t->current || strcmp(t->target, t->current)) {
            backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                                   "cannot %s window %s: only the focused window can be moved "
                                   "or resized (focus it first)",
                                   action, t->target);
            tour_free(t);
            return;
        }
        json_t *rect = json_object();
        static const char *const keys[] = {"x", "y", "width", "height"};
        for (int k = 0; k < 4; k++)
            if (json_object_get(bc->args, keys[k]))
                json_object_set(rect, keys[k], json_object_get(bc->args, keys[k]));
        wd_command(w, "POST", "/window/rect", rect, manage_done, t);
    }
}

void wd_window_manage_op(struct backend_call *bc)
{
    if (json_object_get(bc->args, "force")) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "cannot manage the window: argument \"force\" is not supported on "
                               "webdriver sessions (close always closes)");
        return;
    }
    tour(bc, true);
}
