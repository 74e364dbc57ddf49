#include "mcp/schema.h"

#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "mcp/jsonrpc.h"

#include <math.h>
#include <regex.h>
#include <string.h>

struct ctx {
    struct strbuf path; /* "arguments.env.PATH", "arguments.command[2]" */
    char *err;
};

static bool validate(struct ctx *c, const json_t *schema, const json_t *value);

/* Compiled "pattern"s, by their text: compiling one took most of a call's
 * validation (a session ref or a recipe name is checked on every call).
 * The tools' schemas hold a few dozen; past the cap a pattern is compiled
 * for the check and freed. Only the loop thread validates. */
enum { PATTERN_CACHE_MAX = 128 };
static struct compiled_pattern {
    char *text;
    regex_t re;
    bool ok;
} patterns[PATTERN_CACHE_MAX];
static size_t pattern_count;

/* 1 matches, 0 does not, -1 the pattern does not compile (ignored). */
static int pattern_match(const char *pattern, const char *text)
{
    for (size_t i = 0; i < pattern_count; i++)
        if (strcmp(patterns[i].text, pattern) == 0)
            return patterns[i].ok ? regexec(&patterns[i].re, text, 0, NULL, 0) == 0 : -1;
    regex_t re;
    bool ok = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0;
    int r = ok ? regexec(&re, text, 0, NULL, 0) == 0 : -1;
    if (pattern_count < PATTERN_CACHE_MAX) {
        patterns[pattern_count++] = (struct compiled_pattern){xstrdup(pattern), re, ok};
    } else if (ok) {
        regfree(&re);
    }
    return r;
}

