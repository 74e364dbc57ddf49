/* XTEST pointer and keyboard for one display. The connection stays open so
 * an action costs a few requests and one round trip, not a process and a
 * handshake (what a new xdotool per action pays). */
#include "backend/desktop/xinput.h"

#include "core/clock.h"
#include "core/xmalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xcb/xcb.h>
#include <xcb/xtest.h>

#define XK_MISCELLANY
#define XK_LATIN1
#include <X11/keysymdef.h>

/* Keycodes glovebox may bind to characters the keymap lacks. */
#define MAX_SPARE 32
/* A spare keycode is not rebound sooner than this after its last use: the
 * program may not have read the key event yet, and it looks the keysym up
 * when it does. */
#define REBIND_AFTER_MS 200

struct spare {
    uint8_t code;
    uint32_t keysym; /* bound now; 0 when free */
    uint64_t used_ms;
    bool in_modmap; /* added to the modifier map (a modifier key) */
};

struct xinput {
    pthread_mutex_t lock;
    char *display;
    xcb_connection_t *c;
    xcb_window_t root;
    int width, height;
    uint8_t min_code, max_code;
    int per; /* keysyms per keycode */
    xcb_keysym_t *map;
    struct spare spare[MAX_SPARE];
    int n_spare;
    /* What this connection pressed and has not let go: a takeover lets go
     * of all of it (xinput_release_all). */
    uint8_t keys_down[32]; /* bit per keycode */
    uint8_t buttons_down;  /* bit per button 1-8 */
};

struct xinput *xinput_create(const char *display)
{
    struct xinput *xi = xcalloc(1, sizeof *xi);
    pthread_mutex_init(&xi->lock, NULL);
    xi->display = xstrdup(display);
    return xi;
}

static void disconnect(struct xinput *xi)
{
    if (xi->c)
        xcb_disconnect(xi->c);
    xi->c = NULL;
    free(xi->map);
    xi->map = NULL;
    xi->n_spare = 0;
    /* A new connection holds nothing (the server let go with the old one). */
    memset(xi->keys_down, 0, sizeof xi->keys_down);
    xi->buttons_down = 0;
}

/* Keycodes glovebox bound go back to having nothing on them: an attached
 * display's keyboard is left as it was found. */
static void set_modifier_row(struct xinput *xi, uint8_t code, int row);

static void unbind_spares(struct xinput *xi)
{
    if (!xi->c || xcb_connection_has_error(xi->c))
        return;
    xcb_keysym_t *none = xcalloc((size_t)xi->per, sizeof *none);
    for (int i = 0; i < xi->n_spare; i++) {
        if (xi->spare[i].in_modmap)
            set_modifier_row(xi, xi->spare[i].code, -1);
        xi->spare[i].in_modmap = false;
        if (xi->spare[i].keysym)
            xcb_change_keyboard_mapping(xi->c, 1, xi->spare[i].code, (uint8_t)xi->per, none);
    }
    free(none);
    xcb_flush(xi->c);
}

void xinput_restore(struct xinput *xi)
{
    if (!xi)
        return;
    pthread_mutex_lock(&xi->lock);
    unbind_spares(xi);
    for (int i = 0; i < xi->n_spare; i++)
        xi->spare[i].keysym = 0;
    pthread_mutex_unlock(&xi->lock);
}

void xinput_destroy(struct xinput *xi)
{
    if (!xi)
        return;
    disconnect(xi);
    pthread_mutex_destroy(&xi->lock);
    free(xi->display);
    free(xi);
}

static xcb_keysym_t *syms_of(const struct xinput *xi, uint8_t code)
{
    return xi->map + (size_t)(code - xi->min_code) * (size_t)xi->per;
}

