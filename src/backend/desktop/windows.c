/* Top-level windows of a desktop: listed with title, application, pid,
 * geometry and focus; focused, moved, resized and closed. Works with a
 * window manager (EWMH: _NET_CLIENT_LIST, _NET_ACTIVE_WINDOW) and without one
 * (a private Xvfb desktop, where the root's children are the windows).
 * Called on worker threads with the desktop's input connection locked. */
#include "backend/desktop/windows.h"

#include "backend/desktop/xinput.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <xcb/xcb.h>

#define MAX_WINDOWS 512

/* A property's bytes (NUL-terminated), or NULL. */
static char *property(xcb_connection_t *c, xcb_window_t w, xcb_atom_t prop, xcb_atom_t type,
                      int *len)
{
    xcb_get_property_reply_t *r =
        xcb_get_property_reply(c, xcb_get_property(c, 0, w, prop, type, 0, 4096), NULL);
    if (!r || r->type == XCB_NONE) {
        free(r);
        return NULL;
    }
    int n = xcb_get_property_value_length(r);
    char *out = xmalloc((size_t)n + 1);
    memcpy(out, xcb_get_property_value(r), (size_t)n);
    out[n] = '\0';
    if (len)
        *len = n;
    free(r);
    return out;
}

struct atoms {
    xcb_atom_t client_list, active, net_name, utf8, pid, wm_state, protocols, delete_window;
};

/* The atoms in one round trip: every request is sent before the first
 * reply is read. */
static struct atoms atoms_of(xcb_connection_t *c)
{
    static const char *const names[] = {"_NET_CLIENT_LIST", "_NET_ACTIVE_WINDOW", "_NET_WM_NAME",
                                        "UTF8_STRING",      "_NET_WM_PID",        "WM_STATE",
                                        "WM_PROTOCOLS",     "WM_DELETE_WINDOW"};
    enum { N = sizeof names / sizeof names[0] };
    xcb_intern_atom_cookie_t cookies[N];
    for (int i = 0; i < N; i++)
        cookies[i] = xcb_intern_atom(c, 0, (uint16_t)strlen(names[i]), names[i]);
    xcb_atom_t got[N];
    for (int i = 0; i < N; i++) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, cookies[i], NULL);
        got[i] = r ? r->atom : XCB_NONE;
        free(r);
    }
    return (struct atoms){
        .client_list = got[0],
        .active = got[1],
        .net_name = got[2],
        .utf8 = got[3],
        .pid = got[4],
        .wm_state = got[5],
        .protocols = got[6],
        .delete_window = got[7],
    };
}

static bool viewable(xcb_connection_t *c, xcb_window_t w)
{
    xcb_get_window_attributes_reply_t *a =
        xcb_get_window_attributes_reply(c, xcb_get_window_attributes(c, w), NULL);
    bool ok = a && a->map_state == XCB_MAP_STATE_VIEWABLE && !a->override_redirect &&
              a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT;
    free(a);
    return ok;
}

static bool has_prop(xcb_connection_t *c, xcb_window_t w, xcb_atom_t prop)
{
    char *v = property(c, w, prop, XCB_GET_PROPERTY_TYPE_ANY, NULL);
    free(v);
    return v != NULL;
}

/* The application windows, bottom to top: the window manager's list when
 * there is one, else the root's viewable children that name themselves (or,
 * under a reparenting manager without EWMH, their WM_STATE child). */
static int collect(xcb_connection_t *c, xcb_window_t root, const struct atoms *a, xcb_window_t *out)
{
    int n = 0, len = 0;
    char *list = a->client_list ? property(c, root, a->client_list, XCB_ATOM_WINDOW, &len) : NULL;
    if (list) {
        for (int i = 0; i < len / 4 && n < MAX_WINDOWS; i++) {
            xcb_window_t w;
            memcpy(&w, list + i * 4, 4);
            out[n++] = w;
        }
        free(list);
        return n;
    }
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(c, xcb_query_tree(c, root), NULL);
    if (!t)
        return 0;
    xcb_window_t *kids = xcb_query_tree_children(t);
    for (int i = 0; i < xcb_query_tree_children_length(t) && n < MAX_WINDOWS; i++) {
        if (!viewable(c, kids[i]))
            continue;
        if (has_prop(c, kids[i], XCB_ATOM_WM_CLASS) || has_prop(c, kids[i], a->wm_state)) {
            out[n++] = kids[i];
            continue;
        }
        xcb_query_tree_reply_t *sub = xcb_query_tree_reply(c, xcb_query_tree(c, kids[i]), NULL);
        for (int k = 0; sub && k < xcb_query_tree_children_length(sub); k++) {
            xcb_window_t w = xcb_query_tree_children(sub)[k];
            if (has_prop(c, w, a->wm_state)) {
                out[n++] = w;
                break;
            }
        }
        free(sub);
    }
    free(t);
    return n;
}

