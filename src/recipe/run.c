/* The step machine of recipe_run. One step is in flight at a time; its
 * answer (which may come before tool_call_spawn returns) decides the next:
 * the following step, the same one again (on_failure: retry), or the end. */
#include "recipe/run.h"

#include "core/app.h"
#include "core/scrub.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/schema.h"
#include "mcp/tool.h"
#include "recipe/history.h"
#include "recipe/locate.h"
#include "recipe/recipe.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <uv.h>

/* Step text kept in a run's answer. */
#define TEXT_MAX 2000

struct run {
    struct tool_call *call;
    json_t *doc, *values, *secrets; /* owned */
    const char *name;               /* in doc */
    char id[48];
    size_t first, step, last; /* 1-based: the first to run, the one in flight, the last */
    int attempt;              /* of the step in flight, from 1 */
    json_t *out;              /* the steps' reports; owned */
    struct tool_call *child;  /* the step in flight, or NULL */
    bool waiting;             /* a step's answer is due */
    bool in_spawn;            /* inside tool_call_spawn: its answer must not recurse */
    bool cancelled, failed;
    bool strict;     /* recipe_run's strict: every locator strictly */
    json_t *located; /* the step's arguments with its locator found; owned, or NULL */
    const char *by;  /* how it was found (static), or NULL */
    bool healed;
    uint64_t step_start_ms, run_start_ms;
    uint64_t run_start_ns; /* uv_hrtime: the run's duration in µs ("us") */
    int64_t started_at_ms; /* Unix time, for the history */
};

static int64_t unix_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static const json_t *step_at(const struct run *r, size_t n)
{
    return json_array_get(json_object_get(r->doc, "steps"), n - 1);
}

static const char *on_failure(const json_t *step)
{
    const char *s = json_string_value(json_object_get(step, "on_failure"));
    return s ? s : "stop";
}

static int retries(const json_t *step)
{
    const json_t *v = json_object_get(step, "retries");
    return v ? (int)json_integer_value(v) : strcmp(on_failure(step), "retry") == 0 ? 2 : 0;
}

/* The text blocks of a result, joined and cut to TEXT_MAX. */
static json_t *result_text(const json_t *result, const json_t *secrets)
{
    size_t i;
    const json_t *b;
    /* The usual answer, one short text block and no secrets to cut: that
     * string as it is (a tool's text is valid UTF-8 already), not a copy. */
    const json_t *content = json_object_get(result, "content");
    const json_t *only = json_object_get(json_array_get(content, 0), "text");
    if (json_array_size(content) == 1 && json_is_string(only) && !json_array_size(secrets) &&
        json_string_length(only) <= TEXT_MAX &&
        strlen(json_string_value(only)) == json_string_length(only))
        return json_incref((json_t *)only);
    json_t *parts = json_array();
    json_array_foreach(json_object_get(result, "content"), i, b)
    {
        if (json_is_string(json_object_get(b, "text")))
            json_array_append(parts, json_object_get(b, "text"));
    }
    size_t total = 0;
    json_array_foreach(parts, i, b)
    {
        total += json_string_length(b) + 1;
    }
    char *buf = xmalloc(total + 1), *p = buf;
    json_array_foreach(parts, i, b)
    {
        if (i)
            *p++ = '\n';
        memcpy(p, json_string_value(b), json_string_length(b));
        p += json_string_length(b);
    }
    *p = '\0';
    json_decref(parts);
    char *clean = scrub_text(buf, secrets);
    free(buf);
    size_t len = strlen(clean);
    json_t *out = utf8_json_string(clean, utf8_truncate(clean, len, TEXT_MAX));
    free(clean);
    return out;
}

static json_t *report(const struct run *r, size_t n, const char *status)
{
    const json_t *step = step_at(r, n);
    return json_pack("{s:I, s:O, s:s}", "step", (json_int_t)n, "tool",
                     json_object_get(step, "tool"), "status", status);
}

