#include "backend/desktop/xgrab.h"

#include "backend/frames.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/shm.h>
#include <xcb/xcb.h>
#include <xcb/xfixes.h>

struct xgrab {
    pthread_mutex_t lock;
    char *display;
    xcb_connection_t *c;
    xcb_window_t root;
    int depth;
    bool shm_ok;     /* the server has MIT-SHM and attached our segment */
    bool shm_failed; /* do not try again on this connection */
    xcb_shm_seg_t seg;
    uint8_t *mem; /* the segment, mapped */
    size_t size;  /* its bytes */
    bool last_used_shm;
};

struct xgrab *xgrab_create(const char *display)
{
    struct xgrab *g = xcalloc(1, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->display = xstrdup(display);
    return g;
}

static void drop_shm(struct xgrab *g)
{
    if (g->shm_ok && g->c && !xcb_connection_has_error(g->c))
        xcb_shm_detach(g->c, g->seg);
    if (g->mem)
        shmdt(g->mem);
    g->mem = NULL;
    g->size = 0;
    g->shm_ok = false;
}

static void disconnect(struct xgrab *g)
{
    drop_shm(g);
    if (g->c)
        xcb_disconnect(g->c);
    g->c = NULL;
    g->shm_failed = false;
}

void xgrab_destroy(struct xgrab *g)
{
    if (!g)
        return;
    disconnect(g);
    pthread_mutex_destroy(&g->lock);
    free(g->display);
    free(g);
}

static bool connect_display(struct xgrab *g, char **err)
{
    int screen = 0;
    g->c = xcb_connect(g->display, &screen);
    if (xcb_connection_has_error(g->c)) {
        xcb_disconnect(g->c);
        g->c = NULL;
        *err = xasprintf("cannot connect to X display %s", g->display);
        return false;
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(g->c));
    for (int i = 0; i < screen && it.rem; i++)
        xcb_screen_next(&it);
    g->root = it.data->root;
    g->depth = it.data->root_depth;
    return true;
}

/* A segment of at least size bytes attached to the server; false (and
 * GetImage from then on) when the server cannot share memory with us — a
 * remote display, another IPC namespace, no MIT-SHM. */
static bool ensure_shm(struct xgrab *g, size_t size)
{
    if (g->shm_failed)
        return false;
    if (g->shm_ok && g->size >= size)
        return true;
    drop_shm(g);
    const xcb_query_extension_reply_t *ext = xcb_get_extension_data(g->c, &xcb_shm_id);
    if (!ext || !ext->present) {
        g->shm_failed = true;
        return false;
    }
    int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
    if (id < 0) {
        g->shm_failed = true;
        return false;
    }
    void *mem = shmat(id, NULL, 0);
    g->seg = xcb_generate_id(g->c);
    xcb_generic_error_t *e =
        mem == (void *)-1
            ? NULL
            : xcb_request_check(g->c, xcb_shm_attach_checked(g->c, g->seg, (uint32_t)id, 0));
    /* Marked for removal now that both sides hold it: the kernel frees it
     * when the last one lets go, even if glovebox is killed. */
    shmctl(id, IPC_RMID, NULL);
    if (mem == (void *)-1 || e) {
        free(e);
        if (mem != (void *)-1)
            shmdt(mem);
        g->shm_failed = true;
        return false;
    }
    g->mem = mem;
    g->size = size;
    g->shm_ok = true;
    return true;
}

/* 24-bit depth arrives as B, G, R, X bytes. Sizes are read into locals so
 * the compiler can vectorise the loop (out may alias nothing it writes). */
static void to_rgba(const uint8_t *src, struct frame *out)
{
    const uint32_t w = out->width, h = out->height;
    const size_t stride = out->stride;
    uint8_t *const base = out->rgba;
    for (uint32_t y = 0; y < h; y++) {
        const uint32_t *restrict row = (const uint32_t *)(src + (size_t)y * w * 4);
        uint32_t *restrict dst = (uint32_t *)(base + (size_t)y * stride);
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v = row[x];
            dst[x] = 0xff000000u | ((v & 0xffu) << 16) | (v & 0xff00u) | ((v >> 16) & 0xffu);
        }
    }
}

/* The area to read; w == 0 means the whole screen. */
struct area {
    int x, y, w, h;
};

