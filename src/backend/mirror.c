#include "backend/mirror.h"

#include "core/strbuf.h"

#include <stdbool.h>
#include <string.h>

/* Texts longer than this are cut with "…": the mirror is a summary. */
#define MAX_VALUE 200

static bool in(const char *key, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(*list, key) == 0)
            return true;
    return false;
}

static bool plain_word(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("_-.:/@+", *s)))
            return false;
    return true;
}

static void put_string(struct strbuf *sb, const char *s, bool bare_ok)
{
    if (bare_ok && plain_word(s) && strlen(s) <= MAX_VALUE) {
        strbuf_puts(sb, s);
        return;
    }
    strbuf_putc(sb, '"');
    size_t n = 0;
    for (; *s && n < MAX_VALUE; s++, n++) {
        if (*s == '\n')
            strbuf_puts(sb, "\\n");
        else if (*s == '"' || *s == '\\')
            strbuf_printf(sb, "\\%c", *s);
        else
            strbuf_putc(sb, *s);
    }
    /* Do not end inside a UTF-8 sequence. */
    while (*s && ((unsigned char)*s & 0xC0) == 0x80)
        strbuf_putc(sb, *s++);
    if (*s)
        strbuf_puts(sb, "…");
    strbuf_putc(sb, '"');
}

/* Integers exactly (pids have seven digits), others as %g. */
static void put_number(struct strbuf *sb, const json_t *v)
{
    if (json_is_integer(v))
        strbuf_printf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else
        strbuf_printf(sb, "%g", json_number_value(v));
}

static bool put_bounds(struct strbuf *sb, const json_t *b)
{
    const json_t *x = json_object_get(b, "x"), *y = json_object_get(b, "y"),
                 *w = json_object_get(b, "width"), *h = json_object_get(b, "height");
    if (!json_is_number(x) || !json_is_number(y) || !json_is_number(w) || !json_is_number(h))
        return false;
    strbuf_putc(sb, '(');
    put_number(sb, x);
    strbuf_putc(sb, ',');
    put_number(sb, y);
    strbuf_putc(sb, ' ');
    put_number(sb, w);
    strbuf_putc(sb, 'x');
    put_number(sb, h);
    strbuf_putc(sb, ')');
    return true;
}

static void put_value(struct strbuf *sb, const char *key, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        strbuf_printf(sb, " %s=", key);
        put_string(sb, json_string_value(v), true);
        break;
    case JSON_INTEGER:
    case JSON_REAL:
        strbuf_printf(sb, " %s=", key);
        put_number(sb, v);
        break;
    case JSON_TRUE:
        strbuf_printf(sb, " %s", key);
        break;
    case JSON_OBJECT: {
        struct strbuf b;
        strbuf_init(&b);
        if (put_bounds(&b, v))
            strbuf_printf(sb, " %s", b.data);
        strbuf_finish(&b);
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        const json_t *e;
        bool any = false;
        json_array_foreach(v, i, e)
        {
            if (!json_is_string(e) && !json_is_number(e))
                continue;
            if (any)
                strbuf_puts(sb, ", ");
            else
                strbuf_printf(sb, " %s=[", key);
            any = true;
            if (json_is_string(e))
                put_string(sb, json_string_value(e), true);
            else
                put_number(sb, e);
        }
        if (any)
            strbuf_putc(sb, ']');
        break;
    }
    default: /* false, null: nothing to say */
        break;
    }
}

static void put_rest(struct strbuf *sb, const json_t *item, const char *const *lead,
                     const char *const *skip)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)item, key, v)
    {
        if (in(key, lead) || in(key, skip))
            continue;
        put_value(sb, key, v);
    }
}

/* first: nothing of this item written yet (no space before the first). */
static void put_lead(struct strbuf *sb, const json_t *item, const char *const *lead, bool first)
{
    for (const char *const *k = lead; k && *k; k++) {
        const json_t *v = json_object_get(item, *k);
        if (!json_is_string(v) && !json_is_number(v))
            continue;
        if (!first)
            strbuf_putc(sb, ' ');
        first = false;
        if (json_is_string(v))
            put_string(sb, json_string_value(v), strcmp(*k, "name") && strcmp(*k, "title"));
        else
            put_number(sb, v);
    }
}

void mirror_item(struct strbuf *sb, const json_t *item, const char *const *lead,
                 const char *const *skip)
{
    put_lead(sb, item, lead, true);
    put_rest(sb, item, lead, skip);
}

void mirror_element(struct strbuf *sb, const json_t *e)
{
    /* ref role "name": roles have spaces ("push button") and read bare.
     * Words read by OCR have neither ref nor role, and their "text" is
     * what they say: text "Hello". */
    const char *ref = json_string_value(json_object_get(e, "ref"));
    const char *role = json_string_value(json_object_get(e, "role"));
    const char *name_key = json_object_get(e, "name") || role ? "name" : "text";
    const char *name = json_string_value(json_object_get(e, name_key));
    if (ref)
        strbuf_printf(sb, "%s ", ref);
    strbuf_printf(sb, "%s ", role ? role : "text");
    put_string(sb, name ? name : "", false);
    const char *const lead[] = {"ref", "role", name_key, NULL};
    static const char *const skip[] = {"states", "bounds", "depth", "parent", "source", NULL};
    put_rest(sb, e, lead, skip);
    /* Only states that are not the norm: an element is enabled, showing and
     * so on unless it says otherwise. */
    static const char *const usual[] = {"enabled",   "sensitive", "showing",    "visible",
                                        "focusable", "clickable", "selectable", NULL};
    const json_t *states = json_object_get(e, "states");
    size_t i;
    const json_t *s;
    bool any = false;
    json_array_foreach(states, i, s)
    {
        if (!json_is_string(s) || in(json_string_value(s), usual))
            continue;
        strbuf_printf(sb, "%s%s", any ? ", " : " [", json_string_value(s));
        any = true;
    }
    if (any)
        strbuf_putc(sb, ']');
    const json_t *b = json_object_get(e, "bounds");
    if (b) {
        strbuf_putc(sb, ' ');
        put_bounds(sb, b);
    }
}