static void finish(struct run *r)
{
    const char *status = r->cancelled ? "cancelled" : r->failed ? "failed" : "ok";
    json_t *sc = json_pack("{s:s, s:s, s:s, s:O, s:I, s:I}", "run", r->id, "recipe", r->name,
                           "status", status, "steps", r->out, "ms",
                           (json_int_t)(tool_call_age_ms(r->call) - r->run_start_ms), "us",
                           (json_int_t)((uv_hrtime() - r->run_start_ns) / 1000));
    struct app *app = tool_call_app(r->call);
    int64_t ended_ms = unix_ms();
    const json_t *bad = NULL;
    size_t i;
    const json_t *s;
    json_array_foreach(r->out, i, s)
    {
        if (!bad && strcmp(json_string_value(json_object_get(s, "status")), "failed") == 0)
            bad = s;
    }
    struct tool_call *call = r->call;
    if (bad)
        tool_call_done(
            call, sc, "recipe %s %s (run %s): step %lld (%s) failed: %s", r->name, status, r->id,
            (long long)json_integer_value(json_object_get(bad, "step")),
            json_string_value(json_object_get(bad, "tool")),
            json_string_value(json_object_get(json_object_get(bad, "error"), "message")));
    else
        tool_call_done(call, sc, "recipe %s %s (run %s): steps %zu to %zu", r->name, status, r->id,
                       r->first, r->last);
    /* The history row is a record, not the work: serialising it (as large
     * as the answer) waits until the answer is on its way. */
    recipe_history_add(app, r->id, r->name, status, r->started_at_ms, ended_ms, r->values,
                       r->secrets, r->out);
    json_decref(r->doc);
    json_decref(r->values);
    json_decref(r->secrets);
    json_decref(r->out);
    json_decref(r->located);
    free(r);
}

static void advance(struct run *r);

/* A step's answer: record it and choose what comes next. */
static void settle(struct run *r, const json_t *result, const json_t *notes, const char *spawn_err)
{
    const json_t *step = step_at(r, r->step);
    /* A wait that gave up answers normally (matched: false); in a recipe
     * what follows it depends on it, so the step failed. */
    bool unmatched =
        json_is_false(json_object_get(json_object_get(result, "structuredContent"), "matched"));
    bool failed = spawn_err || unmatched || json_is_true(json_object_get(result, "isError"));
    json_decref(r->located);
    r->located = NULL;
    if (failed && !r->cancelled && strcmp(on_failure(step), "retry") == 0 &&
        r->attempt <= retries(step)) {
        r->attempt++;
        r->by = NULL; /* a retry finds its locator again */
        return;
    }
    const char *status = !failed                                 ? "ok"
                         : strcmp(on_failure(step), "skip") == 0 ? "skipped"
                                                                 : "failed";
    json_t *rep = report(r, r->step, r->cancelled && failed ? "cancelled" : status);
    json_object_set_new(rep, "attempts", json_integer(r->attempt));
    json_object_set_new(rep, "ms",
                        json_integer((json_int_t)(tool_call_age_ms(r->call) - r->step_start_ms)));
    if (result) {
        json_object_set_new(rep, "text", result_text(result, r->secrets));
        json_t *sc = json_object_get(result, "structuredContent");
        if (sc && !failed) {
            /* Nothing changes a tool's answer once it is given: without
             * secrets to cut, the report holds that answer itself (a
             * screen's lines are not copied once more per step). */
            if (json_array_size(r->secrets)) {
                sc = json_deep_copy(sc);
                scrub_json(sc, r->secrets);
            } else {
                json_incref(sc);
            }
            json_object_set_new(rep, "structured", sc);
        }
    }
    if (failed) {
        const char *code =
            unmatched ? "timeout" : json_string_value(json_object_get(notes, "error_code"));
        json_t *msg = spawn_err ? json_string(spawn_err) : result_text(result, r->secrets);
        json_object_set_new(rep, "error",
                            json_pack("{s:s, s:o}", "code",
                                      code        ? code
                                      : spawn_err ? "not_found"
                                                  : "tool_failed",
                                      "message", msg));
    }
    if (r->by) {
        json_object_set_new(rep, "by", json_string(r->by));
        json_object_set_new(rep, "healed", json_boolean(r->healed));
    }
    json_array_set_new(r->out, r->step - 1, rep);
    if (failed && strcmp(status, "failed") == 0)
        r->failed = true;
    r->step = r->failed ? r->last + 1 : r->step + 1;
    r->attempt = 1;
    r->by = NULL;
}

static void step_done(void *ud, const json_t *result, const json_t *notes)
{
    struct run *r = ud;
    r->child = NULL;
    r->waiting = false;
    settle(r, result, notes, NULL);
    if (!r->in_spawn)
        advance(r);
}

static void located(void *ud, json_t *args, const char *by, bool healed, const char *err)
{
    struct run *r = ud;
    r->waiting = false;
    if (err) {
        settle(r, NULL, NULL, err);
    } else {
        r->located = args;
        r->by = by;
        r->healed = healed;
    }
    if (!r->in_spawn)
        advance(r);
}