static bool type_matches(const char *type, const json_t *v)
{
    if (strcmp(type, "string") == 0)
        return json_is_string(v);
    if (strcmp(type, "integer") == 0)
        return json_is_integer(v) ||
               (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
                isfinite(json_real_value(v)));
    if (strcmp(type, "number") == 0)
        return json_is_number(v);
    if (strcmp(type, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(type, "object") == 0)
        return json_is_object(v);
    if (strcmp(type, "array") == 0)
        return json_is_array(v);
    if (strcmp(type, "null") == 0)
        return json_is_null(v);
    return false;
}

static void describe_into(struct strbuf *sb, const json_t *schema);

static void describe_type(struct strbuf *sb, const char *type, const json_t *schema)
{
    if (strcmp(type, "array") == 0) {
        const json_t *items = json_object_get(schema, "items");
        if (json_is_object(items) && json_object_get(items, "type")) {
            strbuf_puts(sb, "array of ");
            const json_t *it = json_object_get(items, "type");
            if (json_is_string(it) && strcmp(json_string_value(it), "object") != 0) {
                strbuf_puts(sb, json_string_value(it));
                strbuf_putc(sb, 's');
            } else {
                strbuf_puts(sb, "objects");
            }
            return;
        }
    }
    if (strcmp(type, "object") == 0) {
        const json_t *ap = json_object_get(schema, "additionalProperties");
        if (json_is_object(ap) && json_is_string(json_object_get(ap, "type"))) {
            strbuf_printf(sb, "object of %s values",
                          json_string_value(json_object_get(ap, "type")));
            return;
        }
    }
    strbuf_puts(sb, type);
}

static void describe_into(struct strbuf *sb, const json_t *schema)
{
    const json_t *en = json_object_get(schema, "enum");
    if (json_is_array(en)) {
        strbuf_puts(sb, "one of ");
        size_t i;
        const json_t *v;
        json_array_foreach(en, i, v)
        {
            char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            strbuf_printf(sb, "%s%s", i ? ", " : "", d ? d : "?");
            free(d);
        }
        return;
    }
    const json_t *type = json_object_get(schema, "type");
    if (json_is_string(type)) {
        describe_type(sb, json_string_value(type), schema);
        return;
    }
    if (json_is_array(type)) {
        size_t i;
        const json_t *t;
        json_array_foreach(type, i, t)
        {
            if (i)
                strbuf_puts(sb, " or ");
            describe_type(sb, json_string_value(t) ? json_string_value(t) : "?", schema);
        }
        return;
    }
    const json_t *any = json_object_get(schema, "anyOf");
    if (!any)
        any = json_object_get(schema, "oneOf");
    if (json_is_array(any)) {
        size_t i;
        const json_t *alt;
        json_array_foreach(any, i, alt)
        {
            if (i)
                strbuf_puts(sb, " or ");
            describe_into(sb, alt);
        }
        return;
    }
    strbuf_puts(sb, "any value");
}

char *schema_describe(const json_t *schema)
{
    struct strbuf sb;
    strbuf_init(&sb);
    describe_into(&sb, schema);
    return strbuf_steal(&sb);
}

static const char *path_of(struct ctx *c)
{
    return c->path.len ? c->path.data : "arguments";
}

static bool fail(struct ctx *c, const json_t *schema, const json_t *value, const char *what)
{
    if (c->err)
        return false;
    char *expected = schema_describe(schema);
    char *got = jsonrpc_describe_value(value);
    if (what)
        c->err = xasprintf("argument \"%s\": %s, got %s", path_of(c), what, got);
    else
        c->err = xasprintf("argument \"%s\": expected %s, got %s", path_of(c), expected, got);
    free(expected);
    free(got);
    return false;
}

/* The keywords of a schema node that validation reads, found in one walk
 * of its keys: looking each up by name cost 18 hash lookups per node and
 * value (a fifth of a simple call's work before its tool ran). Absent: NULL. */
struct keywords {
    const json_t *type, *en, *cst, *minimum, *maximum, *xmin, *xmax, *min_length, *max_length,
        *pattern, *min_items, *max_items, *items, *props, *required, *additional, *any, *one;
};

static void gather(const json_t *schema, struct keywords *kw)
{
    memset(kw, 0, sizeof *kw);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)schema, key, v)
    {
#define KEYWORD(name, field)                                                                       \
    if (strcmp(key, name) == 0) {                                                                  \
        kw->field = v;                                                                             \
        continue;                                                                                  \
    }
        /* By the first letter: a description, a title, a default is
         * passed over at once. */
        switch (key[0]) {
        case 't':
            KEYWORD("type", type);
            break;
        case 'e':
            KEYWORD("enum", en);
            KEYWORD("exclusiveMinimum", xmin);
            KEYWORD("exclusiveMaximum", xmax);
            break;
        case 'c':
            KEYWORD("const", cst);
            break;
        case 'm':
            KEYWORD("minimum", minimum);
            KEYWORD("maximum", maximum);
            KEYWORD("minLength", min_length);
            KEYWORD("maxLength", max_length);
            KEYWORD("minItems", min_items);
            KEYWORD("maxItems", max_items);
            break;
        case 'p':
            KEYWORD("pattern", pattern);
            KEYWORD("properties", props);
            break;
        case 'i':
            KEYWORD("items", items);
            break;
        case 'r':
            KEYWORD("required", required);
            break;
        case 'a':
            KEYWORD("additionalProperties", additional);
            KEYWORD("anyOf", any);
            break;
        case 'o':
            KEYWORD("oneOf", one);
            break;
        }
#undef KEYWORD
    }
}

static bool check_type(struct ctx *c, const json_t *schema, const struct keywords *kw,
                       const json_t *value)
{
    const json_t *type = kw->type;
    if (!type)
        return true;
    if (json_is_string(type))
        return type_matches(json_string_value(type), value) || fail(c, schema, value, NULL);
    size_t i;
    const json_t *t;
    json_array_foreach(type, i, t)
    {
        if (json_is_string(t) && type_matches(json_string_value(t), value))
            return true;
    }
    return fail(c, schema, value, NULL);
}

