/* A vnc session in the live viewer (src/viewer/): its frames, copied from
 * the client's framebuffer (the viewport's part, as screenshots are), and a
 * person's pointer and keys when they take control.
 *
 * The viewer's frame source may outlive the session (backend.h
 * view_frames), while the framebuffer lives in struct vnc, freed after the
 * session: the source reaches it through a link the session cuts when it
 * is destroyed; a grab then fails like one of a closed connection.
 *
 * A person's events go to the GLib thread without waiting (they come from
 * the loop), in the order the page sent them. Every event sent, the
 * agent's too, is noted there (vnc_view_sent), so that a change of hands
 * lets go of every key and button glovebox holds down; from the moment a
 * person has control the GLib thread refuses the agent's events
 * (vnc_view_refuses), so an agent batch already posted cannot slip in
 * after the person's first ones. */
#include "backend/frames.h"
#include "backend/vnc/internal.h"

#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

struct vnc_view_link {
    pthread_mutex_t mu;
    struct vnc *v; /* under mu; NULL once the session is destroyed */
    int refs;      /* loop thread: the session's and each source's */
};

static void link_unref(struct vnc_view_link *l)
{
    if (--l->refs > 0)
        return;
    pthread_mutex_destroy(&l->mu);
    free(l);
}

static bool produce(void *ud, const struct frame_request *rq, struct frame_shot *out, char **err)
{
    struct vnc_view_link *l = ud;
    pthread_mutex_lock(&l->mu);
    bool ok;
    if (!l->v) {
        out->fail_code = ERROR_SESSION_EXPIRED;
        *err = xstrdup("the session has ended");
        ok = false;
    } else {
        /* No wait: a frame not there yet is the next grab's. */
        ok = vnc_copy_frame(l->v, 0, &out->frame, NULL, &out->fail_code, err);
        if (ok && rq->cursor)
            vnc_cursor_copy(l->v, &out->cursor);
    }
    pthread_mutex_unlock(&l->mu);
    return ok;
}

static void release(void *ud)
{
    link_unref(ud);
}

bool vnc_view_frames(struct session *s, struct frame_source *out, char **err)
{
    (void)err;
    struct vnc *v = vnc_of(s);
    if (!v->view_link) {
        v->view_link = xcalloc(1, sizeof *v->view_link);
        pthread_mutex_init(&v->view_link->mu, NULL);
        v->view_link->v = v;
        v->view_link->refs = 1;
    }
    v->view_link->refs++;
    *out = (struct frame_source){.produce = produce,
                                 .release = release,
                                 .ud = v->view_link,
                                 .cursor_apart = true,
                                 .failure = "cannot read the remote screen"};
    return true;
}

void vnc_view_detach(struct vnc *v)
{
    struct vnc_view_link *l = v->view_link;
    if (!l)
        return;
    v->view_link = NULL;
    /* A grab in flight finishes its copy before this returns. */
    pthread_mutex_lock(&l->mu);
    l->v = NULL;
    pthread_mutex_unlock(&l->mu);
    link_unref(l);
}

/* ---- what is held down (GLib thread) ---- */

void vnc_view_sent(struct vnc *v, const struct vnc_event *e)
{
    if (e->cut)
        return;
    if (!e->key) {
        v->sent_buttons = e->buttons;
        v->sent_x = e->x;
        v->sent_y = e->y;
        return;
    }
    int i = 0;
    while (i < v->n_keys_down && v->keys_down[i] != e->keysym)
        i++;
    if (e->down && i == v->n_keys_down && i < VNC_MAX_KEYS_DOWN)
        v->keys_down[v->n_keys_down++] = e->keysym;
    else if (!e->down && i < v->n_keys_down)
        v->keys_down[i] = v->keys_down[--v->n_keys_down];
}

bool vnc_view_refuses(struct vnc *v)
{
    return v->person_glib;
}

/* Sends e (points the viewport's) and notes it; false when the connection
 * is not up. */
static bool send_one(struct vnc *v, const struct vnc_event *e)
{
    return vnc_conn_send_event(v, e);
}