static void advance(struct run *r)
{
    for (;;) {
        if (r->cancelled || r->step > r->last) {
            finish(r);
            return;
        }
        const json_t *step = step_at(r, r->step);
        const char *tool = json_string_value(json_object_get(step, "tool"));
        const json_t *arguments = json_object_get(step, "arguments");
        /* The audit row of every step names its run. */
        json_t *notes = json_pack("{s:{s:s, s:s, s:I, s:i}}", "recipe", "run", r->id, "name",
                                  r->name, "step", (json_int_t)r->step, "attempt", r->attempt);
        const json_t *locator = json_object_get(step, "locator");
        if (locator && !r->located) {
            /* Find the element again first; the step runs once it is. */
            r->waiting = true;
            r->in_spawn = true;
            recipe_locate(r->call, locator,
                          arguments ? recipe_subst(arguments, r->values) : json_object(),
                          r->strict || json_is_true(json_object_get(step, "strict")), notes,
                          located, r, &r->child);
            r->in_spawn = false;
            json_decref(notes);
            if (r->waiting)
                return; /* located advances */
            continue;
        }
        json_t *args = r->located  ? json_incref(r->located)
                       : arguments ? recipe_subst(arguments, r->values)
                                   : json_object();
        char msg[160];
        snprintf(msg, sizeof msg, "step %zu of %zu: %s", r->step, r->last, tool);
        tool_call_progress(r->call, (double)r->step - 1, (double)r->last, msg);
        r->step_start_ms = tool_call_age_ms(r->call);
        r->waiting = true;
        r->in_spawn = true;
        char *err = NULL;
        bool ok =
            tool_call_spawn(r->call, tool, args, notes, r->secrets, step_done, r, &r->child, &err);
        r->in_spawn = false;
        if (!ok) {
            r->waiting = false;
            settle(r, NULL, NULL, err);
            free(err);
            continue;
        }
        if (r->waiting)
            return; /* step_done advances */
    }
}

static void on_cancel(struct tool_call *call)
{
    struct run *r = tool_call_data(call);
    r->cancelled = true;
    if (r->child)
        tool_call_cancel(r->child);
}

/* What each step would do, without doing it: the tool must exist and the
 * substituted arguments must fit its schema. */
static void dry_run(struct run *r)
{
    for (size_t n = r->step; n <= r->last; n++) {
        const json_t *step = step_at(r, n);
        const char *tool = json_string_value(json_object_get(step, "tool"));
        const json_t *arguments = json_object_get(step, "arguments");
        json_t *args = arguments ? recipe_subst(arguments, r->values) : json_object();
        const struct tool_entry *e = registry_find(tool);
        char *err = NULL;
        bool ok = e && schema_validate(e->input_schema, args, &err);
        json_t *rep = report(r, n, ok ? "planned" : "failed");
        scrub_json(args, r->secrets);
        json_object_set_new(rep, "arguments", args);
        if (!ok) {
            json_object_set_new(
                rep, "error",
                json_pack("{s:s, s:s++}", "code", e ? "invalid_argument" : "not_found", "message",
                          e ? "arguments do not fit the tool: " : "unknown tool ", e ? err : tool));
            r->failed = true;
        }
        free(err);
        json_array_set_new(r->out, n - 1, rep);
    }
    struct tool_call *call = r->call;
    json_t *sc = json_pack("{s:s, s:s, s:s, s:O, s:I, s:I}", "run", r->id, "recipe", r->name,
                           "status", r->failed ? "failed" : "dry_run", "steps", r->out, "ms",
                           (json_int_t)0, "us", (json_int_t)0);
    tool_call_done(call, sc, "dry run of recipe %s: steps %zu to %zu %s", r->name, r->step, r->last,
                   r->failed ? "would fail (see steps)" : "would be called");
    json_decref(r->doc);
    json_decref(r->values);
    json_decref(r->secrets);
    json_decref(r->out);
    free(r);
}

void recipe_run_start(struct tool_call *call, json_t *doc, json_t *values,
                      const struct recipe_run_options *o)
{
    static unsigned serial;
    struct run *r = xcalloc(1, sizeof *r);
    r->call = call;
    r->doc = doc;
    r->values = values;
    r->secrets = recipe_params_secrets(doc, values);
    r->name = json_string_value(json_object_get(doc, "name"));
    r->started_at_ms = unix_ms();
    snprintf(r->id, sizeof r->id, "run-%lld-%u", (long long)r->started_at_ms, ++serial);
    r->first = r->step = o->from_step;
    r->last = o->to_step;
    r->attempt = 1;
    r->strict = o->strict;
    /* Every step has a status, those outside from_step..to_step too. */
    r->out = json_array();
    size_t total = json_array_size(json_object_get(doc, "steps"));
    for (size_t k = 1; k <= total; k++)
        json_array_append_new(r->out, report(r, k, "not_run"));
    r->run_start_ms = tool_call_age_ms(call);
    r->run_start_ns = uv_hrtime();
    if (o->dry_run) {
        dry_run(r);
        return;
    }
    tool_call_set_data(call, r);
    tool_call_on_cancel(call, on_cancel);
    advance(r);
}