static bool load_keymap(struct xinput *xi, char **err)
{
    const xcb_setup_t *setup = xcb_get_setup(xi->c);
    xi->min_code = setup->min_keycode;
    xi->max_code = setup->max_keycode;
    int count = xi->max_code - xi->min_code + 1;
    xcb_get_keyboard_mapping_reply_t *r = xcb_get_keyboard_mapping_reply(
        xi->c, xcb_get_keyboard_mapping(xi->c, xi->min_code, (uint8_t)count), NULL);
    if (!r || r->keysyms_per_keycode == 0) {
        free(r);
        *err = xasprintf("cannot read the keyboard mapping of %s", xi->display);
        return false;
    }
    free(xi->map);
    xi->per = r->keysyms_per_keycode;
    size_t n = (size_t)count * (size_t)xi->per;
    xi->map = xmalloc(n * sizeof *xi->map);
    memcpy(xi->map, xcb_get_keyboard_mapping_keysyms(r), n * sizeof *xi->map);
    free(r);
    /* Bindings someone else replaced are ours no longer. */
    for (int i = 0; i < xi->n_spare; i++)
        if (xi->spare[i].keysym && syms_of(xi, xi->spare[i].code)[0] != xi->spare[i].keysym)
            xi->spare[i].keysym = 0;
    if (xi->n_spare == 0) {
        /* Keycodes with nothing on them, from the top (least likely to be
         * real keys on an attached keyboard). */
        for (int code = xi->max_code; code >= xi->min_code && xi->n_spare < MAX_SPARE; code--) {
            const xcb_keysym_t *s = syms_of(xi, (uint8_t)code);
            bool empty = true;
            for (int k = 0; k < xi->per && empty; k++)
                empty = s[k] == 0;
            if (empty)
                xi->spare[xi->n_spare++] = (struct spare){.code = (uint8_t)code};
        }
    }
    return true;
}

static bool connect_display(struct xinput *xi, char **err)
{
    int screen = 0;
    xi->c = xcb_connect(xi->display, &screen);
    if (xcb_connection_has_error(xi->c)) {
        disconnect(xi);
        *err = xasprintf("cannot connect to X display %s", xi->display);
        return false;
    }
    const xcb_query_extension_reply_t *ext = xcb_get_extension_data(xi->c, &xcb_test_id);
    if (!ext || !ext->present) {
        disconnect(xi);
        *err = xasprintf("X display %s has no XTEST extension, so glovebox cannot send input",
                         xi->display);
        return false;
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(xi->c));
    for (int i = 0; i < screen && it.rem; i++)
        xcb_screen_next(&it);
    xi->root = it.data->root;
    xi->width = it.data->width_in_pixels;
    xi->height = it.data->height_in_pixels;
    if (!load_keymap(xi, err)) {
        disconnect(xi);
        return false;
    }
    return true;
}

/* Keymap changes by anyone (including us) arrive as MappingNotify. */
static bool drain_events(struct xinput *xi, char **err)
{
    bool reload = false;
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(xi->c))) {
        if ((ev->response_type & 0x7f) == XCB_MAPPING_NOTIFY &&
            ((xcb_mapping_notify_event_t *)ev)->request == XCB_MAPPING_KEYBOARD)
            reload = true;
        free(ev);
    }
    return !reload || load_keymap(xi, err);
}

bool xinput_lock(struct xinput *xi, char **err)
{
    pthread_mutex_lock(&xi->lock);
    if (xi->c && xcb_connection_has_error(xi->c))
        disconnect(xi);
    if ((!xi->c && !connect_display(xi, err)) || !drain_events(xi, err)) {
        pthread_mutex_unlock(&xi->lock);
        return false;
    }
    return true;
}

void xinput_unlock(struct xinput *xi)
{
    xcb_flush(xi->c);
    pthread_mutex_unlock(&xi->lock);
}

xcb_connection_t *xinput_connection(struct xinput *xi)
{
    return xi->c;
}

uint32_t xinput_root(const struct xinput *xi)
{
    return xi->root;
}

void xinput_screen_size(const struct xinput *xi, int *width, int *height)
{
    *width = xi->width;
    *height = xi->height;
}

bool xinput_pointer(struct xinput *xi, int *x, int *y, char **err)
{
    xcb_query_pointer_reply_t *r =
        xcb_query_pointer_reply(xi->c, xcb_query_pointer(xi->c, xi->root), NULL);
    if (!r) {
        *err = xstrdup("cannot read the pointer's position: the display is gone");
        return false;
    }
    *x = r->root_x;
    *y = r->root_y;
    free(r);
    return true;
}

void xinput_move(struct xinput *xi, int x, int y)
{
    xcb_test_fake_input(xi->c, XCB_MOTION_NOTIFY, 0, XCB_CURRENT_TIME, xi->root, (int16_t)x,
                        (int16_t)y, 0);
}

