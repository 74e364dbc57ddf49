/* click and type_text on an element: found by ref or text, pressed or
 * focused through accessibility when a real user's plain click would do the
 * same, else handed back to the desktop to use the pointer. */
#include "backend/desktop/perceive/internal.h"

#include "backend/desktop/perceive/tree.h"
#include "core/args.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* The element to act on: from a ref, else the best text match in a fresh
 * walk (one with an action first), else OCR. false with j->error. */
static bool resolve(struct job *j, struct atspi_node *copy, bool *from_ocr)
{
    const char *ref = args_string(j->args, "ref", NULL);
    const char *text = args_string(j->args, "text", NULL);
    const char *role = args_string(j->args, "role", NULL);
    bool exact = args_bool(j->args, "exact", false);
    *from_ocr = false;
    memset(copy, 0, sizeof *copy);
    if (ref) {
        const struct atspi_node *n = perceive_ref(j, ref);
        if (!n)
            return false;
        *copy = *n;
        snprintf(j->target_ref, sizeof j->target_ref, "%s", ref);
        return true;
    }
    if (!text && !role) {
        job_fail_code(j, ERROR_INVALID_ARGUMENT,
                      "give \"ref\" (from snapshot or find) or \"text\" to say which element");
        return false;
    }
    struct atspi_walk_opts o = perceive_walk_opts(j->args);
    struct atspi_tree t;
    int best = -1;
    if (perceive_walk(j, &o, &t)) {
        for (int i = 0; i < t.count; i++) {
            if (!tree_matches(&t.nodes[i], text, exact, role) || t.nodes[i].w <= 0)
                continue;
            if (best < 0 || (t.nodes[i].has_action && !t.nodes[best].has_action))
                best = i;
        }
        if (best >= 0) {
            /* Keep the strings: the tree goes, the copy stays in the job. */
            *copy = t.nodes[best];
            j->target.secret = strcmp(t.nodes[best].role, "password text") == 0;
            t.nodes[best].bus_name = t.nodes[best].path = NULL;
            copy->role = copy->name = copy->value = NULL;
        }
        atspi_tree_finish(&t);
    }
    free(j->error);
    j->error = NULL;
    if (best >= 0)
        return true;
    if (role || !text) {
        job_fail_code(j, ERROR_NOT_FOUND, "no element matches%s%s%s%s", text ? " text \"" : "",
                      text ? text : "", text ? "\"" : "", role ? " with that role" : "");
        return false;
    }
    struct ocr_result r;
    const char *lang = args_string(j->args, "lang", "eng");
    if (!perceive_ocr(j, 0, 0, 0, 0, lang, 0, &r))
        return false;
    json_t *m = perceive_ocr_matches(&r, text, exact, 1);
    ocr_result_finish(&r);
    json_t *b = json_object_get(json_array_get(m, 0), "bounds");
    if (!b) {
        json_decref(m);
        job_fail_code(j, ERROR_NOT_FOUND,
                      "no element or visible text matches \"%s\" (searched the accessibility tree "
                      "and OCR)",
                      text);
        return false;
    }
    copy->x = (int)json_integer_value(json_object_get(b, "x"));
    copy->y = (int)json_integer_value(json_object_get(b, "y"));
    copy->w = (int)json_integer_value(json_object_get(b, "width"));
    copy->h = (int)json_integer_value(json_object_get(b, "height"));
    json_decref(m);
    *from_ocr = true;
    return true;
}

static void set_centre(struct job *j, const struct atspi_node *n)
{
    j->has_target = true;
    j->target.secret = j->target.secret || (n->role && strcmp(n->role, "password text") == 0);
    j->target.x = n->x + n->w / 2;
    j->target.y = n->y + n->h / 2;
    j->target.by = "pointer";
}

/* A ref's copy borrows the snapshot's strings; a text match owns its two. */
static void drop_copy(struct job *j, struct atspi_node *n)
{
    if (!j->target_ref[0]) {
        free(n->bus_name);
        free(n->path);
    }
}

/* The element's application has left the bus (it crashed or quit): its
 * old place on the screen may now hold something else, so no pointer
 * fallback. */
static bool element_gone(struct job *j, const char *err)
{
    if (!err || !(strstr(err, "ServiceUnknown") || strstr(err, "NameHasNoOwner") ||
                  strstr(err, "UnknownObject")))
        return false;
    j->has_target = false;
    job_fail(j,
             "element %s is gone: its application no longer answers on the accessibility bus "
             "(it quit or crashed); take a new snapshot",
             j->target_ref[0] ? j->target_ref : "found");
    return true;
}