static char *title_of(xcb_connection_t *c, xcb_window_t w, const struct atoms *a)
{
    char *t = property(c, w, a->net_name, a->utf8, NULL);
    if (!t)
        t = property(c, w, XCB_ATOM_WM_NAME, XCB_GET_PROPERTY_TYPE_ANY, NULL);
    return t ? t : xstrdup("");
}

static xcb_window_t focused(xcb_connection_t *c, xcb_window_t root, const struct atoms *a)
{
    int len = 0;
    char *v = a->active ? property(c, root, a->active, XCB_ATOM_WINDOW, &len) : NULL;
    xcb_window_t w = XCB_NONE;
    if (v && len >= 4)
        memcpy(&w, v, 4);
    free(v);
    if (w)
        return w;
    xcb_get_input_focus_reply_t *f = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
    w = f ? f->focus : XCB_NONE;
    free(f);
    return w;
}

/* Whether w is (or contains) the focus window. */
static bool is_focused(xcb_connection_t *c, xcb_window_t w, xcb_window_t focus)
{
    for (int hops = 0; focus > 1 && hops < 8; hops++) {
        if (focus == w)
            return true;
        xcb_query_tree_reply_t *t = xcb_query_tree_reply(c, xcb_query_tree(c, focus), NULL);
        xcb_window_t parent = t ? t->parent : XCB_NONE;
        bool at_root = !t || parent == t->root;
        free(t);
        if (at_root)
            return false;
        focus = parent;
    }
    return false;
}

static json_t *describe(xcb_connection_t *c, xcb_window_t root, xcb_window_t w,
                        const struct atoms *a, xcb_window_t focus)
{
    char id[24];
    snprintf(id, sizeof id, "0x%x", (unsigned)w);
    char *title = title_of(c, w, a);
    int len = 0;
    char *cls = property(c, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, &len);
    /* WM_CLASS is "instance\0Class\0": the class names the application. */
    const char *app = cls && (int)strlen(cls) + 1 < len ? cls + strlen(cls) + 1 : cls ? cls : "";
    json_t *o =
        json_pack("{s:s, s:o, s:o}", "id", id, "title", utf8_json_string(title, strlen(title)),
                  "app", utf8_json_string(app, strlen(app)));
    free(title);
    free(cls);
    char *pid = property(c, w, a->pid, XCB_ATOM_CARDINAL, &len);
    if (pid && len >= 4) {
        uint32_t p;
        memcpy(&p, pid, 4);
        json_object_set_new(o, "pid", json_integer(p));
    }
    free(pid);
    xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, xcb_get_geometry(c, w), NULL);
    xcb_translate_coordinates_reply_t *pos =
        xcb_translate_coordinates_reply(c, xcb_translate_coordinates(c, w, root, 0, 0), NULL);
    if (g && pos)
        json_object_set_new(o, "bounds",
                            json_pack("{s:i, s:i, s:i, s:i}", "x", pos->dst_x, "y", pos->dst_y,
                                      "width", g->width, "height", g->height));
    free(g);
    free(pos);
    json_object_set_new(o, "focused", json_boolean(is_focused(c, w, focus)));
    return o;
}

bool windows_geometry(struct xinput *xi, uint32_t win, int *x, int *y, int *width, int *height)
{
    xcb_connection_t *c = xinput_connection(xi);
    xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, xcb_get_geometry(c, win), NULL);
    xcb_translate_coordinates_reply_t *pos = xcb_translate_coordinates_reply(
        c, xcb_translate_coordinates(c, win, xinput_root(xi), 0, 0), NULL);
    bool ok = g && pos;
    if (ok) {
        *x = pos->dst_x, *y = pos->dst_y;
        *width = g->width, *height = g->height;
    }
    free(g);
    free(pos);
    return ok;
}

json_t *windows_list(struct xinput *xi)
{
    xcb_connection_t *c = xinput_connection(xi);
    xcb_window_t root = xinput_root(xi);
    struct atoms a = atoms_of(c);
    xcb_window_t *ws = xmalloc(MAX_WINDOWS * sizeof *ws);
    int n = collect(c, root, &a, ws);
    xcb_window_t focus = focused(c, root, &a);
    json_t *list = json_array();
    /* Top first: the order a person sees them in. */
    for (int i = n - 1; i >= 0; i--)
        json_array_append_new(list, describe(c, root, ws[i], &a, focus));
    free(ws);
    return list;
}

