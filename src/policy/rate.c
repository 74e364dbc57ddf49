#include "policy/rate.h"

#include "core/xmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct bucket {
    char *tool;        /* NULL: the global bucket */
    double per_second; /* refill rate */
    double burst;      /* capacity */
    double tokens;
    uint64_t at_ms; /* when tokens was last brought up to date */
    bool started;
};

struct rate_limits {
    struct bucket *b; /* b[0] is the global bucket when has_global */
    int n;
};

void rate_limits_destroy(struct rate_limits *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n; i++)
        free(r->b[i].tool);
    free(r->b);
    free(r);
}

static bool parse_bucket(const json_t *v, const char *where, struct bucket *b, char **err)
{
    const json_t *ps = json_object_get(v, "per_second"), *pm = json_object_get(v, "per_minute");
    const json_t *burst = json_object_get(v, "burst");
    const char *key;
    const json_t *x;
    if (!json_is_object(v)) {
        *err =
            xasprintf("\"%s\" must be an object such as {\"per_second\": 5, \"burst\": 10}", where);
        return false;
    }
    json_object_foreach((json_t *)v, key, x)
    {
        if (strcmp(key, "per_second") && strcmp(key, "per_minute") && strcmp(key, "burst") &&
            strcmp(key, "$comment")) {
            *err = xasprintf("unknown field \"%s.%.100s\" (expected per_second or per_minute, "
                             "and burst)",
                             where, key);
            return false;
        }
    }
    if (!ps == !pm) {
        *err = xasprintf("\"%s\" needs one of per_second or per_minute", where);
        return false;
    }
    const json_t *rate = ps ? ps : pm;
    if (!json_is_number(rate) || json_number_value(rate) <= 0 || json_number_value(rate) > 1e6) {
        *err = xasprintf("\"%s.%s\" must be a number above 0", where,
                         ps ? "per_second" : "per_minute");
        return false;
    }
    b->per_second = json_number_value(rate) / (ps ? 1.0 : 60.0);
    if (burst && (!json_is_integer(burst) || json_integer_value(burst) < 1 ||
                  json_integer_value(burst) > 1000000)) {
        *err = xasprintf("\"%s.burst\" must be a whole number of calls, at least 1", where);
        return false;
    }
    /* Without a burst, a second's worth (at least one call). */
    b->burst = burst ? (double)json_integer_value(burst) : fmax(1.0, ceil(b->per_second));
    b->tokens = b->burst;
    return true;
}

struct rate_limits *rate_limits_parse(const json_t *doc, char **err)
{
    if (!doc)
        return NULL;
    if (!json_is_object(doc)) {
        *err = xstrdup("\"rate_limits\" must be an object: {\"global\": {...}, \"tools\": {...}}");
        return NULL;
    }
    struct rate_limits *r = xcalloc(1, sizeof *r);
    const json_t *tools = json_object_get(doc, "tools");
    r->b = xcalloc(1 + json_object_size(tools), sizeof *r->b);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)doc, key, v)
    {
        if (strcmp(key, "global") && strcmp(key, "tools") && strcmp(key, "$comment")) {
            *err = xasprintf("unknown field \"rate_limits.%.100s\" (expected global, tools)", key);
            rate_limits_destroy(r);
            return NULL;
        }
    }
    const json_t *global = json_object_get(doc, "global");
    if (global && !parse_bucket(global, "rate_limits.global", &r->b[r->n++], err)) {
        rate_limits_destroy(r);
        return NULL;
    }
    if (tools && !json_is_object(tools)) {
        *err = xstrdup("\"rate_limits.tools\" must map tool names to limits");
        rate_limits_destroy(r);
        return NULL;
    }
    json_object_foreach((json_t *)tools, key, v)
    {
        char *where = xasprintf("rate_limits.tools.%.100s", key);
        struct bucket *b = &r->b[r->n];
        bool ok = parse_bucket(v, where, b, err);
        free(where);
        if (!ok) {
            rate_limits_destroy(r);
            return NULL;
        }
        b->tool = xstrdup(key);
        r->n++;
    }
    return r;
}

static void refill(struct bucket *b, uint64_t now_ms)
{
    if (!b->started) {
        b->started = true;
        b->at_ms = now_ms;
        return;
    }
    if (now_ms > b->at_ms)
        b->tokens = fmin(b->burst, b->tokens + (double)(now_ms - b->at_ms) * b->per_second / 1000);
    b->at_ms = now_ms;
}

static char *describe_rate(const struct bucket *b)
{
    if (b->per_second >= 1)
        return xasprintf("%g per second", b->per_second);
    return xasprintf("%g per minute", b->per_second * 60);
}

char *rate_limits_take(struct rate_limits *r, const char *tool, uint64_t now_ms,
                       uint64_t *retry_after_ms)
{
    if (!r)
        return NULL;
    /* Check every bucket first, so a refused call takes nothing. */
    for (int i = 0; i < r->n; i++) {
        struct bucket *b = &r->b[i];
        if (b->tool && strcmp(b->tool, tool) != 0)
            continue;
        refill(b, now_ms);
        if (b->tokens >= 1)
            continue;
        double wait_ms = ceil((1 - b->tokens) * 1000 / b->per_second);
        *retry_after_ms = (uint64_t)wait_ms;
        char *rate = describe_rate(b);
        char *msg = xasprintf("Rate limit for %s: %s (burst %g); retry after %.1f s (policy "
                              "rate_limits.%s%s)",
                              b->tool ? b->tool : "all tools", rate, b->burst, wait_ms / 1000,
                              b->tool ? "tools." : "global", b->tool ? b->tool : "");
        free(rate);
        return msg;
    }
    for (int i = 0; i < r->n; i++)
        if (!r->b[i].tool || strcmp(r->b[i].tool, tool) == 0)
            r->b[i].tokens -= 1;
    return NULL;
}

void rate_limits_carry_over(struct rate_limits *to, const struct rate_limits *from)
{
    if (!to || !from)
        return;
    for (int i = 0; i < to->n; i++)
        for (int k = 0; k < from->n; k++) {
            const struct bucket *o = &from->b[k];
            struct bucket *b = &to->b[i];
            bool same = (!o->tool && !b->tool) || (o->tool && b->tool && !strcmp(o->tool, b->tool));
            if (same && o->per_second == b->per_second && o->burst == b->burst) {
                b->tokens = o->tokens;
                b->at_ms = o->at_ms;
                b->started = o->started;
            }
        }
}

json_t *rate_limits_describe(const struct rate_limits *r)
{
    json_t *o = json_object();
    json_t *tools = json_object();
    for (int i = 0; r && i < r->n; i++) {
        json_t *b =
            json_pack("{s:f, s:f}", "per_second", r->b[i].per_second, "burst", r->b[i].burst);
        if (r->b[i].tool)
            json_object_set_new(tools, r->b[i].tool, b);
        else
            json_object_set_new(o, "global", b);
    }
    json_object_set_new(o, "tools", tools);
    return o;
}
