/* A person's pointer and keys from the live viewer (takeover), and letting
 * go of what is held down when control changes hands. Both run on the
 * desktop's input thread (input_queue.h), after the agent input queued
 * before them: a takeover stops that input first, so the person's events
 * follow at once, and never interleave with an agent's drag. */
#define LOG_MODULE "desktop"
#include "backend/backend.h"
#include "backend/desktop/input_queue.h"
#include "backend/desktop/internal.h"
#include "backend/desktop/xinput.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>

#define XK_MISCELLANY
#define XK_LATIN1
#include <X11/keysymdef.h>

struct person_job {
    struct input_job job; /* first */
    struct desktop *d;
    bool release; /* let go of everything held; else ev */
    struct backend_view_event ev;
};

/* Lets go of (down=false) or presses again the Shift keys the person holds. */
static void shift_keys(struct xinput *xi, const uint8_t *codes, int n, bool down)
{
    for (int i = 0; i < n; i++)
        xinput_key(xi, codes[i], down);
}

/* A character: pressed and let go at once, with Shift as the keymap needs
 * it whatever the person's own layout did to get it (on a German keyboard
 * "/" is Shift+7; here it may be unshifted). Ctrl, Alt and Super stay as
 * the person holds them (ctrl+c). */
static void type_char(struct xinput *xi, uint32_t keysym)
{
    uint8_t code;
    bool shift;
    char *err = NULL;
    if (!xinput_keycode(xi, keysym, &code, &shift, &err)) {
        log_debug("person's key 0x%x: %s", (unsigned)keysym, err);
        free(err);
        return;
    }
    uint8_t held[4];
    int n = xinput_held_codes(xi, XK_Shift_L, held, 2);
    n += xinput_held_codes(xi, XK_Shift_R, held + n, 2);
    uint8_t shift_code = 0;
    if (shift && n == 0 && !xinput_modifier_keycode(xi, XK_Shift_L, &shift_code, &err)) {
        free(err);
        return;
    }
    if (!shift && n > 0)
        shift_keys(xi, held, n, false);
    if (shift_code)
        xinput_key(xi, shift_code, true);
    xinput_key(xi, code, true);
    xinput_key(xi, code, false);
    if (shift_code)
        xinput_key(xi, shift_code, false);
    if (!shift && n > 0)
        shift_keys(xi, held, n, true);
}

static void key(struct xinput *xi, const struct backend_view_event *ev)
{
    if (ev->is_char) {
        if (ev->down)
            type_char(xi, ev->keysym);
        return;
    }
    uint8_t code;
    bool shift;
    char *err = NULL;
    if (!xinput_keycode(xi, ev->keysym, &code, &shift, &err)) {
        log_debug("person's key 0x%x: %s", (unsigned)ev->keysym, err);
        free(err);
        return;
    }
    /* A key let go that is not down (pressed before the takeover) is left
     * alone: the program never saw it go down. */
    if (ev->down || xinput_key_is_down(xi, code))
        xinput_key(xi, code, ev->down);
}

static void pointer(struct desktop *d, struct xinput *xi, const struct backend_view_event *ev)
{
    int w, h;
    xinput_screen_size(xi, &w, &h);
    int x = ev->x < 0 ? 0 : ev->x >= w ? w - 1 : ev->x;
    int y = ev->y < 0 ? 0 : ev->y >= h ? h - 1 : ev->y;
    xinput_move(xi, x, y);
    if (ev->button >= 4) {
        /* A wheel click is a press and a release. */
        if (ev->down) {
            xinput_button(xi, ev->button, true);
            xinput_button(xi, ev->button, false);
        }
        return;
    }
    if (ev->button == 0)
        return;
    /* The window clicked gets the focus, as a click-to-focus window
     * manager would give it (the desktop's own leaves program windows'
     * clicks alone). */
    if (ev->down)
        xinput_focus_at(xi, x, y);
    xinput_button(xi, ev->button, ev->down);
    d->input_at_ms = uv_hrtime() / 1000000;
}

static void run(struct input_job *job)
{
    struct person_job *p = (struct person_job *)job;
    struct xinput *xi = p->d->input;
    char *err = NULL;
    if (!xinput_lock(xi, &err)) {
        log_debug("person's input: %s", err);
        free(err);
        return;
    }
    if (p->release) {
        int n = xinput_release_all(xi);
        if (n)
            log_info("%s: let go of %d key%s and button%s held down", p->d->session->id, n,
                     n == 1 ? "" : "s", n == 1 ? "" : "s");
    } else if (p->ev.kind == BACKEND_VIEW_KEY) {
        key(xi, &p->ev);
    } else {
        pointer(p->d, xi, &p->ev);
    }
    xinput_unlock(xi);
}

static void done(struct input_job *job, bool dropped)
{
    (void)dropped;
    free(job);
}

static void push(struct desktop *d, struct person_job *p)
{
    desktop_input_ensure(d);
    p->d = d;
    p->job.run = run;
    p->job.done = done;
    input_queue_push(d->input_queue, &p->job);
}

void desktop_view_event(struct session *s, const struct backend_view_event *ev)
{
    struct person_job *p = xcalloc(1, sizeof *p);
    p->ev = *ev;
    push(desktop_of(s), p);
}

void desktop_input_control(struct session *s, bool person)
{
    struct desktop *d = desktop_of(s);
    /* Before the release is queued: agent input queued meanwhile is refused. */
    atomic_store(&d->person_control, person);
    struct person_job *p = xcalloc(1, sizeof *p);
    p->release = true;
    push(d, p);
}
