/* Native apps through Appium (a session whose endpoint reported a
 * platformName and no browserName): what is on the screen comes from the
 * page source (GET …/source, native_tree.c) instead of a page script, and
 * the pointer is a finger — W3C actions with pointerType "touch": taps,
 * long presses, swipes. Refs name the elements of the latest snapshot or
 * find, kept on the session as their bounds. Hardware buttons and apps go
 * through Appium's own endpoints, and answer not_supported where the
 * driver has none. */
#include "backend/webdriver/internal.h"
#include "backend/webdriver/native_tree.h"
#include "backend/webdriver/outline.h"

#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A swipe's length, as a share of the screen, and its time. */
#define SWIPE_SHARE 0.4
#define SWIPE_MS    300

/* ---- elements ---- */

static json_t *element_json(const struct native_el *e, size_t ref)
{
    json_t *states = json_array();
    struct {
        bool on;
        const char *name;
    } s[] = {{e->enabled, "enabled"},     {!e->enabled, "disabled"},     {e->focused, "focused"},
             {e->checkable, "checkable"}, {e->checked, "checked"},       {e->selected, "selected"},
             {e->clickable, "clickable"}, {e->scrollable, "scrollable"}, {e->editable, "editable"},
             {e->password, "password"},   {e->hidden, "hidden"}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (s[i].on)
            json_array_append_new(states, json_string(s[i].name));
    char name[24];
    snprintf(name, sizeof name, "e%zu", ref);
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:{s:i, s:i, s:i, s:i}, s:i}", "ref", name, "role",
                          e->role, "name", e->name, "states", states, "bounds", "x", e->x, "y",
                          e->y, "width", e->width, "height", e->height, "depth", e->depth);
    if (e->value)
        json_object_set_new(o, "value", json_string(e->value));
    if (e->resource_id)
        json_object_set_new(o, "resource_id", json_string(e->resource_id));
    return o;
}

/* Most native elements are enabled and many clickable: the outline names
 * the exceptions. Text is in the name, the value or the resource id. */
static const struct wd_element_view view = {
    .quiet_states = (const char *const[]){"enabled", "clickable", NULL},
    .text_fields = (const char *const[]){"name", "value", "resource_id", NULL},
};

char *wd_native_key(const struct native_el *e)
{
    return xasprintf("%s\x1f%s\x1f%s", e->role, e->name, e->resource_id ? e->resource_id : "");
}

void wd_native_forget_refs(struct wd *w)
{
    for (size_t i = 0; w->native_ref_keys && i < w->n_native_refs; i++)
        free(w->native_ref_keys[i]);
    free(w->native_ref_keys);
    free(w->native_refs);
    w->native_ref_keys = NULL;
    w->native_refs = NULL;
    w->n_native_refs = 0;
}

/* The source as elements, their refs kept on the session; NULL after
 * answering bc. */
static json_t *read_tree(struct backend_call *bc, json_t *value, enum error_code code,
                         const char *err, const char *verb, size_t *cut)
{
    if (err) {
        backend_call_fail_code(bc, code, "cannot %s: %s", verb, err);
        return NULL;
    }
    if (!json_is_string(value)) {
        backend_call_fail(bc, "cannot %s: the endpoint sent no page source", verb);
        return NULL;
    }
    struct native_tree t;
    char *perr = NULL;
    if (!native_tree_parse(json_string_value(value), json_string_length(value), &t, &perr)) {
        backend_call_fail(bc, "cannot %s: %s", verb, perr);
        free(perr);
        return NULL;
    }
    struct wd *w = wd_of(bc->session);
    wd_native_forget_refs(w);
    w->native_refs = xcalloc(t.n + 1, sizeof *w->native_refs);
    w->native_ref_keys = xcalloc(t.n + 1, sizeof *w->native_ref_keys);
    w->n_native_refs = t.n;
    json_t *els = json_array();
    for (size_t i = 0; i < t.n; i++) {
        const struct native_el *e = &t.els[i];
        w->native_refs[i] = (struct screen_rect){e->x, e->y, e->width, e->height};
        w->native_ref_keys[i] = wd_native_key(e);
        json_array_append_new(els, element_json(e, i + 1));
    }
    *cut = t.cut;
    native_tree_finish(&t);
    return els;
}

static void snapshot_got(struct wd *w, void *ud, json_t *value, enum error_code code,
                         const char *err)
{
    (void)w;
    struct backend_call *bc = ud;
    size_t cut;
    json_t *els = read_tree(bc, value, code, err, "take a snapshot", &cut);
    if (!els)
        return;
    size_t max = (size_t)wd_snapshot_budget(bc, 500);
    size_t total = json_array_size(els) + cut;
    while (json_array_size(els) > max)
        json_array_remove(els, json_array_size(els) - 1);
    wd_snapshot_answer(bc, els, total, &view);
}

void wd_native_snapshot(struct backend_call *bc)
{
    wd_command(wd_of(bc->session), "GET", "/source", NULL, snapshot_got, bc);
}

static void find_got(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct backend_call *bc = ud;
    size_t cut;
    json_t *els = read_tree(bc, value, code, err, "find", &cut);
    if (els)
        wd_find_answer(bc, els, &view);
}

void wd_native_find(struct backend_call *bc)
{
    wd_command(wd_of(bc->session), "GET", "/source", NULL, find_got, bc);
}

