#include "backend/desktop/perceive/atspi_element.h"

#include "core/xmalloc.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#define CALL_MS   1500
#define MAX_CHAIN 64 /* levels from a window down to an element */
#define MAX_APPS  64
#define ROOT_PATH "/org/a11y/atspi/accessible/root"
#define NULL_PATH "/org/a11y/atspi/null"

static const char *const acc_iface = "org.a11y.atspi.Accessible";
static const char *const props_iface = "org.freedesktop.DBus.Properties";

/* Questions sent together and waited for together: a dozen elements cost
 * two round trips, not forty. Answers arrive on a main context private to
 * the calling thread. */
struct batch {
    GDBusConnection *bus;
    GMainContext *ctx;
    int pending;
};

struct slot {
    struct batch *b;
    GVariant **out;
};

static void batch_begin(struct batch *b, GDBusConnection *bus)
{
    b->bus = bus;
    b->pending = 0;
    b->ctx = g_main_context_new();
    g_main_context_push_thread_default(b->ctx);
}

static void batch_wait(struct batch *b)
{
    while (b->pending > 0)
        g_main_context_iteration(b->ctx, TRUE);
}

static void batch_end(struct batch *b)
{
    batch_wait(b);
    g_main_context_pop_thread_default(b->ctx);
    g_main_context_unref(b->ctx);
}

static void landed(GObject *src, GAsyncResult *res, void *ud)
{
    struct slot *s = ud;
    /* An error (no such object, a timeout) leaves the answer empty. */
    *s->out = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, NULL);
    s->b->pending--;
    free(s);
}

static void batch_call(struct batch *b, const char *dest, const char *path, const char *iface,
                       const char *method, GVariant *params, const char *reply, GVariant **out)
{
    *out = NULL;
    struct slot *s = xmalloc(sizeof *s);
    *s = (struct slot){b, out};
    b->pending++;
    g_dbus_connection_call(b->bus, dest, path, iface, method, params, G_VARIANT_TYPE(reply),
                           G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_MS, NULL, landed, s);
}

static GVariant *call_sync(GDBusConnection *bus, const char *dest, const char *path,
                           const char *iface, const char *method, GVariant *params,
                           const char *reply, GError **e)
{
    return g_dbus_connection_call_sync(bus, dest, path, iface, method, params,
                                       reply ? G_VARIANT_TYPE(reply) : NULL,
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_MS, NULL, e);
}

static char *gerror_msg(GError *e, const char *what)
{
    char *m = xasprintf("%s: %s", what, e ? e->message : "no answer");
    if (e)
        g_error_free(e);
    return m;
}

static bool ifaces_have(GVariant *answer, const char *name)
{
    if (!answer)
        return false;
    GVariantIter *it;
    const char *s;
    bool found = false;
    g_variant_get(answer, "(as)", &it);
    while (!found && g_variant_iter_next(it, "&s", &s))
        found = strcmp(s, name) == 0;
    g_variant_iter_free(it);
    return found;
}

static const char *const state_names[] = {
    "invalid",         "active",
    "armed",           "busy",
    "checked",         "collapsed",
    "defunct",         "editable",
    "enabled",         "expandable",
    "expanded",        "focusable",
    "focused",         "has tooltip",
    "horizontal",      "iconified",
    "modal",           "multi line",
    "multiselectable", "opaque",
    "pressed",         "resizable",
    "selectable",      "selected",
    "sensitive",       "showing",
    "single line",     "stale",
    "transient",       "vertical",
    "visible",         "manages descendants",
    "indeterminate",   "required",
    "truncated",       "animated",
    "invalid entry",   "supports autocompletion",
    "selectable text", "is default",
    "visited",         "checkable",
    "has popup",       "read only",
};

const char *atspi_state_name(int bit)
{
    if (bit < 1 || bit >= (int)(sizeof state_names / sizeof *state_names))
        return NULL;
    return state_names[bit];
}

/* What is asked of each element. */
enum ask { A_PROPS, A_ROLE, A_STATE, A_IFACES, A_EXTENTS, A_TEXT, A_VALUE, A_ACTIONS, A_N };

struct fetch {
    const char *dest, *path;
    GVariant *a[A_N];
};

