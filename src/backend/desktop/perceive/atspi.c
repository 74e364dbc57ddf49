#include "backend/desktop/perceive/atspi.h"

#include "core/xmalloc.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#define CALL_TIMEOUT_MS 1500
#define MAX_CHILDREN    500 /* per element: a 10 000-row table is not a snapshot */
#define MAX_RAW_DEPTH   80  /* toolkits nest deeply, but not this deeply */

struct atspi {
    GDBusConnection *bus; /* the accessibility bus */
};

static char *gerror_take(GError *e, const char *what)
{
    char *msg = xasprintf("%s: %s", what, e ? e->message : "no answer");
    if (e)
        g_error_free(e);
    return msg;
}

/* How long a walk waits for the registry to appear. */
#define REGISTRY_WAIT_MS 2000

static GVariant *call(GDBusConnection *c, const char *dest, const char *path, const char *iface,
                      const char *method, GVariant *params, const char *reply, int timeout_ms,
                      GError **e)
{
    return g_dbus_connection_call_sync(c, dest, path, iface, method, params,
                                       reply ? G_VARIANT_TYPE(reply) : NULL,
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms, NULL, e);
}

/* A connection attempt; on a timeout it is abandoned (and leaked) rather
 * than waited for. */
struct pending_connect {
    GDBusConnection *c;
    GError *e;
    bool done;
};

static void connected(GObject *src, GAsyncResult *res, void *ud)
{
    struct pending_connect *pc = ud;
    pc->c = g_dbus_connection_new_for_address_finish(res, &pc->e);
    pc->done = true;
}

static gboolean give_up(void *ud)
{
    *(bool *)ud = true;
    return G_SOURCE_REMOVE;
}

/* g_dbus_connection_new_for_address_sync has no timeout, and a bus daemon
 * that accepts but never authenticates (stopped, overloaded) would hold this
 * worker thread forever. */
static GDBusConnection *connect_bus(const char *address, int timeout_ms, const char *what,
                                    char **err)
{
    GMainContext *ctx = g_main_context_new();
    g_main_context_push_thread_default(ctx);
    struct pending_connect *pc = g_new0(struct pending_connect, 1);
    bool timed_out = false;
    GSource *timer = g_timeout_source_new((guint)timeout_ms);
    g_source_set_callback(timer, give_up, &timed_out, NULL);
    g_source_attach(timer, ctx);
    g_dbus_connection_new_for_address(address,
                                      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                      NULL, NULL, connected, pc);
    while (!pc->done && !timed_out)
        g_main_context_iteration(ctx, TRUE);
    g_source_destroy(timer);
    g_source_unref(timer);
    g_main_context_pop_thread_default(ctx);
    g_main_context_unref(ctx);
    if (!pc->done) {
        *err = xasprintf("%s: no answer within %d ms", what, timeout_ms);
        return NULL; /* pc stays with the abandoned attempt */
    }
    GDBusConnection *c = pc->c;
    if (!c)
        *err = gerror_take(pc->e, what);
    g_free(pc);
    return c;
}

struct atspi *atspi_connect(const char *session_bus_address, int timeout_ms, char **err)
{
    GError *e = NULL;
    GDBusConnection *session = connect_bus(session_bus_address, timeout_ms,
                                           "cannot connect to the desktop's session bus", err);
    if (!session)
        return NULL;
    /* GetAddress may start the bus launcher (D-Bus activation): allow it. */
    GVariant *r = g_dbus_connection_call_sync(
        session, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", NULL,
        G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL, &e);
    g_dbus_connection_close_sync(session, NULL, NULL);
    g_object_unref(session);
    if (!r) {
        *err = gerror_take(e, "the accessibility bus (org.a11y.Bus) did not answer");
        return NULL;
    }
    const char *addr = NULL;
    g_variant_get(r, "(&s)", &addr);
    GDBusConnection *a11y =
        connect_bus(addr, timeout_ms, "cannot connect to the accessibility bus", err);
    g_variant_unref(r);
    if (!a11y)
        return NULL;
    struct atspi *a = xcalloc(1, sizeof *a);
    a->bus = a11y;
    return a;
}

GDBusConnection *atspi_bus(struct atspi *a)
{
    return a->bus;
}

void atspi_destroy(struct atspi *a)
{
    if (!a)
        return;
    g_dbus_connection_close_sync(a->bus, NULL, NULL);
    g_object_unref(a->bus);
    free(a);
}

