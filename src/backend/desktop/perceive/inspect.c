/* element_at, inspect and set_value: one element looked at (or changed)
 * closely, live, without walking the whole tree. The elements seen join
 * the latest snapshot, so their refs work with click, type_text, read_text
 * and the rest, and refs handed out before keep working. */
#include "backend/desktop/perceive/atspi_element.h"
#include "backend/desktop/perceive/internal.h"
#include "backend/desktop/perceive/tree.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Elements added to one snapshot before a fresh one is started: the list
 * is searched for each element seen. */
#define MAX_SNAPSHOT_NODES 20000

static void copy_facts(struct atspi_node *to, const struct atspi_node *from)
{
    free(to->name);
    free(to->value);
    to->name = xstrdup(from->name);
    to->value = from->value ? xstrdup(from->value) : NULL;
    to->states = from->states;
    to->x = from->x, to->y = from->y, to->w = from->w, to->h = from->h;
    to->has_action = from->has_action;
    to->has_text = from->has_text;
    to->has_editable = from->has_editable;
}

/* The element's index in the latest snapshot, added when it is not there
 * and brought up to date when it is. */
static int adopt_one(struct perceive *p, const struct atspi_element *e, int parent, int depth)
{
    const struct atspi_node *n = &e->node;
    struct atspi_tree *t = &p->last;
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->nodes[i].path, n->path) == 0 &&
            strcmp(t->nodes[i].bus_name, n->bus_name) == 0) {
            if (!e->partial)
                copy_facts(&t->nodes[i], n);
            return i;
        }
    t->nodes = xrealloc(t->nodes, (size_t)(t->count + 1) * sizeof *t->nodes);
    struct atspi_node *m = &t->nodes[t->count];
    memset(m, 0, sizeof *m);
    m->bus_name = xstrdup(n->bus_name);
    m->path = xstrdup(n->path);
    m->role = xstrdup(n->role);
    copy_facts(m, n);
    m->parent = parent;
    m->depth = depth;
    t->count++;
    /* Numbers after the snapshot's stay unused by the next one. */
    if (p->next_ref < p->first_ref + t->count)
        p->next_ref = p->first_ref + t->count;
    return t->count - 1;
}

/* Refs for every element of the chain; refs[i] is the ref number of
 * c->chain[i]. */
static void adopt_chain(struct perceive *p, const struct atspi_chain *c, int *refs)
{
    if (!p->have_snapshot || p->last.count + c->n > MAX_SNAPSHOT_NODES) {
        struct atspi_tree empty = {0};
        perceive_adopt(p, &empty);
    }
    int parent = -1;
    for (int i = 0; i < c->n; i++) {
        parent = adopt_one(p, &c->chain[i], parent, i);
        refs[i] = p->first_ref + parent;
    }
}

static json_t *element_json(struct job *j, const struct atspi_chain *c, const int *refs)
{
    const struct atspi_element *e = &c->chain[c->n - 1];
    const struct atspi_node *n = &e->node;
    char ref[24];
    snprintf(ref, sizeof ref, "e%d", refs[c->n - 1]);
    json_t *states = json_array();
    for (int bit = 0; bit < 64; bit++)
        if (ATSPI_HAS(n->states, bit) && atspi_state_name(bit))
            json_array_append_new(states, json_string(atspi_state_name(bit)));
    json_t *actions = json_array();
    for (int i = 0; i < e->n_actions; i++)
        json_array_append_new(actions, json_string(e->actions[i]));
    json_t *path = json_array();
    for (int i = 0; i < c->n; i++) {
        char r[24];
        snprintf(r, sizeof r, "e%d", refs[i]);
        json_array_append_new(path,
                              json_pack("{s:s, s:s, s:s}", "ref", r, "role", c->chain[i].node.role,
                                        "name", c->chain[i].node.name));
    }
    json_t *d = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:o}", "session",
                          j->session, "ref", ref, "role", n->role, "name", n->name, "description",
                          e->description, "states", states, "actions", actions, "app", c->app,
                          "window", c->chain[0].node.name, "path", path);
    if (n->value)
        json_object_set_new(d, "value", json_string(n->value));
    if (n->w > 0 && n->h > 0)
        json_object_set_new(d, "bounds", perceive_bounds_json(n->x, n->y, n->w, n->h));
    if (e->has_range)
        json_object_set_new(d, "range",
                            json_pack("{s:f, s:f, s:f, s:f}", "current", e->current, "minimum",
                                      e->minimum, "maximum", e->maximum, "step", e->step));
    json_object_set_new(d, "editable", json_boolean(n->has_editable));
    return d;
}