static void text_got(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    (void)w;
    struct backend_call *bc = ud;
    size_t cut;
    json_t *els = read_tree(bc, value, code, err, "read text", &cut);
    if (!els)
        return;
    struct strbuf sb;
    strbuf_init(&sb);
    json_t *lines = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!*name)
            continue;
        json_array_append_new(lines, json_string(name));
        strbuf_printf(&sb, "%s%s", sb.len ? "\n" : "", name);
    }
    json_decref(els);
    json_t *out = json_pack("{s:s, s:s, s:o, s:s}", "session", bc->session->id, "text",
                            sb.data ? sb.data : "", "lines", lines, "source", "accessibility");
    backend_call_done(bc, out, "%s", sb.data ? sb.data : "");
    strbuf_finish(&sb);
}

void wd_native_read_text(struct backend_call *bc)
{
    wd_command(wd_of(bc->session), "GET", "/source", NULL, text_got, bc);
}

/* ---- the element of a ref or a text ---- */

struct target {
    struct backend_call *bc;
    wd_target_fn fn;
};

static void target_got(struct wd *w, void *ud, json_t *value, enum error_code code, const char *err)
{
    struct target *t = ud;
    struct backend_call *bc = t->bc;
    size_t cut;
    json_t *els = read_tree(bc, value, code, err, "find the element", &cut);
    if (!els) {
        free(t);
        return;
    }
    const char *text = args_string(bc->args, "text", NULL);
    const char *role = args_string(bc->args, "role", NULL);
    bool exact = args_bool(bc->args, "exact", false);
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e)
    {
        if (wd_element_matches(e, &view, text, role, exact)) {
            t->fn(bc, json_string_value(json_object_get(e, "ref")), &w->native_refs[i], false);
            json_decref(els);
            free(t);
            return;
        }
    }
    json_decref(els);
    backend_call_fail_code(bc, ERROR_NOT_FOUND,
                           "text: no element on the screen has the text \"%s\"; snapshot shows "
                           "what there is",
                           text ? text : "");
    free(t);
}

void wd_native_target(struct backend_call *bc, wd_target_fn fn)
{
    struct wd *w = wd_of(bc->session);
    const char *ref = args_string(bc->args, "ref", NULL);
    if (ref) {
        size_t n = (size_t)strtoul(ref + 1, NULL, 10);
        if (n < 1 || n > w->n_native_refs) {
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "ref %s is gone: refs name the elements of the latest "
                                   "snapshot or find (take a new one)",
                                   ref);
            return;
        }
        fn(bc, ref, &w->native_refs[n - 1], false);
        return;
    }
    struct target *t = xcalloc(1, sizeof *t);
    t->bc = bc;
    t->fn = fn;
    wd_command(w, "GET", "/source", NULL, target_got, t);
}

/* ---- touch ---- */

json_t *wd_touch(json_t *actions)
{
    return json_pack("{s:s, s:s, s:{s:s}, s:o}", "type", "pointer", "id", "finger", "parameters",
                     "pointerType", "touch", "actions", actions);
}

static json_t *move_to(int x, int y, int ms)
{
    return json_pack("{s:s, s:i, s:i, s:i, s:s}", "type", "pointerMove", "duration", ms, "x", x,
                     "y", y, "origin", "viewport");
}

json_t *wd_touch_tap(int x, int y, int count, int hold_ms)
{
    json_t *list = json_array();
    json_array_append_new(list, move_to(x, y, 0));
    for (int i = 0; i < count; i++) {
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerDown", "button", 0));
        /* A tap is a touch that lasts a moment; a long press is hold_ms. */
        json_array_append_new(
            list, json_pack("{s:s, s:i}", "type", "pause", "duration", hold_ms > 0 ? hold_ms : 50));
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerUp", "button", 0));
        if (i + 1 < count)
            json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pause", "duration", 80));
    }
    return wd_touch(list);
}

json_t *wd_touch_swipe(int x, int y, int x2, int y2, int ms)
{
    json_t *list = json_array();
    json_array_append_new(list, move_to(x, y, 0));
    json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerDown", "button", 0));
    json_array_append_new(list, move_to(x2, y2, ms));
    json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerUp", "button", 0));
    return wd_touch(list);
}

/* scroll on a touch screen: a swipe per amount, the finger moving against
 * the direction the content should go. */
json_t *wd_touch_scroll(const char *dir, int amount, int x, int y, int width, int height)
{
    int dx = 0, dy = 0;
    if (!strcmp(dir, "down"))
        dy = -(int)lround(height * SWIPE_SHARE);
    else if (!strcmp(dir, "up"))
        dy = (int)lround(height * SWIPE_SHARE);
    else if (!strcmp(dir, "right"))
        dx = -(int)lround(width * SWIPE_SHARE);
    else
        dx = (int)lround(width * SWIPE_SHARE);
    json_t *list = json_array();
    for (int i = 0; i < amount; i++) {
        int x0 = x - dx / 2, y0 = y - dy / 2;
        json_array_append_new(list, move_to(x0, y0, 0));
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerDown", "button", 0));
        json_array_append_new(list, move_to(x0 + dx, y0 + dy, SWIPE_MS));
        json_array_append_new(list, json_pack("{s:s, s:i}", "type", "pointerUp", "button", 0));
    }
    return wd_touch(list);
}
