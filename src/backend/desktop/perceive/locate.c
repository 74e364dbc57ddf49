/* scroll_to's look at the screen: is the element showing yet, and where is
 * the scrollable area to turn the wheel over? One fresh walk of showing
 * elements per look; the desktop scrolls between looks (scroll_to.c). */
#include "backend/backend.h"
#include "backend/desktop/perceive/internal.h"
#include "backend/desktop/perceive/tree.h"
#include "core/args.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Roles of what scrolls, best first. */
static const char *const pane_roles[] = {"scroll pane", "table",    "tree table",  "tree",
                                         "list",        "list box", "document web"};

static int pane_rank(const char *role)
{
    for (size_t i = 0; i < sizeof pane_roles / sizeof *pane_roles; i++)
        if (strcasecmp(role, pane_roles[i]) == 0)
            return (int)i;
    return -1;
}

static bool inside(const struct atspi_node *n, const struct atspi_node *pane)
{
    if (!pane)
        return n->w > 0 && n->h > 0;
    int cx = n->x + n->w / 2, cy = n->y + n->h / 2;
    return n->w > 0 && n->h > 0 && cx >= pane->x && cy >= pane->y && cx < pane->x + pane->w &&
           cy < pane->y + pane->h;
}

/* The scrollable area: of the best role, the largest. */
static const struct atspi_node *pick_pane(const struct atspi_tree *t)
{
    const struct atspi_node *best = NULL;
    int best_rank = 1000;
    for (int i = 0; i < t->count; i++) {
        const struct atspi_node *n = &t->nodes[i];
        int rank = pane_rank(n->role);
        if (rank < 0 || n->w <= 0 || n->h <= 0)
            continue;
        if (!best || rank < best_rank ||
            (rank == best_rank && (long)n->w * n->h > (long)best->w * best->h))
            best = n, best_rank = rank;
    }
    return best;
}

/* What shows in the pane: unchanged after a scroll means its end. */
static uint64_t signature(const struct atspi_tree *t, const struct atspi_node *pane)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
    for (int i = 0; i < t->count; i++) {
        const struct atspi_node *n = &t->nodes[i];
        if (n == pane || !inside(n, pane))
            continue;
        for (const char *c = n->name; *c; c++)
            MIX((unsigned char)*c);
        MIX(n->x);
        MIX(n->y);
    }
#undef MIX
    return h;
}