/* The walk asks for every element of one tree level at once and waits for
 * all the answers together: a dialog costs a few round trips (one per level)
 * instead of eight per element. Answers arrive on a main context private to
 * the calling worker thread. Bounds, text and value are asked only of
 * elements that have the interface: GTK's bridge logs a CRITICAL to the
 * application's stderr for every call on one that does not (hundreds per
 * snapshot of a large window, enough to fill an undrained pipe and freeze
 * the application). Those details go out with the next level's questions,
 * so they cost no extra round trip but the last. */
enum ask {
    ASK_PROPS,    /* Properties.GetAll(Accessible): Name, ChildCount */
    ASK_ROLE,     /* GetRoleName */
    ASK_STATE,    /* GetState */
    ASK_IFACES,   /* GetInterfaces */
    ASK_CHILDREN, /* GetChildren */
    ASK_EXTENTS,  /* Component.GetExtents, screen coordinates */
    ASK_TEXT,     /* Text.GetText(0, -1) */
    ASK_VALUE,    /* Value.CurrentValue */
    ASK_COUNT
};

/* One element as fetched, before folding. */
struct raw {
    char *dest, *path;
    int parent; /* raw index, -1 for applications */
    int first_child, child_count, next_sibling;
    bool app_root;
    int mdepth;             /* meaningful levels down to and including this one */
    GVariant *a[ASK_COUNT]; /* answers, NULL when the call failed */
};

struct walker {
    GDBusConnection *bus;
    GMainContext *ctx;
    const struct atspi_walk_opts *o;
    gint64 deadline_us;
    struct raw *raw;
    int nraw, cap;
    int pending; /* calls not answered yet */
    struct atspi_tree *t;
};

struct answer {
    struct walker *w;
    int node;
    enum ask k;
};

static int time_left_ms(const struct walker *w)
{
    gint64 left = (w->deadline_us - g_get_monotonic_time()) / 1000;
    if (left <= 0)
        return 0;
    return left < CALL_TIMEOUT_MS ? (int)left : CALL_TIMEOUT_MS;
}

static void truncate_for(struct atspi_tree *t, const char *why)
{
    t->truncated = true;
    if (!t->truncation)
        t->truncation = xstrdup(why);
}

/* Left out for lack of time or of an answer: what is missing may be there. */
static void truncate_unanswered(struct atspi_tree *t, const char *why)
{
    truncate_for(t, why);
    t->unanswered = true;
}

static void answered(GObject *src, GAsyncResult *res, void *ud)
{
    struct answer *an = ud;
    /* Errors (no such interface, timeouts) leave the answer empty. */
    an->w->raw[an->node].a[an->k] =
        g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, NULL);
    an->w->pending--;
    free(an);
}

static void ask(struct walker *w, int node, enum ask k, const char *iface, const char *method,
                GVariant *params, const char *reply)
{
    struct answer *an = xmalloc(sizeof *an);
    *an = (struct answer){w, node, k};
    w->pending++;
    g_dbus_connection_call(w->bus, w->raw[node].dest, w->raw[node].path, iface, method, params,
                           G_VARIANT_TYPE(reply), G_DBUS_CALL_FLAGS_NO_AUTO_START, time_left_ms(w),
                           NULL, answered, an);
}

static const char *const props_iface = "org.freedesktop.DBus.Properties";

/* What every element is asked: enough to name it, place it in the tree and
 * know which interfaces it has. */
static void ask_basics(struct walker *w, int i)
{
    const char *acc = "org.a11y.atspi.Accessible";
    ask(w, i, ASK_PROPS, props_iface, "GetAll", g_variant_new("(s)", acc), "(a{sv})");
    ask(w, i, ASK_ROLE, acc, "GetRoleName", NULL, "(s)");
    ask(w, i, ASK_STATE, acc, "GetState", NULL, "(au)");
    ask(w, i, ASK_IFACES, acc, "GetInterfaces", NULL, "(as)");
    ask(w, i, ASK_CHILDREN, acc, "GetChildren", NULL, "(a(so))");
}

static bool has_iface(GVariant *answer, const char *name);

