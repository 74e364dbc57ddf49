#include "policy/patterns.h"

#include "core/xmalloc.h"
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

char **policy_patterns_parse(const json_t *v, const char *where, const char *plural,
                             const char *item, char **err)
{
    if (!json_is_array(v)) {
        *err = xasprintf("\"%s\" must be an array of %s (\"*\" matches anything)", where, plural);
        return NULL;
    }
    size_t n = json_array_size(v);
    char **list = xcalloc(n + 1, sizeof *list);
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(v, i);
        /* A NUL inside would cut the pattern short of what the person wrote. */
        if (!json_is_string(s) || json_string_length(s) == 0 ||
            strlen(json_string_value(s)) != json_string_length(s)) {
            *err = xasprintf("\"%s\"[%zu] must be a non-empty %s", where, i, item);
            policy_patterns_free(list);
            return NULL;
        }
        list[i] = xstrdup(json_string_value(s));
    }
    return list;
}

void policy_patterns_free(char **list)
{
    for (char **s = list; s && *s; s++)
        free(*s);
    free(list);
}

const char *policy_patterns_first_match(char *const *list, const char *name)
{
    for (char *const *s = list; s && *s; s++)
        if (policy_glob_match(*s, name))
            return *s;
    return NULL;
}

json_t *policy_patterns_json(char *const *list)
{
    json_t *a = json_array();
    for (char *const *s = list; s && *s; s++)
        json_array_append_new(a, json_string(*s));
    return a;
}