void xinput_button(struct xinput *xi, int button, bool down)
{
    xcb_test_fake_input(xi->c, down ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE, (uint8_t)button,
                        XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    if (button >= 1 && button <= 8) {
        uint8_t bit = (uint8_t)(1u << (button - 1));
        xi->buttons_down = down ? xi->buttons_down | bit : xi->buttons_down & (uint8_t)~bit;
    }
}

void xinput_key(struct xinput *xi, uint8_t code, bool down)
{
    xcb_test_fake_input(xi->c, down ? XCB_KEY_PRESS : XCB_KEY_RELEASE, code, XCB_CURRENT_TIME,
                        XCB_NONE, 0, 0, 0);
    uint8_t bit = (uint8_t)(1u << (code & 7));
    if (down)
        xi->keys_down[code >> 3] |= bit;
    else
        xi->keys_down[code >> 3] &= (uint8_t)~bit;
}

bool xinput_key_is_down(const struct xinput *xi, uint8_t code)
{
    return xi->keys_down[code >> 3] & (1u << (code & 7));
}

int xinput_release_all(struct xinput *xi)
{
    int n = 0;
    for (int b = 1; b <= 8; b++)
        if (xi->buttons_down & (1u << (b - 1))) {
            xinput_button(xi, b, false);
            n++;
        }
    for (int code = 0; code < 256; code++)
        if (xinput_key_is_down(xi, (uint8_t)code)) {
            xinput_key(xi, (uint8_t)code, false);
            n++;
        }
    return n;
}

int xinput_held_codes(const struct xinput *xi, uint32_t keysym, uint8_t *codes, int max)
{
    int n = 0;
    for (int code = xi->min_code; xi->map && code <= xi->max_code && n < max; code++)
        if (xinput_key_is_down(xi, (uint8_t)code) && syms_of(xi, (uint8_t)code)[0] == keysym)
            codes[n++] = (uint8_t)code;
    return n;
}

bool xinput_sync(struct xinput *xi, char **err)
{
    free(xcb_get_input_focus_reply(xi->c, xcb_get_input_focus(xi->c), NULL));
    if (xcb_connection_has_error(xi->c)) {
        *err = xasprintf("the X display %s went away", xi->display);
        return false;
    }
    return true;
}

/* A window a person could type into: mapped, drawn, not a popup the
 * toolkit placed itself (override-redirect), more than a pixel in size. */
static bool focusable(struct xinput *xi, xcb_window_t w, xcb_get_geometry_reply_t **geom)
{
    xcb_get_window_attributes_reply_t *a =
        xcb_get_window_attributes_reply(xi->c, xcb_get_window_attributes(xi->c, w), NULL);
    bool ok = a && a->map_state == XCB_MAP_STATE_VIEWABLE && !a->override_redirect &&
              a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT;
    free(a);
    *geom = ok ? xcb_get_geometry_reply(xi->c, xcb_get_geometry(xi->c, w), NULL) : NULL;
    if (*geom && ((*geom)->width <= 1 || (*geom)->height <= 1)) {
        free(*geom);
        *geom = NULL;
    }
    return *geom != NULL;
}

static bool has_wm_state(struct xinput *xi, xcb_window_t w, xcb_atom_t wm_state)
{
    xcb_get_property_reply_t *p = xcb_get_property_reply(
        xi->c, xcb_get_property(xi->c, 0, w, wm_state, XCB_ATOM_ANY, 0, 1), NULL);
    bool has = p && p->type != XCB_NONE;
    free(p);
    return has;
}

/* The program's own window inside w: w itself without a window manager;
 * under one, w is its frame and the client (the window with WM_STATE) is
 * a child or grandchild. w when none is found. */
static xcb_window_t client_of(struct xinput *xi, xcb_window_t w, xcb_atom_t wm_state, int depth)
{
    if (!wm_state || has_wm_state(xi, w, wm_state))
        return w;
    if (depth >= 3)
        return XCB_NONE;
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(xi->c, xcb_query_tree(xi->c, w), NULL);
    xcb_window_t found = XCB_NONE;
    if (t) {
        xcb_window_t *kids = xcb_query_tree_children(t);
        for (int i = 0; i < xcb_query_tree_children_length(t) && !found; i++)
            found = client_of(xi, kids[i], wm_state, depth + 1);
        free(t);
    }
    return found;
}

static void give_focus(struct xinput *xi, xcb_window_t w)
{
    uint32_t above = XCB_STACK_MODE_ABOVE;
    xcb_configure_window(xi->c, w, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    /* Under a window manager w is a frame, which takes no keys: the focus
     * goes to the program's window inside. */
    static const char name[] = "WM_STATE";
    xcb_intern_atom_reply_t *a =
        xcb_intern_atom_reply(xi->c, xcb_intern_atom(xi->c, 1, sizeof name - 1, name), NULL);
    xcb_window_t client = client_of(xi, w, a ? a->atom : XCB_NONE, 0);
    free(a);
    xcb_set_input_focus(xi->c, XCB_INPUT_FOCUS_PARENT, client ? client : w, XCB_CURRENT_TIME);
}

/* The top-most focusable child of the root containing x,y (any when x < 0). */
static xcb_window_t top_window(struct xinput *xi, int x, int y)
{
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(xi->c, xcb_query_tree(xi->c, xi->root), NULL);
    if (!t)
        return XCB_NONE;
    xcb_window_t *kids = xcb_query_tree_children(t);
    xcb_window_t found = XCB_NONE;
    /* Children come bottom to top. */
    for (int i = xcb_query_tree_children_length(t) - 1; i >= 0 && !found; i--) {
        xcb_get_geometry_reply_t *g;
        if (!focusable(xi, kids[i], &g))
            continue;
        if (x < 0 || (x >= g->x && y >= g->y && x < g->x + g->width && y < g->y + g->height))
            found = kids[i];
        free(g);
    }
    free(t);
    return found;
}

void xinput_focus_at(struct xinput *xi, int x, int y)
{
    xcb_window_t w = top_window(xi, x, y);
    if (w)
        give_focus(xi, w);
}

bool xinput_focus_default(struct xinput *xi)
{
    xcb_get_input_focus_reply_t *f =
        xcb_get_input_focus_reply(xi->c, xcb_get_input_focus(xi->c), NULL);
    bool nobody = !f || f->focus == XCB_NONE || f->focus == XCB_INPUT_FOCUS_POINTER_ROOT ||
                  f->focus == xi->root;
    if (!nobody) {
        /* A window manager with nothing to focus parks the focus on a
         * hidden window of its own (openbox's InputOnly one): nobody. */
        xcb_get_window_attributes_reply_t *a = xcb_get_window_attributes_reply(
            xi->c, xcb_get_window_attributes(xi->c, f->focus), NULL);
        nobody = !a || a->map_state != XCB_MAP_STATE_VIEWABLE ||
                 a->_class == XCB_WINDOW_CLASS_INPUT_ONLY;
        free(a);
    }
    free(f);
    if (!nobody)
        return false;
    xcb_window_t w = top_window(xi, -1, -1);
    if (w)
        give_focus(xi, w);
    return w != 0;
}

static bool lookup(const struct xinput *xi, uint32_t keysym, int levels, uint8_t *code, bool *shift)
{
    /* Unshifted levels first: "a" must not come out as Shift+a's twin. */
    for (int level = 0; level < levels && level < xi->per; level++)
        for (int c = xi->min_code; c <= xi->max_code; c++)
            if (syms_of(xi, (uint8_t)c)[level] == keysym) {
                *code = (uint8_t)c;
                *shift = level == 1;
                return true;
            }
    return false;
}

/* The least recently used spare keycode, bound to keysym alone. */
static bool bind_spare(struct xinput *xi, uint32_t keysym, struct spare **out, char **err)
{
    if (xi->n_spare == 0) {
        *err = xasprintf("the keyboard of %s has no free keycode to type U+%04X with", xi->display,
                         (unsigned)keysym & 0xffffff);
        return false;
    }
    /* The least recently used spare; wait if it was used a moment ago. */
    struct spare *best = &xi->spare[0];
    for (int i = 1; i < xi->n_spare; i++)
        if (xi->spare[i].used_ms < best->used_ms)
            best = &xi->spare[i];
    uint64_t t = clock_now_ms();
    if (best->keysym && t - best->used_ms < REBIND_AFTER_MS)
        clock_sleep_ms((int)(REBIND_AFTER_MS - (t - best->used_ms)));
    if (best->in_modmap)
        set_modifier_row(xi, best->code, -1); /* it was a modifier key; now it is not */
    best->in_modmap = false;
    xcb_keysym_t *syms = xcalloc((size_t)xi->per, sizeof *syms);
    syms[0] = keysym;
    if (xi->per > 1)
        syms[1] = keysym;
    xcb_change_keyboard_mapping(xi->c, 1, best->code, (uint8_t)xi->per, syms);
    memcpy(syms_of(xi, best->code), syms, (size_t)xi->per * sizeof *syms);
    free(syms);
    best->keysym = keysym;
    best->used_ms = clock_now_ms();
    if (!xinput_sync(xi, err))
        return false;
    *out = best;
    return true;
}

bool xinput_keycode(struct xinput *xi, uint32_t keysym, uint8_t *code, bool *shift, char **err)
{
    if (lookup(xi, keysym, 2, code, shift)) {
        for (int i = 0; i < xi->n_spare; i++)
            if (xi->spare[i].code == *code)
                xi->spare[i].used_ms = clock_now_ms();
        return true;
    }
    struct spare *sp;
    if (!bind_spare(xi, keysym, &sp, err))
        return false;
    *code = sp->code;
    *shift = false;
    return true;
}

/* Moves code into modifier row (0 Shift … 7 Mod5), or out of every row when
 * row < 0. */
static void set_modifier_row(struct xinput *xi, uint8_t code, int row)
{
    xcb_get_modifier_mapping_reply_t *r =
        xcb_get_modifier_mapping_reply(xi->c, xcb_get_modifier_mapping(xi->c), NULL);
    if (!r)
        return;
    int per = r->keycodes_per_modifier;
    const xcb_keycode_t *old = xcb_get_modifier_mapping_keycodes(r);
    /* Rows are as wide as the fullest one: one more only when the row the
     * code joins is full already. */
    int nper = 1;
    for (int m = 0; m < 8; m++) {
        int n = m == row;
        for (int k = 0; k < per; k++)
            n += old[m * per + k] && old[m * per + k] != code;
        nper = n > nper ? n : nper;
    }
    xcb_keycode_t *map = xcalloc((size_t)(8 * nper), 1);
    for (int m = 0; m < 8; m++) {
        int n = 0;
        for (int k = 0; k < per; k++)
            if (old[m * per + k] && old[m * per + k] != code)
                map[m * nper + n++] = old[m * per + k];
        if (m == row)
            map[m * nper + n++] = code;
    }
    free(xcb_set_modifier_mapping_reply(xi->c, xcb_set_modifier_mapping(xi->c, (uint8_t)nper, map),
                                        NULL));
    free(map);
    free(r);
}

/* The modifier row (0..7) holding a key with keysym at any level, or -1. */
static int modifier_row_of(struct xinput *xi, uint32_t keysym)
{
    xcb_get_modifier_mapping_reply_t *r =
        xcb_get_modifier_mapping_reply(xi->c, xcb_get_modifier_mapping(xi->c), NULL);
    if (!r)
        return -1;
    int per = r->keycodes_per_modifier, row = -1;
    const xcb_keycode_t *codes = xcb_get_modifier_mapping_keycodes(r);
    for (int i = 0; i < 8 * per && row < 0; i++) {
        if (codes[i] < xi->min_code || codes[i] > xi->max_code)
            continue;
        const xcb_keysym_t *s = syms_of(xi, codes[i]);
        for (int k = 0; k < xi->per; k++)
            if (s[k] == keysym)
                row = i / per;
    }
    free(r);
    return row;
}

bool xinput_modifier_keycode(struct xinput *xi, uint32_t keysym, uint8_t *code, char **err)
{
    bool shift;
    if (lookup(xi, keysym, 1, code, &shift)) {
        for (int i = 0; i < xi->n_spare; i++)
            if (xi->spare[i].code == *code)
                xi->spare[i].used_ms = clock_now_ms();
        return true;
    }
    /* Only on a shifted level (Meta_L shares Alt_L's key) or not at all: a
     * key of its own, in the modifier row the keymap gives that keysym, so
     * the program sees both the key and the modifier state. */
    int row = modifier_row_of(xi, keysym);
    struct spare *sp;
    if (!bind_spare(xi, keysym, &sp, err))
        return false;
    if (row >= 0) {
        set_modifier_row(xi, sp->code, row);
        sp->in_modmap = true;
        if (!xinput_sync(xi, err))
            return false;
    }
    *code = sp->code;
    return true;
}

uint32_t xinput_keysym_for(uint32_t cp)
{
    if (cp == '\n' || cp == '\r')
        return XK_Return;
    if (cp == '\t')
        return XK_Tab;
    if (cp == '\b')
        return XK_BackSpace;
    if (cp == 0x1b)
        return XK_Escape;
    /* Latin-1 keysyms equal their codepoints; the rest of Unicode has its
     * own keysym range. */
    if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff))
        return cp;
    return 0x01000000u | cp;
}
