#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "recipe/recipe.h"

#include <string.h>

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Length of the NAME of a "{{NAME}}" starting at s, or 0 when s does not
 * start one. */
static size_t placeholder(const char *s, size_t n)
{
    if (n < 5 || s[0] != '{' || s[1] != '{')
        return 0;
    size_t i = 2;
    if (s[i] >= '0' && s[i] <= '9')
        return 0;
    while (i < n && i - 2 < RECIPE_NAME_MAX && name_char(s[i]))
        i++;
    if (i == 2 || i + 1 >= n || s[i] != '}' || s[i + 1] != '}')
        return 0;
    return i - 2;
}

static json_t *subst_string(const json_t *str, const json_t *values)
{
    const char *s = json_string_value(str);
    size_t n = json_string_length(str);
    struct strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < n;) {
        size_t len = placeholder(s + i, n - i);
        char name[RECIPE_NAME_MAX + 1];
        if (len) {
            memcpy(name, s + i + 2, len);
            name[len] = '\0';
        }
        const json_t *v = len ? json_object_get(values, name) : NULL;
        if (json_is_string(v)) {
            strbuf_append(&sb, json_string_value(v), json_string_length(v));
            i += len + 4;
        } else {
            strbuf_append(&sb, s + i, 1);
            i++;
        }
    }
    json_t *out = json_stringn_nocheck(sb.data ? sb.data : "", sb.len);
    strbuf_finish(&sb);
    return out;
}

json_t *recipe_subst(const json_t *v, const json_t *values)
{
    if (json_is_string(v))
        return subst_string(v, values);
    const char *key;
    size_t i;
    json_t *item;
    if (json_is_object(v)) {
        json_t *o = json_object();
        json_object_foreach((json_t *)v, key, item)
        {
            json_object_set_new(o, key, recipe_subst(item, values));
        }
        return o;
    }
    if (json_is_array(v)) {
        json_t *a = json_array();
        json_array_foreach(v, i, item)
        {
            json_array_append_new(a, recipe_subst(item, values));
        }
        return a;
    }
    return json_deep_copy(v);
}

void recipe_placeholders(const json_t *v, void (*fn)(const char *name, size_t len, void *ud),
                         void *ud)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        for (size_t i = 0; i < n; i++) {
            size_t len = placeholder(s + i, n - i);
            if (len) {
                fn(s + i + 2, len, ud);
                i += len + 3;
            }
        }
        return;
    }
    const char *key;
    size_t i;
    json_t *item;
    json_object_foreach((json_t *)v, key, item)
    {
        recipe_placeholders(item, fn, ud);
    }
    json_array_foreach(v, i, item)
    {
        recipe_placeholders(item, fn, ud);
    }
}