static char *element_text(const json_t *d)
{
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s %s \"%s\"", json_string_value(json_object_get(d, "ref")),
                  json_string_value(json_object_get(d, "role")),
                  json_string_value(json_object_get(d, "name")));
    const char *value = json_string_value(json_object_get(d, "value"));
    if (value)
        strbuf_printf(&sb, " value=\"%.80s\"", value);
    json_t *b = json_object_get(d, "bounds");
    if (b)
        strbuf_printf(&sb, " (%lld,%lld %lldx%lld)", json_integer_value(json_object_get(b, "x")),
                      json_integer_value(json_object_get(b, "y")),
                      json_integer_value(json_object_get(b, "width")),
                      json_integer_value(json_object_get(b, "height")));
    size_t i;
    json_t *v;
    strbuf_puts(&sb, "\nstates:");
    json_array_foreach(json_object_get(d, "states"), i, v)
        strbuf_printf(&sb, "%s%s", i ? ", " : " ", json_string_value(v));
    if (json_array_size(json_object_get(d, "actions"))) {
        strbuf_puts(&sb, "\nactions:");
        json_array_foreach(json_object_get(d, "actions"), i, v)
            strbuf_printf(&sb, "%s%s", i ? ", " : " ", json_string_value(v));
    }
    const char *desc = json_string_value(json_object_get(d, "description"));
    if (desc && *desc)
        strbuf_printf(&sb, "\ndescription: %.200s", desc);
    json_t *r = json_object_get(d, "range");
    if (r)
        strbuf_printf(&sb, "\nrange: %g (%g to %g, step %g)",
                      json_number_value(json_object_get(r, "current")),
                      json_number_value(json_object_get(r, "minimum")),
                      json_number_value(json_object_get(r, "maximum")),
                      json_number_value(json_object_get(r, "step")));
    strbuf_printf(
        &sb, "\napp \"%s\", window \"%s\"\npath:", json_string_value(json_object_get(d, "app")),
        json_string_value(json_object_get(d, "window")));
    json_array_foreach(json_object_get(d, "path"), i, v) strbuf_printf(
        &sb, "%s%s %s \"%.40s\"", i ? " >" : " ", json_string_value(json_object_get(v, "ref")),
        json_string_value(json_object_get(v, "role")),
        json_string_value(json_object_get(v, "name")));
    return strbuf_steal(&sb);
}

static void answer_chain(struct job *j, struct atspi_chain *c)
{
    int *refs = xcalloc((size_t)c->n, sizeof *refs);
    adopt_chain(j->p, c, refs);
    j->data = element_json(j, c, refs);
    j->text = element_text(j->data);
    free(refs);
}

static void element_at_run(struct job *j)
{
    double scale = args_number(j->args, "scale", 1.0);
    int x = (int)floor(args_number(j->args, "x", 0) / scale);
    int y = (int)floor(args_number(j->args, "y", 0) / scale);
    struct atspi *a = perceive_atspi(j);
    if (!a)
        return;
    struct atspi_chain c;
    char *err = NULL;
    if (!j->p->element_hint)
        j->p->element_hint = atspi_hint_create();
    if (!atspi_element_at(a, j->p->element_hint, x, y, &c, &err)) {
        if (err) {
            job_fail(j, "cannot ask the accessibility tree: %s", err);
            free(err);
        } else {
            job_fail_code(j, ERROR_NOT_FOUND,
                          "no accessible element at %d,%d: no window there exposes one (try "
                          "screenshot, or read_text with a region for OCR)",
                          x, y);
        }
        return;
    }
    answer_chain(j, &c);
    atspi_chain_finish(&c);
}

void perceive_element_at(struct perceive *p, struct backend_call *bc)
{
    job_start(p, bc, element_at_run, NULL);
}

/* The element a ref names, looked at again: false with j->error (stale
 * ref, gone). */
static bool chain_of_ref(struct job *j, struct atspi_chain *c)
{
    const char *ref = args_string(j->args, "ref", "");
    const struct atspi_node *n = perceive_ref(j, ref);
    if (!n)
        return false;
    struct atspi *a = perceive_atspi(j);
    if (!a)
        return false;
    char *bus = xstrdup(n->bus_name), *path = xstrdup(n->path), *err = NULL;
    bool ok = atspi_element_chain(a, bus, path, c, &err);
    free(bus);
    free(path);
    if (!ok) {
        job_fail_code(j, ERROR_NOT_FOUND,
                      "element %s is gone (%s); take a new snapshot or use element_at", ref, err);
        free(err);
    }
    return ok;
}

static void inspect_run(struct job *j)
{
    struct atspi_chain c;
    if (!chain_of_ref(j, &c))
        return;
    answer_chain(j, &c);
    atspi_chain_finish(&c);
}

void perceive_inspect(struct perceive *p, struct backend_call *bc)
{
    job_start(p, bc, inspect_run, NULL);
}

static void set_value_run(struct job *j)
{
    const char *ref = args_string(j->args, "ref", "");
    double want = args_number(j->args, "value", 0);
    struct atspi_chain c;
    if (!chain_of_ref(j, &c))
        return;
    const struct atspi_element *e = &c.chain[c.n - 1];
    char *err = NULL;
    if (!e->has_range) {
        job_fail_code(j, ERROR_INVALID_ARGUMENT,
                      "%s (%s \"%s\") has no value to set: set_value is for sliders, spin "
                      "buttons and scroll bars (AT-SPI Value); type_text into text fields",
                      ref, e->node.role, e->node.name);
    } else if (want < e->minimum || want > e->maximum) {
        job_fail_code(j, ERROR_INVALID_ARGUMENT, "\"value\" %g is out of range for %s: %g to %g",
                      want, ref, e->minimum, e->maximum);
    } else if (!atspi_set_value(j->p->atspi, e->node.bus_name, e->node.path, want, &err)) {
        job_fail(j, "cannot set %s to %g: %s", ref, want, err);
        free(err);
    }
    atspi_chain_finish(&c);
    if (j->error)
        return;
    /* Read back: a toolkit rounds to its steps and digits. */
    if (!chain_of_ref(j, &c))
        return;
    answer_chain(j, &c);
    atspi_chain_finish(&c);
    json_t *r = json_object_get(j->data, "range");
    double now = json_number_value(json_object_get(r, "current"));
    json_object_set_new(j->data, "requested", json_real(want));
    char *text = xasprintf("set %s to %g%s\n%s", ref, now,
                           fabs(now - want) > 1e-9 ? " (the application rounded it)" : "", j->text);
    free(j->text);
    j->text = text;
}

void perceive_set_value(struct perceive *p, struct backend_call *bc)
{
    job_start(p, bc, set_value_run, NULL);
}
