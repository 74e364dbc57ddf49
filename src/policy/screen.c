/* The policy's screen decisions as a snapshot that calls carry (screen.h).
 * Built once per policy from what the policy describes, so it repeats
 * exactly what the policy says, whichever layers (user, project) say it. */
#include "policy/screen.h"

#include "core/check.h"
#include "core/xmalloc.h"
#include "policy/policy.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdlib.h>

struct policy_screen {
    atomic_int refs;
    struct policy_rect *redact;
    size_t n_redact;
    char **blocked_windows; /* NULL-terminated patterns; never NULL */
    char **blocked_apps;
};

/* The strings of a JSON array as a NULL-terminated array of copies. */
static char **strings(const json_t *a)
{
    char **out = xcalloc(json_array_size(a) + 1, sizeof *out);
    size_t i, n = 0;
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        if (json_is_string(v))
            out[n++] = xstrdup(json_string_value(v));
    }
    return out;
}

static void free_strings(char **list)
{
    for (char **s = list; s && *s; s++)
        free(*s);
    free(list);
}

static int coordinate(const json_t *r, const char *key)
{
    return (int)json_integer_value(json_object_get(r, key));
}

struct policy_screen *policy_screen_build(const struct policy *p)
{
    json_t *input = policy_blocked_input(p);
    json_t *regions = policy_redact_regions(p);
    const json_t *windows = json_object_get(input, "blocked_windows");
    const json_t *apps = json_object_get(input, "blocked_apps");
    struct policy_screen *s = NULL;
    if (json_array_size(windows) || json_array_size(apps) || json_array_size(regions)) {
        s = xcalloc(1, sizeof *s);
        atomic_init(&s->refs, 1);
        s->blocked_windows = strings(windows);
        s->blocked_apps = strings(apps);
        s->n_redact = json_array_size(regions);
        s->redact = xcalloc(s->n_redact ? s->n_redact : 1, sizeof *s->redact);
        for (size_t i = 0; i < s->n_redact; i++) {
            const json_t *r = json_array_get(regions, i);
            s->redact[i] = (struct policy_rect){coordinate(r, "x"), coordinate(r, "y"),
                                                coordinate(r, "width"), coordinate(r, "height")};
        }
    }
    json_decref(input);
    json_decref(regions);
    return s;
}

struct policy_screen *policy_screen_ref(struct policy_screen *s)
{
    if (s)
        atomic_fetch_add(&s->refs, 1);
    return s;
}

void policy_screen_unref(struct policy_screen *s)
{
    if (!s)
        return;
    int was = atomic_fetch_sub(&s->refs, 1);
    CHECK(was > 0);
    if (was != 1)
        return;
    free_strings(s->blocked_windows);
    free_strings(s->blocked_apps);
    free(s->redact);
    free(s);
}

const struct policy_rect *policy_screen_redact(const struct policy_screen *s, size_t *n)
{
    *n = s ? s->n_redact : 0;
    return s && s->n_redact ? s->redact : NULL;
}

bool policy_screen_blocks_input(const struct policy_screen *s)
{
    return s && (s->blocked_windows[0] || s->blocked_apps[0]);
}

/* The first pattern of list matching value; an unknown (empty) value
 * matches none, not even "*". */
static const char *matching(char *const *list, const char *value)
{
    if (!value || !*value)
        return NULL;
    for (char *const *p = list; *p; p++)
        if (policy_glob_match(*p, value))
            return *p;
    return NULL;
}

bool policy_screen_input_allowed(const struct policy_screen *s, const char *title, const char *app,
                                 char **why)
{
    if (!s)
        return true;
    const char *hit = matching(s->blocked_windows, title);
    if (hit) {
        *why = xasprintf("Denied by policy: input to the window \"%.200s\" is blocked (it "
                         "matches \"%s\" in rules.input.blocked_windows)",
                         title, hit);
        return false;
    }
    hit = matching(s->blocked_apps, app);
    if (hit) {
        *why = xasprintf("Denied by policy: input to %.200s is blocked (it matches \"%s\" in "
                         "rules.input.blocked_apps)",
                         app, hit);
        return false;
    }
    return true;
}
