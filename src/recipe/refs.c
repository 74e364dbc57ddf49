#include "recipe/refs.h"

#include "core/xmalloc.h"
#include "mcp/tool.h"

#include <string.h>

/* [{owner, session, ref, role, name, app?, bounds}], oldest first. */
static json_t *elements;
/* {"owner\nsession": [{title, bounds}]}: the latest window_list of each. */
static json_t *windows;

static char *key_of(const char *owner, const char *session)
{
    return xasprintf("%s\n%s", owner, session);
}

static void remember(const char *owner, const char *session, const json_t *e, const json_t *app)
{
    const json_t *ref = json_object_get(e, "ref");
    const json_t *role = json_object_get(e, "role");
    const json_t *name = json_object_get(e, "name");
    if (!json_is_string(ref) || !json_is_string(role) || !json_is_string(name))
        return;
    if (!elements)
        elements = json_array();
    if (json_array_size(elements) >= REFS_MAX)
        json_array_remove(elements, 0);
    json_t *item = json_pack("{s:s, s:s, s:O, s:O, s:O}", "owner", owner, "session", session, "ref",
                             ref, "role", role, "name", name);
    if (json_is_string(app))
        json_object_set(item, "app", (json_t *)app);
    const json_t *b = json_object_get(e, "bounds");
    if (json_is_object(b))
        json_object_set(item, "bounds", (json_t *)b);
    json_array_append_new(elements, item);
}

void recipe_refs_observe(const struct tool_call *call, const json_t *result)
{
    const json_t *sc = json_object_get(result, "structuredContent");
    const json_t *found = json_object_get(sc, "elements"),
                 *matches = json_object_get(sc, "matches");
    const json_t *wins = json_object_get(sc, "windows");
    /* Most answers have nothing to remember: no more lookups for them. */
    if (!found && !matches && !json_is_array(wins))
        return;
    const char *owner = tool_call_owner(call);
    const char *session = json_string_value(json_object_get(sc, "session"));
    if (!owner || !session || json_is_true(json_object_get(result, "isError")))
        return;
    const json_t *app = json_object_get(tool_call_args(call), "app");
    size_t i;
    const json_t *e;
    json_array_foreach(found, i, e)
    {
        remember(owner, session, e, app);
    }
    json_array_foreach(matches, i, e)
    {
        remember(owner, session, e, app);
    }
    if (json_is_array(wins)) {
        if (!windows)
            windows = json_object();
        char *k = key_of(owner, session);
        json_object_set(windows, k, (json_t *)wins);
        free(k);
    }
}

static int num(const json_t *o, const char *k)
{
    return (int)json_integer_value(json_object_get(o, k));
}

/* The smallest window of owner's session holding the point, or NULL. */
static const json_t *window_at(const char *owner, const char *session, int x, int y)
{
    char *k = key_of(owner, session);
    const json_t *list = json_object_get(windows, k);
    free(k);
    const json_t *best = NULL;
    size_t i;
    const json_t *w;
    json_array_foreach(list, i, w)
    {
        const json_t *b = json_object_get(w, "bounds");
        int wx = num(b, "x"), wy = num(b, "y"), ww = num(b, "width"), wh = num(b, "height");
        if (!json_is_string(json_object_get(w, "title")) || x < wx || y < wy || x >= wx + ww ||
            y >= wy + wh)
            continue;
        const json_t *bb = best ? json_object_get(best, "bounds") : NULL;
        if (!best || (long)ww * wh < (long)num(bb, "width") * num(bb, "height"))
            best = w;
    }
    return best;
}

static json_t *locator_for(const char *owner, const char *session, const char *ref)
{
    /* Newest first: the ref as the client last saw it. */
    for (size_t i = json_array_size(elements); i-- > 0;) {
        const json_t *e = json_array_get(elements, i);
        const char *s = json_string_value(json_object_get(e, "session"));
        if (strcmp(json_string_value(json_object_get(e, "owner")), owner) != 0 ||
            strcmp(json_string_value(json_object_get(e, "ref")), ref) != 0 ||
            (session && strcmp(s, session) != 0))
            continue;
        json_t *loc = json_pack("{s:O, s:O}", "role", json_object_get(e, "role"), "name",
                                json_object_get(e, "name"));
        if (json_object_get(e, "app"))
            json_object_set(loc, "app", json_object_get(e, "app"));
        const json_t *b = json_object_get(e, "bounds");
        if (b) {
            int cx = num(b, "x") + num(b, "width") / 2, cy = num(b, "y") + num(b, "height") / 2;
            json_object_set_new(loc, "screen", json_pack("{s:i, s:i}", "x", cx, "y", cy));
            const json_t *w = window_at(owner, s, cx, cy);
            const json_t *wb = json_object_get(w, "bounds");
            if (w) {
                json_object_set(loc, "window", json_object_get(w, "title"));
                json_object_set_new(
                    loc, "point",
                    json_pack("{s:i, s:i}", "x", cx - num(wb, "x"), "y", cy - num(wb, "y")));
            } else {
                json_object_set_new(loc, "point", json_pack("{s:i, s:i}", "x", cx, "y", cy));
            }
        }
        return loc;
    }
    return NULL;
}

int recipe_refs_to_locators(json_t *steps, const char *owner)
{
    int n = 0;
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step)
    {
        json_t *args = json_object_get(step, "arguments");
        const char *ref = json_string_value(json_object_get(args, "ref"));
        if (!owner || !ref || json_object_get(step, "locator"))
            continue;
        json_t *loc = locator_for(owner, json_string_value(json_object_get(args, "session")), ref);
        if (!loc)
            continue;
        json_object_set_new(step, "locator", loc);
        json_object_del(args, "ref");
        n++;
    }
    return n;
}

void recipe_refs_clear(void)
{
    json_decref(elements);
    json_decref(windows);
    elements = windows = NULL;
}
