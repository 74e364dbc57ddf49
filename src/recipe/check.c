/* A recipe document, checked strictly before it is saved or run: a file
 * someone edited by hand gets an error naming the field, not a surprise in
 * the middle of a run. docs/recipe.schema.json says the same in JSON Schema. */
#include "core/xmalloc.h"
#include "recipe/recipe.h"

#include <stdarg.h>
#include <string.h>

static bool fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(char **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    *err = xvasprintf(fmt, ap);
    va_end(ap);
    return false;
}

/* Only the keys in allowed (NULL-terminated). */
static bool known_keys(const json_t *o, const char *const *allowed, const char *where, char **err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        const char *const *a = allowed;
        while (*a && strcmp(*a, key) != 0)
            a++;
        if (!*a)
            return fail(err, "%s%s%.80s: unknown field", where, *where ? "." : "", key);
    }
    return true;
}

static bool text_field(const json_t *o, const char *key, const char *where, char **err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return true;
    if (!json_is_string(v))
        return fail(err, "%s%s%s: expected a string", where, *where ? "." : "", key);
    if (json_string_length(v) > RECIPE_MAX_TEXT)
        return fail(err, "%s%s%s: longer than %d bytes", where, *where ? "." : "", key,
                    RECIPE_MAX_TEXT);
    return true;
}

static bool check_params(const json_t *params, char **err)
{
    if (!params)
        return true;
    if (!json_is_object(params))
        return fail(err, "params: expected an object of {description, default, secret} by name");
    if (json_object_size(params) > RECIPE_MAX_PARAMS)
        return fail(err, "params: more than %d params", RECIPE_MAX_PARAMS);
    static const char *const allowed[] = {"description", "default", "secret", NULL};
    const char *name;
    json_t *p;
    json_object_foreach((json_t *)params, name, p)
    {
        if (!recipe_param_name_valid(name))
            return fail(err,
                        "params.%.80s: a param name is 1 to %d letters, digits or '_', not "
                        "starting with a digit",
                        name, RECIPE_NAME_MAX);
        char where[100];
        snprintf(where, sizeof where, "params.%s", name);
        if (!json_is_object(p))
            return fail(err, "%s: expected an object {description, default, secret}", where);
        if (!known_keys(p, allowed, where, err) || !text_field(p, "description", where, err))
            return false;
        const json_t *d = json_object_get(p, "default");
        if (d && !json_is_string(d))
            return fail(err, "%s.default: expected a string", where);
        const json_t *s = json_object_get(p, "secret");
        if (s && !json_is_boolean(s))
            return fail(err, "%s.secret: expected true or false", where);
        if (json_is_true(s) && d)
            return fail(err,
                        "%s.default: a secret param has no default (it would be stored "
                        "in the file); pass its value to recipe_run",
                        where);
    }
    return true;
}

struct undeclared {
    const json_t *params;
    char *first; /* the first undeclared name, malloc'd */
};

static void note_placeholder(const char *name, size_t len, void *ud)
{
    struct undeclared *u = ud;
    char buf[RECIPE_NAME_MAX + 1];
    memcpy(buf, name, len);
    buf[len] = '\0';
    if (!u->first && !json_object_get(u->params, buf))
        u->first = xstrdup(buf);
}

static bool check_xy(const json_t *o, const char *where, const char *key, char **err)
{
    const json_t *p = json_object_get(o, key);
    static const char *const allowed[] = {"x", "y", NULL};
    if (!p)
        return true;
    char at[80];
    snprintf(at, sizeof at, "%s.%s", where, key);
    if (!json_is_object(p) || !json_is_integer(json_object_get(p, "x")) ||
        !json_is_integer(json_object_get(p, "y")))
        return fail(err, "%s: expected {x, y} in pixels", at);
    return known_keys(p, allowed, at, err);
}

static bool check_locator(const json_t *loc, const char *step, char **err)
{
    static const char *const allowed[] = {"role", "name", "app", "window", "point", "screen", NULL};
    char where[60];
    snprintf(where, sizeof where, "%s.locator", step);
    if (!json_is_object(loc))
        return fail(err, "%s: expected {role, name, app, window, point}", where);
    if (!known_keys(loc, allowed, where, err))
        return false;
    if (!json_is_string(json_object_get(loc, "name")))
        return fail(err, "%s.name: expected the element's accessible name (a string)", where);
    static const char *const strings[] = {"role", "app", "window"};
    for (size_t k = 0; k < 3; k++)
        if (!text_field(loc, strings[k], where, err))
            return false;
    return check_xy(loc, where, "point", err) && check_xy(loc, where, "screen", err);
}