static bool check_enum(struct ctx *c, const json_t *schema, const struct keywords *kw,
                       const json_t *value)
{
    const json_t *en = kw->en;
    if (json_is_array(en)) {
        size_t i;
        const json_t *v;
        bool found = false;
        json_array_foreach(en, i, v) found = found || json_equal(v, value);
        if (!found)
            return fail(c, schema, value, NULL);
    }
    const json_t *cst = kw->cst;
    if (cst && !json_equal(cst, value)) {
        char *want = json_dumps(cst, JSON_ENCODE_ANY | JSON_COMPACT);
        char *what = xasprintf("must be %s", want ? want : "?");
        free(want);
        bool r = fail(c, schema, value, what);
        free(what);
        return r;
    }
    return true;
}

static bool check_number(struct ctx *c, const json_t *schema, const struct keywords *kw,
                         const json_t *value)
{
    if (!json_is_number(value))
        return true;
    double v = json_number_value(value);
    const json_t *k;
    char what[96];
    if ((k = kw->minimum) && v < json_number_value(k)) {
        snprintf(what, sizeof what, "must be at least %g", json_number_value(k));
        return fail(c, schema, value, what);
    }
    if ((k = kw->maximum) && v > json_number_value(k)) {
        snprintf(what, sizeof what, "must be at most %g", json_number_value(k));
        return fail(c, schema, value, what);
    }
    if ((k = kw->xmin) && v <= json_number_value(k)) {
        snprintf(what, sizeof what, "must be greater than %g", json_number_value(k));
        return fail(c, schema, value, what);
    }
    if ((k = kw->xmax) && v >= json_number_value(k)) {
        snprintf(what, sizeof what, "must be less than %g", json_number_value(k));
        return fail(c, schema, value, what);
    }
    return true;
}

static bool check_string(struct ctx *c, const json_t *schema, const struct keywords *kw,
                         const json_t *value)
{
    if (!json_is_string(value))
        return true;
    /* Handlers read arguments as C strings: an embedded NUL would silently
     * cut them short, so it is refused here. */
    if (strlen(json_string_value(value)) != json_string_length(value))
        return fail(c, schema, value, "must not contain NUL characters (\\u0000)");
    size_t len = utf8_length(json_string_value(value), json_string_length(value));
    const json_t *k;
    char what[96];
    if ((k = kw->min_length) && len < (size_t)json_integer_value(k)) {
        snprintf(what, sizeof what, "must be at least %lld characters long",
                 (long long)json_integer_value(k));
        return fail(c, schema, value, what);
    }
    if ((k = kw->max_length) && len > (size_t)json_integer_value(k)) {
        snprintf(what, sizeof what, "must be at most %lld characters long",
                 (long long)json_integer_value(k));
        return fail(c, schema, value, what);
    }
    if ((k = kw->pattern) && json_is_string(k) &&
        pattern_match(json_string_value(k), json_string_value(value)) == 0) {
        char *what2 = xasprintf("must match the pattern %s", json_string_value(k));
        bool r = fail(c, schema, value, what2);
        free(what2);
        return r;
    }
    return true;
}

static bool check_array(struct ctx *c, const json_t *schema, const struct keywords *kw,
                        const json_t *value)
{
    if (!json_is_array(value))
        return true;
    size_t n = json_array_size(value);
    const json_t *k;
    char what[96];
    if ((k = kw->min_items) && n < (size_t)json_integer_value(k)) {
        snprintf(what, sizeof what, "must have at least %lld items",
                 (long long)json_integer_value(k));
        return fail(c, schema, value, what);
    }
    if ((k = kw->max_items) && n > (size_t)json_integer_value(k)) {
        snprintf(what, sizeof what, "must have at most %lld items",
                 (long long)json_integer_value(k));
        return fail(c, schema, value, what);
    }
    const json_t *items = kw->items;
    if (!json_is_object(items))
        return true;
    size_t base = c->path.len;
    for (size_t i = 0; i < n; i++) {
        strbuf_printf(&c->path, "[%zu]", i);
        bool ok = validate(c, items, json_array_get(value, i));
        c->path.len = base;
        c->path.data[base] = '\0';
        if (!ok)
            return false;
    }
    return true;
}

