#include "backend/webdriver/outline.h"

#include "core/args.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <string.h>
#include <strings.h>

static bool listed(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

void wd_outline_line(struct strbuf *sb, const json_t *e, const struct wd_element_view *v)
{
    int depth = (int)json_integer_value(json_object_get(e, "depth"));
    strbuf_printf(sb, "%*s%s %s \"%s\"", depth > 20 ? 40 : 2 * depth, "",
                  json_string_value(json_object_get(e, "ref")),
                  json_string_value(json_object_get(e, "role")),
                  json_string_value(json_object_get(e, "name")));
    const char *value = json_string_value(json_object_get(e, "value"));
    if (v->show_value && value && *value)
        strbuf_printf(sb, " = \"%s\"", value);
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(e, "states"), i, s)
    {
        const char *st = json_string_value(s);
        if (!listed(v->quiet_states, st))
            strbuf_printf(sb, " [%s]", st);
    }
    strbuf_putc(sb, '\n');
}

bool wd_element_matches(const json_t *e, const struct wd_element_view *v, const char *text,
                        const char *role, bool exact)
{
    if (role && strcasecmp(json_string_value(json_object_get(e, "role")), role) != 0)
        return false;
    if (!text)
        return true;
    for (const char *const *f = v->text_fields; *f; f++) {
        const char *s = json_string_value(json_object_get(e, *f));
        if (s && (exact ? strcmp(s, text) == 0 : strcasestr(s, text) != NULL))
            return true;
    }
    return false;
}

void wd_snapshot_answer(struct backend_call *bc, json_t *els, size_t total,
                        const struct wd_element_view *v)
{
    struct strbuf sb;
    strbuf_init(&sb);
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e) wd_outline_line(&sb, e, v);
    size_t n = json_array_size(els);
    json_t *out = json_pack("{s:s, s:s, s:o, s:I, s:s, s:b}", "session", bc->session->id, "kind",
                            "webdriver", "elements", els, "count", (json_int_t)n, "outline",
                            sb.data ? sb.data : "", "truncated", total > n);
    if (total > n) {
        const char *scope = args_string(bc->args, "scope", NULL);
        char *note =
            xasprintf("%zu of %zu elements%s%s (max_elements)%s", n, total, scope ? " under " : "",
                      scope ? scope : "", v->advice ? v->advice : "");
        json_object_set_new(out, "truncation", json_string(note));
        free(note);
    }
    backend_call_done(bc, out, "%zu elements%s\n%s", n, total > n ? " (truncated)" : "",
                      sb.data ? sb.data : "");
    strbuf_finish(&sb);
}

void wd_find_answer(struct backend_call *bc, json_t *els, const struct wd_element_view *v)
{
    const char *text = args_string(bc->args, "text", NULL);
    const char *role = args_string(bc->args, "role", NULL);
    bool exact = args_bool(bc->args, "exact", false);
    size_t limit = (size_t)args_int(bc->args, "limit", 20);
    json_t *found = json_array();
    struct strbuf sb;
    strbuf_init(&sb);
    size_t i;
    json_t *e;
    json_array_foreach(els, i, e)
    {
        if (json_array_size(found) >= limit)
            break;
        if (!wd_element_matches(e, v, text, role, exact))
            continue;
        json_object_set_new(e, "source", json_string("accessibility"));
        json_array_append(found, e);
        wd_outline_line(&sb, e, v);
    }
    json_decref(els);
    size_t n = json_array_size(found);
    json_t *out = json_pack("{s:s, s:s, s:I, s:o}", "session", bc->session->id, "source",
                            "accessibility", "count", (json_int_t)n, "matches", found);
    backend_call_done(bc, out, "%zu match%s\n%s", n, n == 1 ? "" : "es", sb.data ? sb.data : "");
    strbuf_finish(&sb);
}