static void fetch_finish(struct fetch *f, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < A_N; k++)
            if (f[i].a[k])
                g_variant_unref(f[i].a[k]);
}

/* Two rounds for any number of elements: who they are, then what only
 * some interfaces say. An interface is asked of an element only when it
 * has it: GTK logs a CRITICAL for every call that misses. */
static void fetch_all(GDBusConnection *bus, struct fetch *f, int n, bool component_known)
{
    struct batch b;
    batch_begin(&b, bus);
    /* The elements above the last are named on its path: their name, role
     * and place are enough, and an application answers one question at a
     * time, so each one left out is time saved. */
    for (int i = 0; i < n - 1; i++) {
        batch_call(&b, f[i].dest, f[i].path, props_iface, "GetAll", g_variant_new("(s)", acc_iface),
                   "(a{sv})", &f[i].a[A_PROPS]);
        batch_call(&b, f[i].dest, f[i].path, acc_iface, "GetRoleName", NULL, "(s)",
                   &f[i].a[A_ROLE]);
        if (component_known)
            batch_call(&b, f[i].dest, f[i].path, "org.a11y.atspi.Component", "GetExtents",
                       g_variant_new("(u)", 0u), "((iiii))", &f[i].a[A_EXTENTS]);
    }
    for (int i = n - 1; i < n; i++) {
        batch_call(&b, f[i].dest, f[i].path, props_iface, "GetAll", g_variant_new("(s)", acc_iface),
                   "(a{sv})", &f[i].a[A_PROPS]);
        batch_call(&b, f[i].dest, f[i].path, acc_iface, "GetRoleName", NULL, "(s)",
                   &f[i].a[A_ROLE]);
        batch_call(&b, f[i].dest, f[i].path, acc_iface, "GetState", NULL, "(au)", &f[i].a[A_STATE]);
        batch_call(&b, f[i].dest, f[i].path, acc_iface, "GetInterfaces", NULL, "(as)",
                   &f[i].a[A_IFACES]);
    }
    batch_wait(&b);
    for (int i = n - 1; i < n; i++) {
        GVariant *ifaces = f[i].a[A_IFACES];
        if (ifaces_have(ifaces, "org.a11y.atspi.Component"))
            batch_call(&b, f[i].dest, f[i].path, "org.a11y.atspi.Component", "GetExtents",
                       g_variant_new("(u)", 0u), "((iiii))", &f[i].a[A_EXTENTS]);
        if (ifaces_have(ifaces, "org.a11y.atspi.Text"))
            batch_call(&b, f[i].dest, f[i].path, "org.a11y.atspi.Text", "GetText",
                       g_variant_new("(ii)", 0, -1), "(s)", &f[i].a[A_TEXT]);
        if (ifaces_have(ifaces, "org.a11y.atspi.Value"))
            batch_call(&b, f[i].dest, f[i].path, props_iface, "GetAll",
                       g_variant_new("(s)", "org.a11y.atspi.Value"), "(a{sv})", &f[i].a[A_VALUE]);
        if (ifaces_have(ifaces, "org.a11y.atspi.Action"))
            batch_call(&b, f[i].dest, f[i].path, "org.a11y.atspi.Action", "GetActions", NULL,
                       "(a(sss))", &f[i].a[A_ACTIONS]);
    }
    batch_end(&b);
}

static const char *prop_string(GVariant *props_answer, const char *key)
{
    const char *s = NULL;
    if (props_answer) {
        GVariant *props = g_variant_get_child_value(props_answer, 0);
        g_variant_lookup(props, key, "&s", &s);
        g_variant_unref(props); /* the string lives in the answer */
    }
    return s ? s : "";
}

static double prop_double(GVariant *props, const char *key)
{
    double d = 0;
    g_variant_lookup(props, key, "d", &d);
    return d;
}