static void list_properties(struct strbuf *sb, const json_t *props)
{
    const char *key;
    const json_t *v;
    bool first = true;
    json_object_foreach((json_t *)props, key, v)
    {
        strbuf_printf(sb, "%s%s", first ? "" : ", ", key);
        first = false;
    }
    if (first)
        strbuf_puts(sb, "none");
}

static void push_key(struct ctx *c, const char *key)
{
    if (c->path.len == 0)
        strbuf_puts(&c->path, key);
    else
        strbuf_printf(&c->path, ".%s", key);
}

static bool check_object(struct ctx *c, const json_t *schema, const struct keywords *kw,
                         const json_t *value)
{
    if (!json_is_object(value))
        return true;
    const json_t *props = kw->props;
    const json_t *required = kw->required;
    const json_t *additional = kw->additional;
    size_t base = c->path.len;
    size_t i;
    const json_t *r;
    json_array_foreach(required, i, r)
    {
        const char *key = json_string_value(r);
        if (!key || json_object_get(value, key))
            continue;
        push_key(c, key);
        const json_t *ps = json_object_get(props, key);
        char *expected = ps ? schema_describe(ps) : xstrdup("a value");
        c->err = xasprintf("missing required argument \"%s\": expected %s", c->path.data, expected);
        free(expected);
        return false;
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)value, key, v)
    {
        const json_t *ps = json_object_get(props, key);
        push_key(c, key);
        bool ok = true;
        if (ps) {
            ok = validate(c, ps, v);
        } else if (json_is_false(additional)) {
            struct strbuf valid;
            strbuf_init(&valid);
            list_properties(&valid, props);
            char *shown = xstrndup(c->path.data, utf8_truncate(c->path.data, c->path.len, 64));
            c->err = xasprintf("unknown argument \"%s\"; valid arguments%s%s: %s", shown,
                               base ? " of " : "", base ? "this object" : "", valid.data);
            free(shown);
            strbuf_finish(&valid);
            ok = false;
        } else if (json_is_object(additional)) {
            ok = validate(c, additional, v);
        }
        c->path.len = base;
        if (c->path.data)
            c->path.data[base] = '\0';
        if (!ok)
            return false;
    }
    return true;
}

static bool check_alternatives(struct ctx *c, const json_t *schema, const struct keywords *kw,
                               const json_t *value)
{
    const json_t *any = kw->any;
    const json_t *one = kw->one;
    const json_t *alts = any ? any : one;
    if (!json_is_array(alts))
        return true;
    size_t matches = 0, i;
    const json_t *alt;
    json_array_foreach(alts, i, alt)
    {
        struct ctx sub = {.err = NULL};
        strbuf_init(&sub.path);
        strbuf_puts(&sub.path, path_of(c));
        if (validate(&sub, alt, value))
            matches++;
        free(sub.err);
        strbuf_finish(&sub.path);
    }
    if (matches == 0 || (one && matches > 1))
        return fail(c, schema, value, matches ? "matches more than one allowed form" : NULL);
    return true;
}

static bool validate(struct ctx *c, const json_t *schema, const json_t *value)
{
    if (json_is_true(schema) || !json_is_object(schema))
        return true;
    struct keywords kw;
    gather(schema, &kw);
    return check_type(c, schema, &kw, value) && check_enum(c, schema, &kw, value) &&
           check_number(c, schema, &kw, value) && check_string(c, schema, &kw, value) &&
           check_array(c, schema, &kw, value) && check_object(c, schema, &kw, value) &&
           check_alternatives(c, schema, &kw, value);
}

bool schema_validate(const json_t *schema, const json_t *value, char **err)
{
    struct ctx c = {.err = NULL};
    strbuf_init(&c.path);
    bool ok = validate(&c, schema, value);
    strbuf_finish(&c.path);
    if (!ok)
        *err = c.err ? c.err : xstrdup("arguments do not match the tool's input schema");
    else
        free(c.err);
    return ok;
}