/* Bounds, text and value: only through interfaces the element has. */
static void ask_details(struct walker *w, int i)
{
    GVariant *ifaces = w->raw[i].a[ASK_IFACES];
    if (has_iface(ifaces, "org.a11y.atspi.Component"))
        ask(w, i, ASK_EXTENTS, "org.a11y.atspi.Component", "GetExtents", g_variant_new("(u)", 0u),
            "((iiii))");
    if (has_iface(ifaces, "org.a11y.atspi.Text"))
        ask(w, i, ASK_TEXT, "org.a11y.atspi.Text", "GetText", g_variant_new("(ii)", 0, -1), "(s)");
    else if (has_iface(ifaces, "org.a11y.atspi.Value"))
        ask(w, i, ASK_VALUE, props_iface, "Get",
            g_variant_new("(ss)", "org.a11y.atspi.Value", "CurrentValue"), "(v)");
}

static int add_raw(struct walker *w, const char *dest, const char *path, int parent)
{
    if (w->nraw == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->raw = xrealloc(w->raw, (size_t)w->cap * sizeof *w->raw);
    }
    struct raw *r = &w->raw[w->nraw];
    memset(r, 0, sizeof *r);
    r->dest = xstrdup(dest);
    r->path = xstrdup(path);
    r->parent = parent;
    r->first_child = r->next_sibling = -1;
    r->app_root = parent < 0;
    return w->nraw++;
}

/* Roles that only group others; folded when unnamed with at most one child. */
static bool structural(const char *role)
{
    static const char *const roles[] = {"filler",           "panel",  "section", "unknown",
                                        "redundant object", "invalid"};
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (strcmp(role, roles[i]) == 0)
            return true;
    return false;
}

static bool has_iface(GVariant *answer, const char *name)
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

static const char *raw_name(const struct raw *r)
{
    const char *name = NULL;
    if (r->a[ASK_PROPS]) {
        GVariant *props = g_variant_get_child_value(r->a[ASK_PROPS], 0);
        g_variant_lookup(props, "Name", "&s", &name);
        g_variant_unref(props); /* the string lives in the parent answer */
    }
    return name ? name : "";
}

static int raw_child_count(const struct raw *r)
{
    if (!r->a[ASK_CHILDREN])
        return 0;
    GVariant *kids = g_variant_get_child_value(r->a[ASK_CHILDREN], 0);
    int n = (int)g_variant_n_children(kids);
    g_variant_unref(kids);
    return n;
}

static const char *raw_role(const struct raw *r)
{
    const char *role = "unknown";
    if (r->a[ASK_ROLE])
        g_variant_get(r->a[ASK_ROLE], "(&s)", &role);
    return role;
}

static uint64_t raw_states(const struct raw *r)
{
    uint64_t states = 0;
    if (!r->a[ASK_STATE])
        return 0;
    GVariantIter *it;
    guint32 word, i = 0;
    g_variant_get(r->a[ASK_STATE], "(au)", &it);
    while (i < 2 && g_variant_iter_next(it, "u", &word))
        states |= (uint64_t)word << (32 * i++);
    g_variant_iter_free(it);
    return states;
}

static bool raw_visible(const struct walker *w, const struct raw *r)
{
    return r->app_root || w->o->include_hidden || ATSPI_HAS(raw_states(r), ATSPI_STATE_SHOWING);
}

static bool raw_folded(const struct raw *r)
{
    return !r->app_root && structural(raw_role(r)) && !*raw_name(r) && raw_child_count(r) <= 1;
}

/* Queue the children of raw node i (already answered). */
static void expand(struct walker *w, int i)
{
    GVariant *kids = w->raw[i].a[ASK_CHILDREN];
    GVariantIter *it;
    const char *dest, *path;
    int n = 0, prev = -1;
    g_variant_get(kids, "(a(so))", &it);
    while (g_variant_iter_next(it, "(&s&o)", &dest, &path)) {
        if (!*dest || g_str_has_suffix(path, "/null"))
            continue;
        if (++n > MAX_CHILDREN) {
            truncate_for(w->t, "an element has more than 500 children");
            break;
        }
        int c = add_raw(w, dest, path, i);
        if (prev < 0)
            w->raw[i].first_child = c;
        else
            w->raw[prev].next_sibling = c;
        prev = c;
    }
    g_variant_iter_free(it);
}

/* Left out by the app or window filter: an application whose name does not
 * contain app, or a top-level window whose name does not contain window. */