bool windows_find(struct xinput *xi, const char *spec, uint32_t *win, char **err)
{
    xcb_connection_t *c = xinput_connection(xi);
    struct atoms a = atoms_of(c);
    xcb_window_t *ws = xmalloc(MAX_WINDOWS * sizeof *ws);
    int n = collect(c, xinput_root(xi), &a, ws);
    char *end = NULL;
    unsigned long id = strncmp(spec, "0x", 2) == 0 ? strtoul(spec, &end, 16) : 0;
    bool by_id = end && *end == '\0';
    *win = XCB_NONE;
    /* Top-most first, so the window a person sees wins. */
    for (int i = n - 1; i >= 0 && !*win; i--) {
        if (by_id) {
            if (ws[i] == id)
                *win = ws[i];
            continue;
        }
        char *title = title_of(c, ws[i], &a);
        if (strcasestr(title, spec))
            *win = ws[i];
        free(title);
    }
    free(ws);
    if (!*win)
        *err = xasprintf("no window %s \"%s\" (window_list shows the windows)",
                         by_id ? "with id" : "whose title contains", spec);
    return *win != XCB_NONE;
}

static void client_message(xcb_connection_t *c, xcb_window_t dest, xcb_window_t w, xcb_atom_t type,
                           uint32_t d0, uint32_t d1, uint32_t mask)
{
    xcb_client_message_event_t ev = {
        .response_type = XCB_CLIENT_MESSAGE,
        .format = 32,
        .window = w,
        .type = type,
    };
    ev.data.data32[0] = d0;
    ev.data.data32[1] = d1;
    xcb_send_event(c, 0, dest, mask, (const char *)&ev);
}