static void fill(struct atspi_element *e, const struct fetch *f)
{
    struct atspi_node *n = &e->node;
    memset(e, 0, sizeof *e);
    n->bus_name = xstrdup(f->dest);
    n->path = xstrdup(f->path);
    const char *role = "unknown";
    if (f->a[A_ROLE])
        g_variant_get(f->a[A_ROLE], "(&s)", &role);
    n->role = xstrdup(role);
    n->name = xstrdup(prop_string(f->a[A_PROPS], "Name"));
    e->description = xstrdup(prop_string(f->a[A_PROPS], "Description"));
    if (f->a[A_STATE]) {
        GVariantIter *it;
        guint32 word, i = 0;
        g_variant_get(f->a[A_STATE], "(au)", &it);
        while (i < 2 && g_variant_iter_next(it, "u", &word))
            n->states |= (uint64_t)word << (32 * i++);
        g_variant_iter_free(it);
    }
    n->has_action = f->a[A_ACTIONS] != NULL;
    n->has_text = ifaces_have(f->a[A_IFACES], "org.a11y.atspi.Text");
    n->has_editable = ifaces_have(f->a[A_IFACES], "org.a11y.atspi.EditableText");
    if (f->a[A_EXTENTS])
        g_variant_get(f->a[A_EXTENTS], "((iiii))", &n->x, &n->y, &n->w, &n->h);
    if (f->a[A_VALUE]) {
        GVariant *props = g_variant_get_child_value(f->a[A_VALUE], 0);
        e->has_range = true;
        e->current = prop_double(props, "CurrentValue");
        e->minimum = prop_double(props, "MinimumValue");
        e->maximum = prop_double(props, "MaximumValue");
        e->step = prop_double(props, "MinimumIncrement");
        g_variant_unref(props);
    }
    if (f->a[A_TEXT]) {
        const char *s;
        g_variant_get(f->a[A_TEXT], "(&s)", &s);
        /* A label's text is its name: said once, as in snapshots. */
        if (n->has_editable || strcmp(s, n->name) != 0)
            n->value = xstrdup(s);
    } else if (e->has_range) {
        n->value = xasprintf("%g", e->current);
    }
    if (f->a[A_ACTIONS]) {
        GVariantIter *it;
        const char *name, *desc, *keys;
        g_variant_get(f->a[A_ACTIONS], "(a(sss))", &it);
        e->actions = xcalloc(g_variant_iter_n_children(it) + 1, sizeof *e->actions);
        while (g_variant_iter_next(it, "(&s&s&s)", &name, &desc, &keys))
            e->actions[e->n_actions++] = xstrdup(name);
        g_variant_iter_free(it);
    }
}

static void element_finish(struct atspi_element *e)
{
    free(e->node.bus_name);
    free(e->node.path);
    free(e->node.role);
    free(e->node.name);
    free(e->node.value);
    free(e->description);
    for (int i = 0; i < e->n_actions; i++)
        free(e->actions[i]);
    free(e->actions);
}

void atspi_chain_finish(struct atspi_chain *c)
{
    for (int i = 0; i < c->n; i++)
        element_finish(&c->chain[i]);
    free(c->chain);
    free(c->app);
    memset(c, 0, sizeof *c);
}

/* Describe the elements named by dests/paths (window first) and their
 * application (app_dest's root) into out. */