static void click_run(struct job *j)
{
    struct atspi_node n;
    bool from_ocr;
    if (!resolve(j, &n, &from_ocr))
        return;
    if (n.w <= 0 && !n.has_action) {
        job_fail(j, "the element has no position on screen and no action to press it");
        drop_copy(j, &n);
        return;
    }
    set_centre(j, &n);
    bool plain = strcmp(args_string(j->args, "button", "left"), "left") == 0 &&
                 args_int(j->args, "count", 1) == 1 && args_int(j->args, "hold_ms", 0) == 0;
    if (plain && !from_ocr && !j->pointer_only && j->p->atspi) {
        char *err = NULL;
        /* Clicking a text field focuses it; its action would "activate" it
         * (submit the dialog) instead. */
        if (ATSPI_HAS(n.states, ATSPI_STATE_EDITABLE)) {
            if (atspi_grab_focus(j->p->atspi, n.bus_name, n.path, &err))
                j->target.done = true, j->target.by = "focus";
        } else if (n.has_action) {
            if (atspi_do_action(j->p->atspi, n.bus_name, n.path, &err))
                j->target.done = true, j->target.by = "action";
        }
        bool gone = !j->target.done && element_gone(j, err);
        free(err); /* otherwise the pointer is the fallback */
        if (gone) {
            drop_copy(j, &n);
            return;
        }
    }
    if (n.w <= 0 && !j->target.done) {
        j->has_target = false;
        job_fail(j, "the element's action failed and it has no position on screen to click");
    }
    drop_copy(j, &n);
}

static void focus_run(struct job *j)
{
    struct atspi_node n;
    bool from_ocr;
    if (!resolve(j, &n, &from_ocr))
        return;
    set_centre(j, &n);
    char *err = NULL;
    if (!from_ocr && j->p->atspi && atspi_grab_focus(j->p->atspi, n.bus_name, n.path, &err))
        j->target.done = true, j->target.by = "focus";
    bool gone = !j->target.done && element_gone(j, err);
    free(err);
    if (gone) {
        drop_copy(j, &n);
        return;
    }
    if (n.w <= 0 && !j->target.done) {
        j->has_target = false;
        job_fail(j, "cannot focus the element and it has no position on screen to click");
    }
    drop_copy(j, &n);
}

/* How long type_text waits for a field to show what was typed: the program
 * reads key events at its own pace, and a read right after type_text must
 * see them. */
#define SETTLE_MS       2000
#define SETTLE_QUIET_MS 300

static void settle_run(struct job *j)
{
    const char *ref = args_string(j->args, "ref", NULL);
    const char *typed = args_string(j->args, "text", "");
    const struct atspi_node *n = ref ? perceive_ref(j, ref) : NULL;
    j->has_target = true;
    j->target.done = true;
    if (!n || !n->has_text || !j->p->atspi) {
        free(j->error); /* nothing to wait on: not an error of the typing */
        j->error = NULL;
        return;
    }
    /* The last line typed is what a single-line field keeps. */
    const char *tail = strrchr(typed, '\n') ? strrchr(typed, '\n') + 1 : typed;
    char *before = NULL;
    int quiet = 0;
    for (int waited = 0; waited < SETTLE_MS; waited += 10) {
        char *now = NULL, *err = NULL;
        if (!atspi_read_text(j->p->atspi, n->bus_name, n->path, &now, &err)) {
            free(err);
            break;
        }
        bool arrived = strstr(now, tail) != NULL;
        quiet = before && strcmp(before, now) == 0 ? quiet + 10 : 0;
        free(before);
        before = now;
        if (arrived || quiet >= SETTLE_QUIET_MS)
            break;
        uv_sleep(10);
    }
    free(before);
}

void perceive_settle_typed(struct perceive *p, struct backend_call *bc, perceive_then then)
{
    job_start(p, bc, settle_run, then);
}

void perceive_click(struct perceive *p, struct backend_call *bc, bool pointer_only,
                    perceive_then then)
{
    struct job *j = job_new(p, bc, click_run);
    j->then = then;
    j->pointer_only = pointer_only;
    job_queue(j);
}

void perceive_focus(struct perceive *p, struct backend_call *bc, perceive_then then)
{
    job_start(p, bc, focus_run, then);
}

json_t *perceive_target_json(const struct perceive_target *t)
{
    json_t *o =
        json_pack("{s:i, s:i, s:s, s:b}", "x", t->x, "y", t->y, "by", t->by, "done", t->done);
    if (t->ref)
        json_object_set_new(o, "ref", json_string(t->ref));
    return o;
}