static bool filtered(const struct walker *w, const struct raw *r)
{
    if (r->app_root)
        return w->o->app && !strstr(raw_name(r), w->o->app);
    return w->o->window && w->raw[r->parent].app_root && !strstr(raw_name(r), w->o->window);
}

static void emit(struct walker *w, int i, int parent, int depth)
{
    struct raw *r = &w->raw[i];
    if (!r->a[ASK_PROPS] || !raw_visible(w, r))
        return;
    if (filtered(w, r))
        return;
    int me = parent;
    if (!raw_folded(r)) {
        struct atspi_tree *t = w->t;
        if (depth > w->o->max_depth) {
            truncate_for(t, "deeper elements were left out (depth)");
            return;
        }
        if (t->count >= w->o->max_nodes) {
            truncate_for(t, "more elements than max_nodes");
            return;
        }
        t->nodes = xrealloc(t->nodes, (size_t)(t->count + 1) * sizeof *t->nodes);
        me = t->count++;
        struct atspi_node *n = &t->nodes[me];
        memset(n, 0, sizeof *n);
        n->bus_name = xstrdup(r->dest);
        n->path = xstrdup(r->path);
        n->role = xstrdup(raw_role(r));
        n->name = xstrdup(raw_name(r));
        n->states = raw_states(r);
        n->parent = parent;
        n->depth = depth;
        n->has_action = has_iface(r->a[ASK_IFACES], "org.a11y.atspi.Action");
        n->has_text = has_iface(r->a[ASK_IFACES], "org.a11y.atspi.Text");
        n->has_editable = has_iface(r->a[ASK_IFACES], "org.a11y.atspi.EditableText");
        if (r->a[ASK_EXTENTS])
            g_variant_get(r->a[ASK_EXTENTS], "((iiii))", &n->x, &n->y, &n->w, &n->h);
        if (r->a[ASK_TEXT]) {
            const char *s;
            g_variant_get(r->a[ASK_TEXT], "(&s)", &s);
            /* A label's text is its name: say it once. */
            if (n->has_editable || strcmp(s, n->name) != 0)
                n->value = xstrdup(s);
        } else if (r->a[ASK_VALUE]) {
            GVariant *v;
            g_variant_get(r->a[ASK_VALUE], "(v)", &v);
            if (g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE))
                n->value = xasprintf("%g", g_variant_get_double(v));
            g_variant_unref(v);
        }
        depth++;
    }
    for (int c = r->first_child; c >= 0; c = w->raw[c].next_sibling)
        emit(w, c, me, depth);
}

/* Fetch level by level. A child is fetched only when its parent is visible
 * and, counting meaningful levels, not already beyond the depth budget. */
static void fetch_levels(struct walker *w)
{
    int begin = 0;
    for (int level = 0; begin < w->nraw && level <= MAX_RAW_DEPTH; level++) {
        int end = w->nraw;
        if (time_left_ms(w) == 0) {
            truncate_unanswered(w->t, "the walk ran out of time");
            return;
        }
        for (int i = begin; i < end; i++)
            ask_basics(w, i);
        /* The previous level's details are answered here too. */
        while (w->pending > 0)
            g_main_context_iteration(w->ctx, TRUE);
        for (int i = begin; i < end; i++) {
            struct raw *r = &w->raw[i];
            if (!r->a[ASK_PROPS]) {
                truncate_unanswered(w->t, "an application did not answer in time");
                continue;
            }
            int md = r->parent < 0 ? 0 : w->raw[r->parent].mdepth;
            r->mdepth = raw_folded(r) ? md : md + 1;
            if (!raw_visible(w, r) || filtered(w, r))
                continue;
            /* Only elements that can be shown are asked for details. */
            ask_details(w, i);
            r = &w->raw[i];
            if (!r->a[ASK_CHILDREN] || r->mdepth > w->o->max_depth + 1)
                continue;
            if (w->nraw >= w->o->max_nodes * 4 + 64) {
                truncate_for(w->t, "more elements than max_nodes");
                continue;
            }
            if (time_left_ms(w) == 0) {
                truncate_unanswered(w->t, "the walk ran out of time");
                return;
            }
            expand(w, i);
        }
        begin = end;
    }
}

static void fetch(struct walker *w)
{
    fetch_levels(w);
    /* The last level's details (every call ends by its time limit). */
    while (w->pending > 0)
        g_main_context_iteration(w->ctx, TRUE);
}

