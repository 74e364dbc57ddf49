#include "recipe/locate.h"

#include "core/xmalloc.h"
#include "mcp/tool.h"

#include <stdlib.h>
#include <string.h>

/* A click lands within this many pixels of a saved point and is "the same place". */
#define SAME_PLACE_PX 3

enum probe { EXACT, TEXT, POINT, DONE };

struct locate {
    struct tool_call *parent;
    json_t *locator, *args, *notes; /* owned */
    bool strict;
    enum probe probe;
    recipe_locate_fn done;
    void *ud;
    struct tool_call **child;
};

static void next(struct locate *l);

static int num(const json_t *o, const char *k)
{
    return (int)json_integer_value(json_object_get(o, k));
}

static void finish(struct locate *l, const char *by, bool healed, const char *err)
{
    json_t *args = err ? NULL : json_incref(l->args);
    recipe_locate_fn done = l->done;
    void *ud = l->ud;
    json_decref(l->locator);
    json_decref(l->args);
    json_decref(l->notes);
    free(l);
    done(ud, args, by, healed, err);
}

/* The target fields a step may carry, replaced by what was found. */
static void clear_target(json_t *args)
{
    static const char *const keys[] = {"ref", "x", "y", "text", "role", "exact"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        json_object_del(args, keys[i]);
}

static bool moved(const json_t *locator, const json_t *bounds)
{
    const json_t *at = json_object_get(locator, "screen");
    if (!at || !bounds)
        return false;
    int cx = num(bounds, "x") + num(bounds, "width") / 2;
    int cy = num(bounds, "y") + num(bounds, "height") / 2;
    return abs(cx - num(at, "x")) > SAME_PLACE_PX || abs(cy - num(at, "y")) > SAME_PLACE_PX;
}

static void probe_done(void *ud, const json_t *result, const json_t *notes)
{
    (void)notes;
    struct locate *l = ud;
    *l->child = NULL;
    if (tool_call_cancelled(l->parent)) {
        finish(l, NULL, false, "cancelled while finding the locator");
        return;
    }
    const json_t *sc = json_object_get(result, "structuredContent");
    bool ok = !json_is_true(json_object_get(result, "isError")) && sc;
    if (l->probe == EXACT || l->probe == TEXT) {
        const json_t *m = json_array_get(json_object_get(sc, "matches"), 0);
        const char *source = json_string_value(json_object_get(sc, "source"));
        const char *ref = json_string_value(json_object_get(m, "ref"));
        const json_t *b = json_object_get(m, "bounds");
        bool a11y = source && strcmp(source, "accessibility") == 0;
        if (ok && m && a11y && ref) {
            bool mv = moved(l->locator, b);
            if (!(l->strict && mv)) {
                clear_target(l->args);
                json_object_set_new(l->args, "ref", json_string(ref));
                finish(l, l->probe == EXACT ? "ref" : "text", l->probe == TEXT || mv, NULL);
                return;
            }
        } else if (ok && m && b && !l->strict) {
            clear_target(l->args);
            json_object_set_new(l->args, "x", json_integer(num(b, "x") + num(b, "width") / 2));
            json_object_set_new(l->args, "y", json_integer(num(b, "y") + num(b, "height") / 2));
            finish(l, "ocr", true, NULL);
            return;
        }
    } else if (l->probe == POINT && ok) {
        const char *title = json_string_value(json_object_get(l->locator, "window"));
        const json_t *p = json_object_get(l->locator, "point");
        size_t i;
        const json_t *w;
        json_array_foreach(json_object_get(sc, "windows"), i, w)
        {
            const char *t = json_string_value(json_object_get(w, "title"));
            if (!t || !strstr(t, title))
                continue;
            const json_t *b = json_object_get(w, "bounds");
            clear_target(l->args);
            json_object_set_new(l->args, "x", json_integer(num(b, "x") + num(p, "x")));
            json_object_set_new(l->args, "y", json_integer(num(b, "y") + num(p, "y")));
            finish(l, "point", true, NULL);
            return;
        }
    }
    l->probe++;
    next(l);
}

static void spawn(struct locate *l, const char *tool, json_t *args)
{
    const json_t *session = json_object_get(l->args, "session");
    if (json_is_string(session))
        json_object_set(args, "session", (json_t *)session);
    char *err = NULL;
    if (!tool_call_spawn(l->parent, tool, args, json_deep_copy(l->notes), NULL, probe_done, l,
                         l->child, &err)) {
        free(err);
        *l->child = NULL;
        l->probe++;
        next(l);
    }
}

static void next(struct locate *l)
{
    const json_t *loc = l->locator;
    const json_t *name = json_object_get(loc, "name");
    if (l->strict && l->probe > EXACT)
        l->probe = DONE;
    if (l->probe == EXACT && json_string_length(name) > 0) {
        json_t *a = json_pack("{s:O, s:b}", "text", name, "exact", 1);
        static const char *const keys[] = {"role", "app", "window"};
        for (size_t i = 0; i < 3; i++)
            if (json_is_string(json_object_get(loc, keys[i])))
                json_object_set(a, keys[i], json_object_get(loc, keys[i]));
        spawn(l, "find", a);
        return;
    }
    if (l->probe == EXACT)
        l->probe = TEXT;
    if (l->probe == TEXT && json_string_length(name) > 0) {
        json_t *a = json_pack("{s:O}", "text", name);
        if (json_is_string(json_object_get(loc, "window")))
            json_object_set(a, "window", json_object_get(loc, "window"));
        spawn(l, "find", a);
        return;
    }
    if (l->probe == TEXT)
        l->probe = POINT;
    const json_t *p = json_object_get(loc, "point");
    if (l->probe == POINT && p && json_is_string(json_object_get(loc, "window"))) {
        spawn(l, "window_list", json_object());
        return;
    }
    if (l->probe == POINT && p) {
        /* A point on the screen, not in a window: all there is. */
        clear_target(l->args);
        json_object_set(l->args, "x", json_object_get(p, "x"));
        json_object_set(l->args, "y", json_object_get(p, "y"));
        finish(l, "point", true, NULL);
        return;
    }
    char *err = xasprintf("locator %s \"%s\" not found%s",
                          json_string_value(json_object_get(loc, "role"))
                              ? json_string_value(json_object_get(loc, "role"))
                              : "element",
                          json_string_value(name) ? json_string_value(name) : "",
                          l->strict ? " by accessibility where it was saved (strict)"
                                    : " by accessibility, text, OCR or its saved point");
    finish(l, NULL, false, err);
    free(err);
}

void recipe_locate(struct tool_call *parent, const json_t *locator, json_t *args, bool strict,
                   const json_t *notes, recipe_locate_fn done, void *ud, struct tool_call **child)
{
    struct locate *l = xcalloc(1, sizeof *l);
    l->parent = parent;
    l->locator = json_deep_copy(locator);
    l->args = args;
    l->notes = json_deep_copy(notes);
    l->strict = strict;
    l->done = done;
    l->ud = ud;
    l->child = child;
    *child = NULL;
    next(l);
}