static void describe(GDBusConnection *bus, char **dests, char **paths, int n, const char *app_dest,
                     bool component_known, struct atspi_chain *out)
{
    struct fetch *f = xcalloc((size_t)n + 1, sizeof *f);
    for (int i = 0; i < n; i++)
        f[i].dest = dests[i], f[i].path = paths[i];
    GVariant *app = NULL;
    struct batch b;
    batch_begin(&b, bus);
    batch_call(&b, app_dest, ROOT_PATH, props_iface, "Get",
               g_variant_new("(ss)", acc_iface, "Name"), "(v)", &app);
    fetch_all(bus, f, n, component_known);
    batch_end(&b);
    out->chain = xcalloc((size_t)n, sizeof *out->chain);
    out->n = n;
    for (int i = 0; i < n; i++) {
        fill(&out->chain[i], &f[i]);
        out->chain[i].partial = i < n - 1;
    }
    fetch_finish(f, n);
    free(f);
    out->app = NULL;
    if (app) {
        GVariant *v;
        g_variant_get(app, "(v)", &v);
        if (g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
            out->app = xstrdup(g_variant_get_string(v, NULL));
        g_variant_unref(v);
        g_variant_unref(app);
    }
    if (!out->app)
        out->app = xstrdup("");
}

static void free_names(char **dests, char **paths, int n)
{
    for (int i = 0; i < n; i++) {
        free(dests[i]);
        free(paths[i]);
    }
}

bool atspi_element_chain(struct atspi *a, const char *bus_name, const char *path,
                         struct atspi_chain *out, char **err)
{
    GDBusConnection *bus = atspi_bus(a);
    memset(out, 0, sizeof *out);
    char *dests[MAX_CHAIN], *paths[MAX_CHAIN];
    int n = 0;
    dests[n] = xstrdup(bus_name);
    paths[n++] = xstrdup(path);
    /* Up through the parents to the top-level window: the one whose parent
     * is its application's root. An application root stands alone. */
    while (strcmp(paths[n - 1], ROOT_PATH) != 0) {
        GError *e = NULL;
        GVariant *r = call_sync(bus, dests[n - 1], paths[n - 1], props_iface, "Get",
                                g_variant_new("(ss)", acc_iface, "Parent"), "(v)", &e);
        if (!r) {
            if (n == 1) {
                *err = gerror_msg(e, "the element does not answer");
                free_names(dests, paths, n);
                return false;
            }
            g_clear_error(&e);
            break;
        }
        GVariant *v;
        const char *pd = "", *pp = NULL_PATH;
        g_variant_get(r, "(v)", &v);
        if (g_variant_is_of_type(v, G_VARIANT_TYPE("(so)")))
            g_variant_get(v, "(&s&o)", &pd, &pp);
        bool top =
            !*pd || strcmp(pp, NULL_PATH) == 0 || strcmp(pp, ROOT_PATH) == 0 || n == MAX_CHAIN;
        if (!top) {
            dests[n] = xstrdup(pd);
            paths[n++] = xstrdup(pp);
        }
        g_variant_unref(v);
        g_variant_unref(r);
        if (top)
            break;
    }
    /* Window first. */
    for (int i = 0; i < n / 2; i++) {
        char *t = dests[i];
        dests[i] = dests[n - 1 - i];
        dests[n - 1 - i] = t;
        t = paths[i];
        paths[i] = paths[n - 1 - i];
        paths[n - 1 - i] = t;
    }
    describe(bus, dests, paths, n, bus_name, false, out);
    free_names(dests, paths, n);
    return true;
}

static uint64_t states_of(GVariant *answer)
{
    uint64_t states = 0;
    if (!answer)
        return 0;
    GVariantIter *it;
    guint32 word, i = 0;
    g_variant_get(answer, "(au)", &it);
    while (i < 2 && g_variant_iter_next(it, "u", &word))
        states |= (uint64_t)word << (32 * i++);
    g_variant_iter_free(it);
    return states;
}

/* A top-level window, as element_at considers it. */
struct win {
    char *dest, *path;
    GVariant *state, *extents;
};

/* The showing top-level window holding x,y; -1 if none. */
static int window_at(struct win *w, int n, int x, int y)
{
    int best = -1;
    bool best_active = false;
    for (int i = 0; i < n; i++) {
        if (!w[i].extents)
            continue;
        int wx, wy, ww, wh;
        g_variant_get(w[i].extents, "((iiii))", &wx, &wy, &ww, &wh);
        if (x < wx || y < wy || x >= wx + ww || y >= wy + wh)
            continue;
        bool active = ATSPI_HAS(states_of(w[i].state), ATSPI_STATE_ACTIVE);
        /* Later applications registered later: most likely on top. */
        if (best < 0 || active || !best_active) {
            best = i;
            best_active = best_active || active;
        }
    }
    return best;
}

/* Every application's top-level windows, with their state, interfaces and
 * (for the showing ones with a Component) extents: three rounds for the
 * whole desktop. */
/* What the last element_at learnt of the desktop's windows: the
 * registry's applications and each one's top-level windows, as answered. */
struct atspi_hint {
    GVariant *apps;
    GVariant *kids[MAX_APPS];
    int napps;
};

struct atspi_hint *atspi_hint_create(void)
{
    return xcalloc(1, sizeof(struct atspi_hint));
}

static void hint_clear(struct atspi_hint *h)
{
    if (h->apps)
        g_variant_unref(h->apps);
    for (int i = 0; i < h->napps; i++)
        if (h->kids[i])
            g_variant_unref(h->kids[i]);
    memset(h, 0, sizeof *h);
}

void atspi_hint_destroy(struct atspi_hint *h)
{
    if (!h)
        return;
    hint_clear(h);
    free(h);
}

/* The windows the applications' answers name. */
static int windows_from(GVariant *const *kids, int napps, struct win **out)
{
    struct win *w = NULL;
    int n = 0;
    for (int i = 0; i < napps; i++) {
        if (!kids[i])
            continue;
        GVariantIter *it;
        const char *dest, *path;
        g_variant_get(kids[i], "(a(so))", &it);
        while (g_variant_iter_next(it, "(&s&o)", &dest, &path)) {
            if (!*dest || strcmp(path, NULL_PATH) == 0)
                continue;
            w = xrealloc(w, (size_t)(n + 1) * sizeof *w);
            w[n] = (struct win){.dest = xstrdup(dest), .path = xstrdup(path)};
            n++;
        }
        g_variant_iter_free(it);
    }
    *out = w;
    return n;
}

/* Top-level windows have a Component in every toolkit: their extents are
 * asked with their state, in one round (answered by b's next wait). */
static void ask_windows(struct batch *b, struct win *w, int n)
{
    for (int i = 0; i < n; i++) {
        batch_call(b, w[i].dest, w[i].path, acc_iface, "GetState", NULL, "(au)", &w[i].state);
        batch_call(b, w[i].dest, w[i].path, "org.a11y.atspi.Component", "GetExtents",
                   g_variant_new("(u)", 0u), "((iiii))", &w[i].extents);
    }
}

static void drop_hidden(struct win *w, int n)
{
    for (int i = 0; i < n; i++)
        if (w[i].extents && !ATSPI_HAS(states_of(w[i].state), ATSPI_STATE_SHOWING)) {
            g_variant_unref(w[i].extents);
            w[i].extents = NULL;
        }
}

/* Asks each application of apps for its windows (kept in h), then the
 * windows for their state and extents: two rounds. */
static int list_windows(GDBusConnection *bus, GVariant *apps, struct atspi_hint *h,
                        struct win **out)
{
    hint_clear(h);
    h->apps = g_variant_ref(apps);
    struct batch b;
    batch_begin(&b, bus);
    GVariantIter *it;
    const char *dest, *path;
    g_variant_get(apps, "(a(so))", &it);
    while (h->napps < MAX_APPS && g_variant_iter_next(it, "(&s&o)", &dest, &path)) {
        batch_call(&b, dest, path, acc_iface, "GetChildren", NULL, "(a(so))", &h->kids[h->napps]);
        h->napps++;
    }
    g_variant_iter_free(it);
    batch_wait(&b);
    int n = windows_from(h->kids, h->napps, out);
    ask_windows(&b, *out, n);
    batch_end(&b);
    drop_hidden(*out, n);
    return n;
}

static void windows_free(struct win *w, int n);

/* The windows as the hint has them, asked for their state and extents in
 * the same round as the registry and the applications are asked again:
 * when those answer as the hint does, nothing opened or closed and the
 * windows' answers are current. false (nothing kept; *apps_now the
 * registry's answer, or NULL) otherwise. */
static bool windows_by_hint(GDBusConnection *bus, struct atspi_hint *h, GVariant **apps_now,
                            struct win **out, int *n)
{
    GVariant *kids_now[MAX_APPS] = {0};
    struct batch b;
    batch_begin(&b, bus);
    batch_call(&b, "org.a11y.atspi.Registry", ROOT_PATH, acc_iface, "GetChildren", NULL, "(a(so))",
               apps_now);
    GVariantIter *it;
    const char *dest, *path;
    int i = 0;
    g_variant_get(h->apps, "(a(so))", &it);
    while (i < h->napps && g_variant_iter_next(it, "(&s&o)", &dest, &path))
        batch_call(&b, dest, path, acc_iface, "GetChildren", NULL, "(a(so))", &kids_now[i++]);
    g_variant_iter_free(it);
    *n = windows_from(h->kids, h->napps, out);
    ask_windows(&b, *out, *n);
    batch_end(&b);
    bool same = *apps_now && g_variant_equal(*apps_now, h->apps);
    for (int k = 0; k < h->napps; k++) {
        same = same && kids_now[k] && h->kids[k] && g_variant_equal(kids_now[k], h->kids[k]);
        if (kids_now[k])
            g_variant_unref(kids_now[k]);
    }
    if (!same) {
        windows_free(*out, *n);
        *out = NULL;
        *n = 0;
        return false;
    }
    drop_hidden(*out, *n);
    return true;
}

static void windows_free(struct win *w, int n)
{
    for (int i = 0; i < n; i++) {
        free(w[i].dest);
        free(w[i].path);
        if (w[i].state)
            g_variant_unref(w[i].state);
        if (w[i].extents)
            g_variant_unref(w[i].extents);
    }
    free(w);
}

bool atspi_element_at(struct atspi *a, struct atspi_hint *hint, int x, int y,
                      struct atspi_chain *out, char **err)
{
    GDBusConnection *bus = atspi_bus(a);
    memset(out, 0, sizeof *out);
    *err = NULL;
    struct win *w = NULL;
    int nw = 0;
    GVariant *apps = NULL;
    GError *e = NULL;
    if (!hint->apps || !windows_by_hint(bus, hint, &apps, &w, &nw)) {
        if (!apps)
            apps = call_sync(bus, "org.a11y.atspi.Registry", ROOT_PATH, acc_iface, "GetChildren",
                             NULL, "(a(so))", &e);
        if (!apps) {
            hint_clear(hint);
            bool absent = e && (g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
                                g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN));
            if (absent) { /* no application registered: nothing accessible anywhere */
                g_error_free(e);
                return false;
            }
            *err = gerror_msg(e, "the accessibility registry did not answer");
            return false;
        }
        nw = list_windows(bus, apps, hint, &w);
    }
    if (apps)
        g_variant_unref(apps);
    int at = window_at(w, nw, x, y);
    if (at < 0) {
        windows_free(w, nw);
        return false;
    }
    char *dests[MAX_CHAIN], *paths[MAX_CHAIN];
    int n = 0;
    dests[n] = xstrdup(w[at].dest);
    paths[n++] = xstrdup(w[at].path);
    windows_free(w, nw);
    /* Down through the children under the point: toolkits answer one level
     * at a time. */
    while (n < MAX_CHAIN) {
        /* What a Component answers at a point has a Component itself (ATK
         * looks only among children that do): no need to ask first. */
        GVariant *r =
            call_sync(bus, dests[n - 1], paths[n - 1], "org.a11y.atspi.Component",
                      "GetAccessibleAtPoint", g_variant_new("(iiu)", x, y, 0u), "((so))", NULL);
        if (!r)
            break;
        const char *cd, *cp;
        g_variant_get(r, "((&s&o))", &cd, &cp);
        bool deeper = *cd && strcmp(cp, NULL_PATH) != 0 &&
                      !(strcmp(cd, dests[n - 1]) == 0 && strcmp(cp, paths[n - 1]) == 0);
        if (deeper) {
            dests[n] = xstrdup(cd);
            paths[n++] = xstrdup(cp);
        }
        g_variant_unref(r);
        if (!deeper)
            break;
    }
    describe(bus, dests, paths, n, dests[0], true, out);
    free_names(dests, paths, n);
    return true;
}

bool atspi_set_value(struct atspi *a, const char *bus_name, const char *path, double value,
                     char **err)
{
    GDBusConnection *bus = atspi_bus(a);
    GError *e = NULL;
    GVariant *ifaces = call_sync(bus, bus_name, path, acc_iface, "GetInterfaces", NULL, "(as)", &e);
    if (!ifaces) {
        *err = gerror_msg(e, "the element does not answer");
        return false;
    }
    bool has = ifaces_have(ifaces, "org.a11y.atspi.Value");
    g_variant_unref(ifaces);
    if (!has) {
        *err = xstrdup("the element has no value to set (no AT-SPI Value interface: not a slider, "
                       "spin button or scroll bar)");
        return false;
    }
    GVariant *r = call_sync(
        bus, bus_name, path, props_iface, "Set",
        g_variant_new("(ssv)", "org.a11y.atspi.Value", "CurrentValue", g_variant_new_double(value)),
        NULL, &e);
    if (!r) {
        *err = gerror_msg(e, "the application refused the value");
        return false;
    }
    g_variant_unref(r);
    return true;
}