bool atspi_walk(struct atspi *a, const struct atspi_walk_opts *o, struct atspi_tree *out,
                char **err)
{
    memset(out, 0, sizeof *out);
    struct walker w = {.bus = a->bus, .o = o, .t = out};
    w.deadline_us = g_get_monotonic_time() + (gint64)o->deadline_ms * 1000;
    GError *e = NULL;
    /* The registry is started by the first application that registers; a
     * walk right after a window appeared can come before it. Wait for it a
     * little (never starting it ourselves: an application then registers
     * with the registry it started). */
    GVariant *r = NULL;
    /* At most half the walk's time: what is left may go to OCR. */
    int registry_wait_ms =
        o->deadline_ms / 2 < REGISTRY_WAIT_MS ? o->deadline_ms / 2 : REGISTRY_WAIT_MS;
    gint64 wait_until = g_get_monotonic_time() + (gint64)registry_wait_ms * 1000;
    for (;;) {
        r = call(a->bus, "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root",
                 "org.a11y.atspi.Accessible", "GetChildren", NULL, "(a(so))", time_left_ms(&w), &e);
        bool absent = !r && e &&
                      (g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
                       g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN));
        if (!absent || g_get_monotonic_time() >= wait_until)
            break;
        g_clear_error(&e);
        g_usleep(50 * 1000);
    }
    if (!r) {
        *err = gerror_take(e, "the accessibility registry did not answer");
        return false;
    }
    GVariantIter *it;
    const char *dest, *path;
    g_variant_get(r, "(a(so))", &it);
    while (g_variant_iter_next(it, "(&s&o)", &dest, &path))
        add_raw(&w, dest, path, -1);
    g_variant_iter_free(it);
    g_variant_unref(r);

    w.ctx = g_main_context_new();
    g_main_context_push_thread_default(w.ctx);
    fetch(&w);
    g_main_context_pop_thread_default(w.ctx);
    g_main_context_unref(w.ctx);

    for (int i = 0; i < w.nraw; i++)
        if (w.raw[i].app_root)
            emit(&w, i, -1, 0);
    for (int i = 0; i < w.nraw; i++) {
        free(w.raw[i].dest);
        free(w.raw[i].path);
        for (int k = 0; k < ASK_COUNT; k++)
            if (w.raw[i].a[k])
                g_variant_unref(w.raw[i].a[k]);
    }
    free(w.raw);
    return true;
}

void atspi_tree_finish(struct atspi_tree *t)
{
    for (int i = 0; i < t->count; i++) {
        struct atspi_node *n = &t->nodes[i];
        free(n->bus_name);
        free(n->path);
        free(n->role);
        free(n->name);
        free(n->value);
    }
    free(t->nodes);
    free(t->truncation);
    memset(t, 0, sizeof *t);
}

static bool simple_call(struct atspi *a, const char *dest, const char *path, const char *iface,
                        const char *method, GVariant *params, const char *what, char **err)
{
    GError *e = NULL;
    GVariant *r = call(a->bus, dest, path, iface, method, params, "(b)", CALL_TIMEOUT_MS, &e);
    if (!r) {
        *err = gerror_take(e, what);
        return false;
    }
    gboolean ok = FALSE;
    g_variant_get(r, "(b)", &ok);
    g_variant_unref(r);
    if (!ok)
        *err = xasprintf("%s: the application refused", what);
    return ok;
}

bool atspi_do_action(struct atspi *a, const char *bus_name, const char *path, char **err)
{
    return simple_call(a, bus_name, path, "org.a11y.atspi.Action", "DoAction",
                       g_variant_new("(i)", 0), "the element's action failed", err);
}

bool atspi_grab_focus(struct atspi *a, const char *bus_name, const char *path, char **err)
{
    return simple_call(a, bus_name, path, "org.a11y.atspi.Component", "GrabFocus", NULL,
                       "cannot focus the element", err);
}

bool atspi_read_text(struct atspi *a, const char *bus_name, const char *path, char **out,
                     char **err)
{
    GError *e = NULL;
    GVariant *r = call(a->bus, bus_name, path, "org.a11y.atspi.Text", "GetText",
                       g_variant_new("(ii)", 0, -1), "(s)", CALL_TIMEOUT_MS, &e);
    if (!r) {
        *err = gerror_take(e, "cannot read the element's text");
        return false;
    }
    const char *text = NULL;
    g_variant_get(r, "(&s)", &text);
    *out = xstrdup(text);
    g_variant_unref(r);
    return true;
}