static bool grab(struct xgrab *g, const struct area *a, struct frame *out, char **err)
{
    xcb_get_geometry_reply_t *geo =
        xcb_get_geometry_reply(g->c, xcb_get_geometry(g->c, g->root), NULL);
    if (!geo) {
        *err = xasprintf("the X display %s went away", g->display);
        return false;
    }
    uint16_t w = geo->width, h = geo->height, x = 0, y = 0;
    free(geo);
    if (a->w) {
        if (a->x + a->w > w || a->y + a->h > h) {
            *err = xasprintf("region %dx%d at %d,%d is off the screen (%ux%u)", a->w, a->h, a->x,
                             a->y, w, h);
            return false;
        }
        x = (uint16_t)a->x, y = (uint16_t)a->y, w = (uint16_t)a->w, h = (uint16_t)a->h;
    }
    if (g->depth < 24) {
        *err =
            xasprintf("cannot read the screen of %s: depth %d is not 24/32", g->display, g->depth);
        return false;
    }
    size_t need = (size_t)w * h * 4;
    g->last_used_shm = ensure_shm(g, need);
    if (g->last_used_shm) {
        xcb_shm_get_image_reply_t *r =
            xcb_shm_get_image_reply(g->c,
                                    xcb_shm_get_image(g->c, g->root, (int16_t)x, (int16_t)y, w, h,
                                                      ~0u, XCB_IMAGE_FORMAT_Z_PIXMAP, g->seg, 0),
                                    NULL);
        bool ok = r != NULL;
        free(r);
        if (ok) {
            frame_alloc(out, w, h);
            to_rgba(g->mem, out);
            return true;
        }
        /* Fall through to the copy through the socket. */
        g->shm_failed = true;
        drop_shm(g);
        g->last_used_shm = false;
    }
    xcb_get_image_reply_t *img = xcb_get_image_reply(
        g->c,
        xcb_get_image(g->c, XCB_IMAGE_FORMAT_Z_PIXMAP, g->root, (int16_t)x, (int16_t)y, w, h, ~0u),
        NULL);
    if (!img || (size_t)xcb_get_image_data_length(img) < need) {
        free(img);
        *err = xasprintf("cannot read the screen of %s (GetImage failed)", g->display);
        return false;
    }
    frame_alloc(out, w, h);
    to_rgba(xcb_get_image_data(img), out);
    free(img);
    return true;
}

static bool capture(struct xgrab *g, const struct area *a, struct frame *out, char **err)
{
    pthread_mutex_lock(&g->lock);
    if (g->c && xcb_connection_has_error(g->c))
        disconnect(g);
    bool ok = (g->c || connect_display(g, err)) && grab(g, a, out, err);
    if (!ok && g->c && xcb_connection_has_error(g->c))
        disconnect(g); /* reconnect next time: the server may be back */
    pthread_mutex_unlock(&g->lock);
    return ok;
}

bool xgrab_screen(struct xgrab *g, struct frame *out, char **err)
{
    return capture(g, &(struct area){0}, out, err);
}

bool xgrab_area(struct xgrab *g, int x, int y, int w, int h, struct frame *out, char **err)
{
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || x > UINT16_MAX || y > UINT16_MAX || w > UINT16_MAX ||
        h > UINT16_MAX) {
        *err = xasprintf("region %dx%d at %d,%d is not on any screen", w, h, x, y);
        return false;
    }
    return capture(g, &(struct area){x, y, w, h}, out, err);
}

bool xgrab_uses_shm(struct xgrab *g)
{
    pthread_mutex_lock(&g->lock);
    bool r = g->last_used_shm;
    pthread_mutex_unlock(&g->lock);
    return r;
}

bool xgrab_cursor(struct xgrab *g, struct frame_cursor *out, char **err)
{
    pthread_mutex_lock(&g->lock);
    bool ok = false;
    if (!g->c) {
        *err = xstrdup("no connection to the display");
    } else if (!xcb_get_extension_data(g->c, &xcb_xfixes_id) ||
               !xcb_get_extension_data(g->c, &xcb_xfixes_id)->present) {
        *err =
            xasprintf("X display %s has no XFIXES extension to read the pointer from", g->display);
    } else {
        /* XFixes must be told which version the client speaks first. */
        free(xcb_xfixes_query_version_reply(g->c, xcb_xfixes_query_version(g->c, 4, 0), NULL));
        xcb_xfixes_get_cursor_image_reply_t *r =
            xcb_xfixes_get_cursor_image_reply(g->c, xcb_xfixes_get_cursor_image(g->c), NULL);
        if (!r) {
            *err = xasprintf("cannot read the pointer's image from %s", g->display);
        } else {
            size_t n = (size_t)r->width * r->height;
            *out = (struct frame_cursor){.x = r->x - r->xhot,
                                         .y = r->y - r->yhot,
                                         .width = r->width,
                                         .height = r->height,
                                         .argb = xmalloc(n * sizeof(uint32_t))};
            memcpy(out->argb, xcb_xfixes_get_cursor_image_cursor_image(r), n * sizeof(uint32_t));
            free(r);
            ok = true;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return ok;
}