void windows_focus(struct xinput *xi, uint32_t win)
{
    xcb_connection_t *c = xinput_connection(xi);
    struct atoms a = atoms_of(c);
    /* With a window manager, ask it (source 2: a pager, i.e. the user);
     * without one, do its job. */
    if (a.active && has_prop(c, xinput_root(xi), a.client_list))
        client_message(c, xinput_root(xi), win, a.active, 2, XCB_CURRENT_TIME,
                       XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY);
    uint32_t above = XCB_STACK_MODE_ABOVE;
    xcb_configure_window(c, win, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    xcb_set_input_focus(c, XCB_INPUT_FOCUS_PARENT, win, XCB_CURRENT_TIME);
}

void windows_focus_save(struct xinput *xi, struct windows_focus_saved *out)
{
    xcb_connection_t *c = xinput_connection(xi);
    struct atoms a = atoms_of(c);
    memset(out, 0, sizeof *out);
    if (a.active && has_prop(c, xinput_root(xi), a.client_list)) {
        int len = 0;
        char *v = property(c, xinput_root(xi), a.active, XCB_ATOM_WINDOW, &len);
        if (v && len >= 4)
            memcpy(&out->active, v, 4);
        free(v);
    }
    xcb_get_input_focus_reply_t *f = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
    if (f) {
        out->focus = f->focus;
        out->revert = f->revert_to;
    } else {
        out->focus = XCB_INPUT_FOCUS_POINTER_ROOT;
        out->revert = XCB_INPUT_FOCUS_POINTER_ROOT;
    }
    free(f);
}

void windows_focus_restore(struct xinput *xi, const struct windows_focus_saved *s)
{
    xcb_connection_t *c = xinput_connection(xi);
    struct atoms a = atoms_of(c);
    if (s->active)
        client_message(c, xinput_root(xi), s->active, a.active, 2, XCB_CURRENT_TIME,
                       XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY);
    /* A focus window that has gone away since is an error the server
     * reports asynchronously; nothing is left to put back then. */
    xcb_set_input_focus(c, s->revert, s->focus, XCB_CURRENT_TIME);
}

static uint32_t active_now(xcb_connection_t *c, xcb_window_t root, xcb_atom_t active)
{
    int len = 0;
    uint32_t w = 0;
    char *v = property(c, root, active, XCB_ATOM_WINDOW, &len);
    if (v && len >= 4)
        memcpy(&w, v, 4);
    free(v);
    return w;
}

/* Polls the active window every 10 ms for up to ms, until it is (or, with
 * differ, is not) s's. */
static void poll_active(struct xinput *xi, const struct windows_focus_saved *s, int ms, bool differ)
{
    if (!s->active)
        return;
    xcb_connection_t *c = xinput_connection(xi);
    struct atoms a = atoms_of(c);
    for (int waited = 0; waited < ms; waited += 10) {
        bool same = active_now(c, xinput_root(xi), a.active) == s->active;
        if (same != differ)
            return;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

void windows_focus_settle(struct xinput *xi, const struct windows_focus_saved *s, int ms)
{
    poll_active(xi, s, ms, true);
}

void windows_focus_wait(struct xinput *xi, const struct windows_focus_saved *s, int ms)
{
    poll_active(xi, s, ms, false);
}

void windows_configure(struct xinput *xi, uint32_t win, int x, int y, int width, int height)
{
    uint16_t mask = 0;
    uint32_t values[4];
    int n = 0;
    if (x >= 0)
        mask |= XCB_CONFIG_WINDOW_X, values[n++] = (uint32_t)x;
    if (y >= 0)
        mask |= XCB_CONFIG_WINDOW_Y, values[n++] = (uint32_t)y;
    if (width > 0)
        mask |= XCB_CONFIG_WINDOW_WIDTH, values[n++] = (uint32_t)width;
    if (height > 0)
        mask |= XCB_CONFIG_WINDOW_HEIGHT, values[n++] = (uint32_t)height;
    if (mask)
        xcb_configure_window(xinput_connection(xi), win, mask, values);
}

bool windows_close(struct xinput *xi, uint32_t win, bool force, char **err)
{
    xcb_connection_t *c = xinput_connection(xi);
    if (force) {
        xcb_kill_client(c, win);
        return true;
    }
    struct atoms a = atoms_of(c);
    int len = 0;
    char *protos = property(c, win, a.protocols, XCB_ATOM_ATOM, &len);
    bool polite = false;
    for (int i = 0; protos && i < len / 4; i++) {
        xcb_atom_t p;
        memcpy(&p, protos + i * 4, 4);
        polite = polite || p == a.delete_window;
    }
    free(protos);
    if (!polite) {
        *err = xstrdup("the window does not accept a close request (WM_DELETE_WINDOW); "
                       "force: true disconnects its program from the display");
        return false;
    }
    /* What the close button does: the program may ask to save first. */
    client_message(c, win, win, a.protocols, a.delete_window, XCB_CURRENT_TIME, 0);
    return true;
}

/* The child of the root that holds w (w itself when it is one). */
static xcb_window_t toplevel_of(xcb_connection_t *c, xcb_window_t root, xcb_window_t w)
{
    for (int hops = 0; w > 1 && w != root && hops < 32; hops++) {
        xcb_query_tree_reply_t *t = xcb_query_tree_reply(c, xcb_query_tree(c, w), NULL);
        if (!t)
            return XCB_NONE;
        xcb_window_t parent = t->parent;
        free(t);
        if (parent == root)
            return w;
        w = parent;
    }
    return XCB_NONE;
}

/* A frame a window manager drew around a client: the client inside. */
static xcb_window_t client_in(xcb_connection_t *c, xcb_window_t w, const struct atoms *a)
{
    if (has_prop(c, w, XCB_ATOM_WM_CLASS) || has_prop(c, w, a->wm_state))
        return w;
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(c, xcb_query_tree(c, w), NULL);
    xcb_window_t found = w;
    for (int k = 0; t && k < xcb_query_tree_children_length(t); k++)
        if (has_prop(c, xcb_query_tree_children(t)[k], a->wm_state)) {
            found = xcb_query_tree_children(t)[k];
            break;
        }
    free(t);
    return found;
}

static xcb_window_t under(xcb_connection_t *c, xcb_window_t root, int x, int y)
{
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(c, xcb_query_tree(c, root), NULL);
    xcb_window_t found = XCB_NONE;
    for (int i = t ? xcb_query_tree_children_length(t) - 1 : -1; i >= 0 && !found; i--) {
        xcb_window_t w = xcb_query_tree_children(t)[i];
        if (!viewable(c, w))
            continue;
        xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, xcb_get_geometry(c, w), NULL);
        if (g && x >= g->x && y >= g->y && x < g->x + g->width && y < g->y + g->height)
            found = w;
        free(g);
    }
    free(t);
    return found;
}

bool windows_input_target(struct xinput *xi, int x, int y, char **title, char **app)
{
    xcb_connection_t *c = xinput_connection(xi);
    xcb_window_t root = xinput_root(xi);
    struct atoms a = atoms_of(c);
    xcb_window_t w = XCB_NONE;
    if (x < 0) {
        xcb_get_input_focus_reply_t *f = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
        w = f && f->focus > 1 && f->focus != root ? toplevel_of(c, root, f->focus) : XCB_NONE;
        free(f);
        if (!w) {
            /* Keys go to the window under the pointer then. */
            xcb_query_pointer_reply_t *p =
                xcb_query_pointer_reply(c, xcb_query_pointer(c, root), NULL);
            if (p)
                w = under(c, root, p->root_x, p->root_y);
            free(p);
        }
    } else {
        w = under(c, root, x, y);
    }
    if (!w)
        return false;
    w = client_in(c, w, &a);
    *title = title_of(c, w, &a);
    int len = 0;
    char *cls = property(c, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, &len);
    *app = xstrdup(cls && (int)strlen(cls) + 1 < len ? cls + strlen(cls) + 1 : cls ? cls : "");
    free(cls);
    return true;
}