static void locate_run(struct job *j)
{
    struct perceive_located *l = j->ud;
    const char *ref = args_string(j->args, "ref", NULL);
    const char *text = args_string(j->args, "text", NULL);
    const char *role = args_string(j->args, "role", NULL);
    bool exact = args_bool(j->args, "exact", false);
    char *bus = NULL, *path = NULL;
    if (ref) {
        const struct atspi_node *n = perceive_ref(j, ref);
        if (!n)
            return;
        bus = xstrdup(n->bus_name);
        path = xstrdup(n->path);
        l->was_y = n->h > 0 ? n->y : -1;
    }
    struct atspi_walk_opts o = perceive_walk_opts(j->args);
    o.max_nodes = 2000;
    struct atspi_tree t;
    if (!perceive_walk(j, &o, &t)) {
        free(bus);
        free(path);
        return;
    }
    const struct atspi_node *pane = pick_pane(&t);
    if (pane) {
        l->have_pane = true;
        l->pane = (struct perceive_rect){pane->x, pane->y, pane->w, pane->h};
    }
    l->signature = signature(&t, pane);
    /* How far the content moved: the anchor of the last look, found again
     * inside the area. Then a new anchor for the next: the last element
     * inside the area (scrolling down moves it up, still in view). */
    l->moved = false;
    for (int i = 0; i < t.count && l->anchor_path[0]; i++) {
        const struct atspi_node *n = &t.nodes[i];
        if (strcmp(n->path, l->anchor_path) == 0 && strcmp(n->bus_name, l->anchor_bus) == 0 &&
            inside(n, pane)) {
            l->moved = true;
            l->moved_px = abs(n->y - l->anchor_y);
        }
    }
    /* The lowest leaf in the area: a row, not a header that stays put. */
    l->anchor_path[0] = '\0';
    bool *parent = xcalloc((size_t)t.count + 1, sizeof *parent);
    for (int i = 0; i < t.count; i++)
        if (t.nodes[i].parent >= 0)
            parent[t.nodes[i].parent] = true;
    int best = -1;
    for (int i = 0; i < t.count; i++) {
        const struct atspi_node *n = &t.nodes[i];
        if (!parent[i] && n != pane && inside(n, pane) && strlen(n->path) < sizeof l->anchor_path &&
            strlen(n->bus_name) < sizeof l->anchor_bus && (best < 0 || n->y > t.nodes[best].y))
            best = i;
    }
    free(parent);
    if (best >= 0) {
        snprintf(l->anchor_path, sizeof l->anchor_path, "%s", t.nodes[best].path);
        snprintf(l->anchor_bus, sizeof l->anchor_bus, "%s", t.nodes[best].bus_name);
        l->anchor_y = t.nodes[best].y;
    }
    int found = -1;
    for (int i = 0; i < t.count && found < 0; i++) {
        const struct atspi_node *n = &t.nodes[i];
        bool match = ref ? strcmp(n->path, path) == 0 && strcmp(n->bus_name, bus) == 0
                         : n != pane && tree_matches(n, text, exact, role);
        if (match && inside(n, pane))
            found = i;
    }
    if (found >= 0) {
        const struct atspi_node *n = &t.nodes[found];
        l->found = true;
        l->bounds = (struct perceive_rect){n->x, n->y, n->w, n->h};
        if (ref) {
            /* The ref stays; its place is brought up to date. */
            struct atspi_node *old = (struct atspi_node *)perceive_ref(j, ref);
            old->x = n->x, old->y = n->y, old->w = n->w, old->h = n->h;
            old->states = n->states;
            snprintf(l->ref, sizeof l->ref, "%s", ref);
        } else {
            perceive_adopt(j->p, &t);
            snprintf(l->ref, sizeof l->ref, "e%d", j->p->first_ref + found);
            const struct atspi_node *m = &j->p->last.nodes[found];
            snprintf(l->role, sizeof l->role, "%s", m->role);
            snprintf(l->name, sizeof l->name, "%s", m->name);
        }
    }
    atspi_tree_finish(&t);
    free(bus);
    free(path);
}

static void located(struct job *j)
{
    struct perceive_located *l = j->ud;
    l->error = j->error;
    l->code = j->code;
    l->then(j->bc, l);
    free(j->error);
    free(j);
}

void perceive_locate(struct perceive *p, struct backend_call *bc, struct perceive_located *l,
                     perceive_located_fn then)
{
    struct job *j = job_new(p, bc, locate_run);
    /* The anchor stays from the look before. */
    char bus[sizeof l->anchor_bus], path[sizeof l->anchor_path];
    int y = l->anchor_y;
    memcpy(bus, l->anchor_bus, sizeof bus);
    memcpy(path, l->anchor_path, sizeof path);
    memset(l, 0, sizeof *l);
    memcpy(l->anchor_bus, bus, sizeof bus);
    memcpy(l->anchor_path, path, sizeof path);
    l->anchor_y = y;
    l->was_y = -1;
    j->ud = l;
    l->then = then;
    j->after = located;
    job_queue(j);
}

/* An element's centre, by ref (drag from_ref / to_ref). */
static void centre_run(struct job *j)
{
    const char *ref = j->ud;
    const struct atspi_node *n = perceive_ref(j, ref);
    if (!n)
        return;
    if (n->w <= 0 || n->h <= 0) {
        job_fail_code(j, ERROR_INVALID_ARGUMENT, "%s has no position on the screen", ref);
        return;
    }
    j->has_target = true;
    j->target.x = n->x + n->w / 2;
    j->target.y = n->y + n->h / 2;
    j->target.by = "pointer";
    snprintf(j->target_ref, sizeof j->target_ref, "%s", ref);
}

static void centred(struct job *j)
{
    if (j->error) {
        /* The caller lets go of its state first: the answer ends bc. */
        j->then(j->bc, NULL);
        backend_call_fail_code(j->bc, j->code, "%s", j->error);
    } else {
        j->target.ref = j->target_ref;
        j->then(j->bc, &j->target);
    }
    free(j->error);
    free(j);
}

void perceive_centre(struct perceive *p, struct backend_call *bc, const char *ref,
                     perceive_then then)
{
    struct job *j = job_new(p, bc, centre_run);
    j->ud = (void *)ref;
    j->then = then;
    j->after = centred;
    job_queue(j);
}
