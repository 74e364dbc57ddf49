/* Perception for desktop sessions: accessibility snapshots with element
 * refs, search by text and role, reading text (accessible text, else OCR),
 * waiting for text or elements, and pressing elements the way assistive
 * technology does. One struct perceive per desktop session, created and
 * owned by the desktop backend; the operations below are what its vtable
 * entries call. Each answers bc exactly once (backend_call_done/fail), later,
 * after work on the libuv worker pool: the loop never waits for D-Bus or
 * Tesseract. Operations on one session run one at a time.
 *
 * Wiring into a desktop backend:
 *   start:   d->perceive = perceive_create(bus_address, &(struct perceive_host){
 *                .ud = d, .capture = <full-screen capture, thread-safe>});
 *            Start the session's dbus-daemon with DISPLAY set: the a11y bus
 *            launcher names its socket after $DISPLAY, and without it every
 *            desktop's launcher would share ~/.cache/at-spi/bus.
 *            Apps get DBUS_SESSION_BUS_ADDRESS, DISPLAY and NO_AT_BRIDGE=0.
 *   vtable:  .snapshot/.find/.read_text/.wait_for = a one-line call each.
 *   click:   with "ref" or "text": perceive_click(p, bc, then); then() clicks
 *            t->x, t->y unless t->done, and answers with
 *            perceive_target_json(t).
 *   type:    with "ref": perceive_focus(p, bc, then); then() clicks the
 *            centre unless t->done, then types.
 *   destroy: perceive_destroy(d->perceive) once no operation is in flight. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error_code.h"

struct backend_call;
struct frame;
struct perceive;

/* What the desktop lends to perception. */
struct perceive_host {
    void *ud;
    /* Capture the whole screen into out (the callee initialises it); false
     * with *err. Called on a worker thread, never two at once per session. */
    bool (*capture)(void *ud, struct frame *out, char **err);
};

/* A rectangle of the screen, pixels. */
struct perceive_rect {
    int x, y, w, h;
};
#define PERCEIVE_MAX_SECRETS 32
/* The password fields (AT-SPI role "password text") the latest walks of the
 * tree saw — snapshot, find, wait_for, click by text —, at most max of
 * them, into out; returns how many. Any thread. */
int perceive_secret_rects(struct perceive *p, struct perceive_rect *out, int max);

/* Whether the element that has the keyboard focus now is a password field
 * (AT-SPI role "password text"), however it got the focus; true as well
 * when it cannot be told (an application that does not answer): the caller
 * then keeps typed text out of the audit log. false when the desktop has no
 * accessibility bus at all (nothing says what is a password field). Blocks for a D-Bus round trip
 * per application (Collection.GetMatches), longer only for toolkits without
 * it; call it from a thread that may block (the desktop's input thread),
 * never the loop. settle_ms > 0 (input was just given, which a program may
 * not have handled yet): a "no" is asked again until then. */
bool perceive_focus_is_secret(struct perceive *p, int settle_ms);

/* session_bus_address: the desktop's D-Bus session bus, whose org.a11y.Bus
 * leads to its accessibility bus. Nothing is connected until first use. */
struct perceive *perceive_create(const char *session_bus_address, const struct perceive_host *host);
/* Only once no operation is in flight (the session is not in use). NULL ok. */
void perceive_destroy(struct perceive *p);

/* snapshot: {app?, depth?, max_nodes?, include_hidden?}. New refs; the
 * previous snapshot's refs stop working. */
void perceive_snapshot(struct perceive *p, struct backend_call *bc);
/* find: {text?, role?, exact?, app?, limit?, lang?}. Accessibility matches
 * come with new refs (a new snapshot generation); with none, OCR words. */
void perceive_find(struct perceive *p, struct backend_call *bc);
/* read_text: {ref? | region?, lang?, ocr?}. */
void perceive_read_text(struct perceive *p, struct backend_call *bc);
/* wait_for: {text? | regex? | ref?, gone?, timeout_ms?} (exit: the desktop, exit_wait.c). */
void perceive_wait_for(struct perceive *p, struct backend_call *bc);

