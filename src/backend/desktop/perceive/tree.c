#include "backend/desktop/perceive/tree.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The states a model acts on, in the order they are listed. */
static const struct {
    int bit;
    const char *name;
} state_names[] = {
    {ATSPI_STATE_FOCUSED, "focused"},     {ATSPI_STATE_ENABLED, "enabled"},
    {ATSPI_STATE_CHECKED, "checked"},     {ATSPI_STATE_SELECTED, "selected"},
    {ATSPI_STATE_EDITABLE, "editable"},   {ATSPI_STATE_SHOWING, "showing"},
    {ATSPI_STATE_FOCUSABLE, "focusable"}, {ATSPI_STATE_CHECKABLE, "checkable"},
    {ATSPI_STATE_EXPANDED, "expanded"},   {ATSPI_STATE_PRESSED, "pressed"},
    {ATSPI_STATE_MODAL, "modal"},         {ATSPI_STATE_ACTIVE, "active"},
};

json_t *tree_element_json(const struct atspi_tree *t, int i, int first_ref)
{
    const struct atspi_node *n = &t->nodes[i];
    char ref[24];
    snprintf(ref, sizeof ref, "e%d", first_ref + i);
    json_t *e = json_pack("{s:s, s:s, s:s, s:i}", "ref", ref, "role", n->role, "name", n->name,
                          "depth", n->depth);
    if (n->value)
        json_object_set_new(e, "value", json_string(n->value));
    json_t *states = json_array();
    for (size_t k = 0; k < sizeof state_names / sizeof state_names[0]; k++)
        if (ATSPI_HAS(n->states, state_names[k].bit))
            json_array_append_new(states, json_string(state_names[k].name));
    json_object_set_new(e, "states", states);
    if (n->w > 0 && n->h > 0)
        json_object_set_new(
            e, "bounds",
            json_pack("{s:i, s:i, s:i, s:i}", "x", n->x, "y", n->y, "width", n->w, "height", n->h));
    if (n->parent >= 0) {
        snprintf(ref, sizeof ref, "e%d", first_ref + n->parent);
        json_object_set_new(e, "parent", json_string(ref));
    }
    json_object_set_new(e, "actionable", json_boolean(n->has_action));
    return e;
}

json_t *tree_elements_json(const struct atspi_tree *t, int first_ref)
{
    json_t *a = json_array();
    for (int i = 0; i < t->count; i++)
        json_array_append_new(a, tree_element_json(t, i, first_ref));
    return a;
}

/* Quote for one outline line: newlines would break the outline. */
static void put_quoted(struct strbuf *sb, const char *s, size_t max)
{
    strbuf_putc(sb, '"');
    size_t n = 0;
    for (; *s && n < max; s++, n++) {
        if (*s == '\n')
            strbuf_puts(sb, "\\n");
        else if (*s == '"')
            strbuf_puts(sb, "\\\"");
        else
            strbuf_putc(sb, *s);
    }
    if (*s)
        strbuf_puts(sb, "…");
    strbuf_putc(sb, '"');
}

char *tree_outline(const struct atspi_tree *t, int first_ref)
{
    struct strbuf sb;
    strbuf_init(&sb);
    if (t->count == 0)
        strbuf_puts(&sb, "(no accessible elements)\n");
    for (int i = 0; i < t->count; i++) {
        const struct atspi_node *n = &t->nodes[i];
        strbuf_printf(&sb, "%*se%d %s", n->depth * 2, "", first_ref + i, n->role);
        if (*n->name) {
            strbuf_putc(&sb, ' ');
            put_quoted(&sb, n->name, 80);
        }
        if (n->value) {
            strbuf_puts(&sb, " value=");
            put_quoted(&sb, n->value, 80);
        }
        /* Only what differs from the ordinary: enabled and showing are the
         * norm here, so say when they are not. */
        const char *sep = " [";
        bool any = false;
#define FLAG(cond, word)                                                                           \
    if (cond) {                                                                                    \
        strbuf_printf(&sb, "%s%s", sep, word);                                                     \
        sep = ", ";                                                                                \
        any = true;                                                                                \
    }
        bool app = strcmp(n->role, "application") == 0;
        FLAG(ATSPI_HAS(n->states, ATSPI_STATE_FOCUSED), "focused");
        FLAG(!app && !ATSPI_HAS(n->states, ATSPI_STATE_ENABLED), "disabled");
        FLAG(ATSPI_HAS(n->states, ATSPI_STATE_CHECKED), "checked");
        FLAG(ATSPI_HAS(n->states, ATSPI_STATE_SELECTED), "selected");
        FLAG(ATSPI_HAS(n->states, ATSPI_STATE_EDITABLE), "editable");
        FLAG(ATSPI_HAS(n->states, ATSPI_STATE_EXPANDED), "expanded");
        FLAG(ATSPI_HAS(n->states, ATSPI_STATE_PRESSED), "pressed");
        FLAG(!app && !ATSPI_HAS(n->states, ATSPI_STATE_SHOWING), "hidden");
#undef FLAG
        if (any)
            strbuf_putc(&sb, ']');
        if (n->w > 0 && n->h > 0)
            strbuf_printf(&sb, " (%d,%d %dx%d)", n->x, n->y, n->w, n->h);
        strbuf_putc(&sb, '\n');
    }
    if (t->truncated)
        strbuf_printf(&sb, "(truncated: %s)\n", t->truncation ? t->truncation : "limit");
    return strbuf_steal(&sb);
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return n == 0;
}

bool tree_matches(const struct atspi_node *n, const char *text, bool exact, const char *role)
{
    if (role && strcasecmp(role, n->role) != 0)
        return false;
    if (!text)
        return true;
    if (exact)
        return strcmp(n->name, text) == 0 || (n->value && strcmp(n->value, text) == 0);
    return contains_nocase(n->name, text) || (n->value && contains_nocase(n->value, text));
}

bool tree_parse_ref(const char *ref, int *num)
{
    if (!ref || ref[0] != 'e' || !isdigit((unsigned char)ref[1]))
        return false;
    char *end;
    long v = strtol(ref + 1, &end, 10);
    if (*end || v <= 0 || v > 1000000000)
        return false;
    *num = (int)v;
    return true;
}