/* ---- a person's input ---- */

struct person_event {
    struct vnc *v;
    struct backend_view_event ev;
};

static void person_key(struct vnc *v, const struct backend_view_event *ev)
{
    struct vnc_event e = {.key = true, .down = true, .keysym = ev->keysym};
    if (ev->is_char) {
        /* Tapped: the server shifts for the keysym as its keymap needs;
         * Ctrl or Alt the person holds stay down around it (ctrl+u). */
        if (!ev->down)
            return;
        send_one(v, &e);
        e.down = false;
        send_one(v, &e);
        return;
    }
    if (!ev->down) {
        /* A key let go that glovebox never pressed (down before the
         * takeover) is left alone: the server never saw it go down. */
        bool held = false;
        for (int i = 0; i < v->n_keys_down; i++)
            held |= v->keys_down[i] == ev->keysym;
        if (!held)
            return;
        e.down = false;
    }
    send_one(v, &e);
}

static void person_pointer(struct vnc *v, const struct backend_view_event *ev)
{
    int w, h;
    vnc_size(v, &w, &h);
    int x = ev->x < 0 ? 0 : ev->x >= w ? w - 1 : ev->x;
    int y = ev->y < 0 ? 0 : ev->y >= h ? h - 1 : ev->y;
    if (x < 0 || y < 0)
        return; /* no screen yet */
    uint8_t mask = v->sent_buttons;
    uint8_t bit = ev->button ? (uint8_t)(1u << (ev->button - 1)) : 0;
    struct vnc_event e = {.x = (uint16_t)x, .y = (uint16_t)y, .buttons = mask};
    if (ev->button >= 4) {
        /* A wheel click: pressed and let go. */
        if (!ev->down)
            return;
        e.buttons = mask | bit;
        send_one(v, &e);
        e.buttons = mask;
    } else if (bit) {
        e.buttons = ev->down ? mask | bit : mask & (uint8_t)~bit;
    }
    if (!send_one(v, &e))
        return;
    pthread_mutex_lock(&v->mu);
    v->pointer_x = x;
    v->pointer_y = y;
    v->pointer_known = true;
    pthread_mutex_unlock(&v->mu);
}

static gboolean person_now(gpointer ud)
{
    struct person_event *p = ud;
    if (p->ev.kind == BACKEND_VIEW_KEY)
        person_key(p->v, &p->ev);
    else
        person_pointer(p->v, &p->ev);
    free(p);
    return G_SOURCE_REMOVE;
}

void vnc_view_event(struct session *s, const struct backend_view_event *ev)
{
    struct person_event *p = xcalloc(1, sizeof *p);
    p->v = vnc_of(s);
    p->ev = *ev;
    /* Idles posted before the session's free run before it. */
    vnc_glib_post(person_now, p);
}

/* ---- control changes hands ---- */

struct hands {
    struct vnc *v;
    bool person;
};

static gboolean hands_now(gpointer ud)
{
    struct hands *c = ud;
    struct vnc *v = c->v;
    v->person_glib = c->person;
    free(c);
    /* Everything held down is let go, the agent's and the person's. */
    while (v->n_keys_down > 0) {
        struct vnc_event e = {.key = true, .keysym = v->keys_down[v->n_keys_down - 1]};
        if (!send_one(v, &e))
            v->n_keys_down--; /* not up: nothing is held on a new connection */
    }
    if (v->sent_buttons) {
        struct vnc_event e = {.x = v->sent_x, .y = v->sent_y};
        if (!send_one(v, &e))
            v->sent_buttons = 0;
    }
    pthread_mutex_lock(&v->mu);
    v->buttons_held = 0;
    pthread_mutex_unlock(&v->mu);
    return G_SOURCE_REMOVE;
}

void vnc_input_control(struct session *s, bool person)
{
    struct vnc *v = vnc_of(s);
    /* At once, for the agent's input on the pool (it stops early, denied). */
    atomic_store(&v->person_control, person);
    struct hands *c = xmalloc(sizeof *c);
    c->v = v;
    c->person = person;
    vnc_glib_post(hands_now, c);
}
