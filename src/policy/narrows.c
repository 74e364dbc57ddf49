/* Whether a new policy is provably no wider than the one in force. Reloads
 * that widen wait for a person (glovebox policy apply), so anything this
 * cannot prove narrower counts as widening: it compares what the policies
 * say item by item, never what patterns might match. */
#include "core/xmalloc.h"
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

static bool contains(const json_t *list, const json_t *item)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) if (json_equal(v, item)) return true;
    return false;
}

/* The first item of a not in b (or in c), or NULL. */
static const json_t *first_missing(const json_t *a, const json_t *b, const json_t *c)
{
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) if (!contains(b, v) && !contains(c, v)) return v;
    return NULL;
}

static char *item_text(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* "\"allow\" gains \"*\"" */
static char *say(const char *field, const char *change, const json_t *v)
{
    char *s = item_text(v);
    char *out = xasprintf("\"%s\" %s %s", field, change, s);
    free(s);
    return out;
}

/* Rule lists where a missing list allows everything (commands, hosts) or
 * nothing (displays, env, paths); blocked lists only ever narrow by growing. */
static char *rules_widening(const json_t *to, const json_t *from)
{
    json_t *tools = json_object();
    const char *tool;
    json_t *v;
    json_object_foreach((json_t *)to, tool, v) json_object_set(tools, tool, json_true());
    json_object_foreach((json_t *)from, tool, v) json_object_set(tools, tool, json_true());
    char *why = NULL;
    json_object_foreach(tools, tool, v)
    {
        static const char *const keys[] = {"commands",        "hosts",       "displays", "env",
                                           "paths", /* missing: nothing allowed */
                                           "blocked_windows", "blocked_apps"};
        const json_t *t = json_object_get(to, tool), *f = json_object_get(from, tool);
        for (size_t k = 0; !why && k < sizeof keys / sizeof keys[0]; k++) {
            const json_t *tl = json_object_get(t, keys[k]), *fl = json_object_get(f, keys[k]);
            json_t *empty = json_array();
            const json_t *miss = NULL;
            if (k < 2 && fl && !tl)
                why = xasprintf("rules.%s.%s is gone (no limit)", tool, keys[k]);
            else if (k < 5 && (miss = first_missing(tl ? tl : empty, fl ? fl : empty,
                                                    k < 2 && !fl ? tl : NULL))) {
                char *s = item_text(miss);
                why = xasprintf("rules.%s.%s gains %s", tool, keys[k], s);
                free(s);
            } else if (k >= 5 && (miss = first_missing(fl ? fl : empty, tl ? tl : empty, NULL))) {
                char *s = item_text(miss);
                why = xasprintf("rules.%s.%s loses %s", tool, keys[k], s);
                free(s);
            }
            json_decref(empty);
        }
        if (why)
            break;
    }
    json_decref(tools);
    return why;
}

char *policy_widening(const struct policy *to, const struct policy *from)
{
    if (!from)
        return NULL;
    if (!to)
        return xstrdup("the policy is gone");
    json_t *t = policy_describe_own(to), *f = policy_describe_own(from);
    char *why = NULL;
    const json_t *miss;
    enum policy_mode tm = POLICY_AUTOPILOT, fm = POLICY_AUTOPILOT;
    policy_mode_parse(json_string_value(json_object_get(t, "mode")), &tm);
    policy_mode_parse(json_string_value(json_object_get(f, "mode")), &fm);
    if (json_is_true(json_object_get(t, "allow_all")) &&
        !json_is_true(json_object_get(f, "allow_all")))
        why = xstrdup("every tool becomes allowed");
    else if (tm > fm)
        why = xasprintf("the mode rises from %s to %s", policy_mode_name(fm), policy_mode_name(tm));
    else if ((miss = first_missing(json_object_get(t, "allow"), json_object_get(f, "allow"), NULL)))
        why = say("allow", "gains", miss);
    else if ((miss = first_missing(json_object_get(t, "confirm"), json_object_get(f, "confirm"),
                                   json_object_get(f, "allow"))))
        why = say("confirm", "gains", miss);
    else if ((miss = first_missing(json_object_get(f, "confirm"), json_object_get(t, "confirm"),
                                   NULL)))
        why = say("confirm", "loses", miss);
    else if ((miss = first_missing(json_object_get(f, "deny"), json_object_get(t, "deny"), NULL)))
        why = say("deny", "loses", miss);
    else if ((miss =
                  first_missing(json_object_get(f, "redact"), json_object_get(t, "redact"), NULL)))
        why = say("redact", "loses", miss);
    else if (json_object_size(json_object_get(json_object_get(f, "rate_limits"), "tools")) +
                 (json_object_get(json_object_get(f, "rate_limits"), "global") ? 1 : 0) &&
             !json_equal(json_object_get(t, "rate_limits"), json_object_get(f, "rate_limits")))
        why = xstrdup("\"rate_limits\" change");
    else
        why = rules_widening(json_object_get(t, "rules"), json_object_get(f, "rules"));
    json_decref(t);
    json_decref(f);
    return why;
}