/* element_at: {x, y} (screen pixels): the deepest element there, with its
 * window and path, each with a ref added to the latest snapshot (earlier
 * refs keep working). */
void perceive_element_at(struct perceive *p, struct backend_call *bc);
/* inspect: {ref}: the element looked at again, with everything known. */
void perceive_inspect(struct perceive *p, struct backend_call *bc);
/* set_value: {ref, value}: AT-SPI Value.CurrentValue, read back. */
void perceive_set_value(struct perceive *p, struct backend_call *bc);

/* scroll_to's look: whether the element named by {ref | text, role?,
 * exact?, app?, window?} shows (inside the scrollable area, when there is
 * one), and where that area is. */
struct perceive_located;
typedef void (*perceive_located_fn)(struct backend_call *bc, struct perceive_located *l);
struct perceive_located {
    bool found;
    char ref[24];                /* found: its ref (the same ref, or a new one) */
    char role[64], name[256];    /* found by text or role */
    struct perceive_rect bounds; /* found: where it is */
    bool have_pane;              /* a scrollable area was seen */
    struct perceive_rect pane;
    int was_y;          /* ref: its top when last seen, -1 unknown */
    uint64_t signature; /* of what shows in the area: unchanged = its end */
    /* How far the content moved since the look before (anchor: an element
     * seen then, looked for now; kept in l between looks): moved_px is
     * valid when moved is set. */
    char anchor_bus[64], anchor_path[160];
    int anchor_y;
    bool moved;
    int moved_px;
    char *error; /* the look failed (stale ref, no bus); the callee frees it after then */
    enum error_code code;
    perceive_located_fn then; /* the callee's */
};
/* l is the caller's, filled and handed to then() on the loop thread. */
void perceive_locate(struct perceive *p, struct backend_call *bc, struct perceive_located *l,
                     perceive_located_fn then);

/* Where an element is, for an action the desktop performs itself. */
struct perceive_target {
    int x, y;        /* the element's centre, screen pixels */
    bool done;       /* already pressed (click) or focused (type_text) */
    const char *by;  /* "action", "focus", "pointer": how it was or is to be done */
    const char *ref; /* the element's ref, or NULL for an OCR match */
    bool secret;     /* a password field: what is typed into it is a secret */
};
/* {ref?, x, y, by, done}: for the answer of click or type_text. */
json_t *perceive_target_json(const struct perceive_target *t);
/* Continues an operation on the loop thread; answers bc itself. */
typedef void (*perceive_then)(struct backend_call *bc, const struct perceive_target *t);

/* click on {ref | text (+role)}: a plain left click is tried as the
 * element's accessibility action (focus for editable text); then() runs
 * with done set, or with the centre to click (other buttons, counts, holds,
 * elements without actions, OCR matches, pointer_only: when the desktop must
 * see where the click lands). Errors answer bc directly. */
void perceive_click(struct perceive *p, struct backend_call *bc, bool pointer_only,
                    perceive_then then);
/* The centre of the element ref (borrowed until then() runs) names, for
 * the pointer; then() gets it with done false, or NULL when it cannot be
 * had (a stale ref): the caller then only lets go of its state, without
 * answering, and bc is answered with why right after. */
void perceive_centre(struct perceive *p, struct backend_call *bc, const char *ref,
                     perceive_then then);
/* type_text with {ref}: focus the element, then then() types (clicking the
 * centre first when done is false). */
void perceive_focus(struct perceive *p, struct backend_call *bc, perceive_then then);
/* After type_text with {ref, text}: wait (up to 2 s) until the element's
 * text shows what was typed, or stops changing, so what is read next
 * includes it; then() runs with done set. */
void perceive_settle_typed(struct perceive *p, struct backend_call *bc, perceive_then then);