static bool check_step(const json_t *step, size_t i, const json_t *params, char **err)
{
    static const char *const allowed[] = {"tool", "arguments", "on_failure", "retries",
                                          "note", "locator",   "strict",     NULL};
    char where[40];
    snprintf(where, sizeof where, "steps[%zu]", i);
    if (!json_is_object(step))
        return fail(err, "%s: expected an object {tool, arguments, on_failure, retries, note}",
                    where);
    if (!known_keys(step, allowed, where, err) || !text_field(step, "note", where, err))
        return false;
    const char *tool = json_string_value(json_object_get(step, "tool"));
    if (!tool)
        return fail(err, "%s.tool: expected the name of a glovebox tool (a string)", where);
    if (strncmp(tool, "recipe_", 7) == 0)
        return fail(err, "%s.tool: a step cannot call %s (recipes do not run recipes)", where,
                    tool);
    const json_t *args = json_object_get(step, "arguments");
    if (args && !json_is_object(args))
        return fail(err, "%s.arguments: expected an object (the tool's arguments)", where);
    struct undeclared u = {.params = params};
    recipe_placeholders(args, note_placeholder, &u);
    if (u.first) {
        bool r = fail(err, "%s.arguments: {{%s}} is not a declared param (params.%s)", where,
                      u.first, u.first);
        free(u.first);
        return r;
    }
    const json_t *of = json_object_get(step, "on_failure");
    const char *ofs = json_string_value(of);
    if (of && (!ofs || (strcmp(ofs, "stop") && strcmp(ofs, "skip") && strcmp(ofs, "retry"))))
        return fail(err, "%s.on_failure: expected \"stop\", \"skip\" or \"retry\"", where);
    const json_t *loc = json_object_get(step, "locator");
    if (loc && !check_locator(loc, where, err))
        return false;
    const json_t *strict = json_object_get(step, "strict");
    if (strict && !json_is_boolean(strict))
        return fail(err, "%s.strict: expected true or false", where);
    const json_t *r = json_object_get(step, "retries");
    if (r && (!json_is_integer(r) || json_integer_value(r) < 0 ||
              json_integer_value(r) > RECIPE_MAX_RETRIES))
        return fail(err, "%s.retries: expected an integer from 0 to %d", where, RECIPE_MAX_RETRIES);
    return true;
}

bool recipe_check(const json_t *doc, const char *name, char **err)
{
    static const char *const allowed[] = {"$schema", "version", "name", "description",
                                          "params",  "steps",   NULL};
    if (!json_is_object(doc))
        return fail(err, "expected a JSON object {name, description, params, steps}");
    if (!known_keys(doc, allowed, "", err) || !text_field(doc, "description", "", err))
        return false;
    const json_t *v = json_object_get(doc, "version");
    if (v && (!json_is_integer(v) || json_integer_value(v) != 1))
        return fail(err, "version: expected 1");
    const json_t *n = json_object_get(doc, "name");
    if (n && !json_is_string(n))
        return fail(err, "name: expected a string");
    if (n && !recipe_name_valid(json_string_value(n), "name", err))
        return false;
    if (n && name && strcmp(json_string_value(n), name) != 0)
        return fail(err, "name: \"%s\" does not match the file's name \"%s\"", json_string_value(n),
                    name);
    const json_t *params = json_object_get(doc, "params");
    if (!check_params(params, err))
        return false;
    const json_t *steps = json_object_get(doc, "steps");
    if (!json_is_array(steps) || json_array_size(steps) == 0)
        return fail(err, "steps: expected an array of 1 to %d steps", RECIPE_MAX_STEPS);
    if (json_array_size(steps) > RECIPE_MAX_STEPS)
        return fail(err, "steps: %zu steps; at most %d", json_array_size(steps), RECIPE_MAX_STEPS);
    size_t i;
    const json_t *step;
    json_array_foreach(steps, i, step)
    {
        if (!check_step(step, i + 1, params, err))
            return false;
    }
    return true;
}