/* AT-SPI Collection match types and sort order (atspi-constants.h). */
#define MATCH_ALL      1
#define SORT_CANONICAL 1
#define FOCUS_APPS_MAX 32

/* The focused elements of one application, by one Collection.GetMatches
 * call answered inside the application (no walk from here); NULL when it
 * does not implement Collection. */
static GVariant *focused_in(struct atspi *a, const char *dest, const char *path, int timeout_ms)
{
    GVariantBuilder states, empty_i, empty_s;
    g_variant_builder_init(&states, G_VARIANT_TYPE("ai"));
    g_variant_builder_add(&states, "i", (gint32)(1u << ATSPI_STATE_FOCUSED));
    g_variant_builder_add(&states, "i", 0);
    g_variant_builder_init(&empty_i, G_VARIANT_TYPE("ai"));
    g_variant_builder_init(&empty_s, G_VARIANT_TYPE("as"));
    /* Empty criteria with MATCH_ALL match anything; focused is the filter. */
    GVariant *rule = g_variant_new("(aiia{ss}iaiiasib)", &states, MATCH_ALL, NULL, MATCH_ALL,
                                   &empty_i, MATCH_ALL, &empty_s, MATCH_ALL, FALSE);
    return call(a->bus, dest, path, "org.a11y.atspi.Collection", "GetMatches",
                g_variant_new("(@(aiia{ss}iaiiasib)uib)", rule, (guint32)SORT_CANONICAL, 4, TRUE),
                "(a(so))", timeout_ms, NULL);
}

/* What is left of a budget ending at deadline_us (g_get_monotonic_time),
 * ms; 0 once it is spent. */
static int left_ms(gint64 deadline_us)
{
    gint64 left = (deadline_us - g_get_monotonic_time()) / 1000;
    return left > 0 ? (int)left : 0;
}

int atspi_focused_secret(struct atspi *a, int timeout_ms, char **err)
{
    GError *e = NULL;
    /* The whole question has timeout_ms, not each application: typed text
     * waits for the answer (in the audit log, and any input that may move
     * the focus waits too). */
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    GVariant *apps =
        call(a->bus, "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root",
             "org.a11y.atspi.Accessible", "GetChildren", NULL, "(a(so))", timeout_ms, &e);
    if (!apps) {
        /* No registry: no application exposes anything, nothing to hide. */
        bool absent = e && (g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
                            g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN));
        if (absent) {
            g_error_free(e);
            return 0;
        }
        *err = gerror_take(e, "the accessibility registry did not answer");
        return -1;
    }
    int verdict = 0, asked = 0;
    GVariantIter *it;
    const char *dest, *path;
    g_variant_get(apps, "(a(so))", &it);
    while (verdict == 0 && asked++ < FOCUS_APPS_MAX &&
           g_variant_iter_next(it, "(&s&o)", &dest, &path)) {
        int left = left_ms(deadline);
        GVariant *found = left > 0 ? focused_in(a, dest, path, left) : NULL;
        if (!found) {
            /* A toolkit without Collection, or an application that does
             * not answer: it cannot be said whether its focus is a secret. */
            if (!*err)
                *err = xasprintf("application %s did not say what has its focus", dest);
            verdict = -1;
            break;
        }
        GVariantIter *m;
        const char *mdest, *mpath;
        g_variant_get(found, "(a(so))", &m);
        while (verdict == 0 && g_variant_iter_next(m, "(&s&o)", &mdest, &mpath)) {
            left = left_ms(deadline);
            GVariant *role = left > 0 ? call(a->bus, mdest, mpath, "org.a11y.atspi.Accessible",
                                             "GetRoleName", NULL, "(s)", left, NULL)
                                      : NULL;
            const char *name = "";
            /* No answer within the budget: cannot tell. */
            if (!role && verdict == 0) {
                if (!*err)
                    *err = xasprintf("application %s did not say what its focus is", dest);
                verdict = -1;
            }
            if (role)
                g_variant_get(role, "(&s)", &name);
            if (strcmp(name, "password text") == 0)
                verdict = 1;
            if (role)
                g_variant_unref(role);
        }
        g_variant_iter_free(m);
        g_variant_unref(found);
    }
    g_variant_iter_free(it);
    g_variant_unref(apps);
    return verdict;
}
