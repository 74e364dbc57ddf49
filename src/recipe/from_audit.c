/* Building a recipe from the audit log. The log is written by its own
 * thread in batches, so the latest calls may still be queued: we wait (on
 * a timer, never blocking the loop) until the queue is empty, then read
 * the rows on the worker pool and turn them into steps on the loop.
 *
 * Whose calls: only the caller's own — the same MCP session (HTTP), or, for
 * a stdio client, the stdio calls of this server process — so a recipe never
 * reaches into another client's sessions. Left out: failed, refused and
 * read-only calls, the recipe tools, and calls whose arguments the log had
 * to cut short. A value the log redacted becomes a secret param; a recorded
 * "{{x}}" becomes a param whose default is "{{x}}" itself, so it replays
 * literally. The "session" argument is dropped: a replay acts on the
 * session its own steps started (the default session). */
#define LOG_MODULE "recipe"
#include "recipe/from_audit.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/tool.h"
#include "policy/audit.h"
#include "recipe/recipe.h"
#include "store/audit_db.h"

#include <string.h>
#include <sys/time.h>
#include <time.h>

#define FLUSH_WAIT_MS 5000
#define POLL_MS       20

struct job {
    uv_work_t work;
    uv_timer_t timer;
    struct tool_call *call;
    char *path;
    int64_t since_ms, until_ms;
    uint64_t waited_ms;
    json_t *rows; /* [{time_ms, transport, mcp_session, session, tool, arguments}] */
    char *err;
};

static int64_t unix_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* "2026-11-24T10:00:00Z", with optional fractional seconds; UTC only. */
static bool parse_time(const char *s, int64_t *ms)
{
    struct tm tm = {0};
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return false;
    int64_t frac = 0;
    if (*p == '.') {
        int digits = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            if (digits < 3)
                frac = frac * 10 + (*p - '0');
        while (digits++ < 3)
            frac *= 10;
    }
    if (strcmp(p, "Z") != 0 && strcmp(p, "+00:00") != 0)
        return false;
    *ms = (int64_t)timegm(&tm) * 1000 + frac;
    return true;
}

static const char *col(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

static void work(uv_work_t *w)
{
    struct job *j = w->data;
    sqlite3 *db = audit_db_open_read(j->path, &j->err);
    if (!db)
        return;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT time_ms, transport, mcp_session, session, tool, arguments, "
                           "decision, outcome FROM calls WHERE time_ms >= ? AND time_ms <= ? "
                           "ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK) {
        j->err = xasprintf("%s: %s", j->path, sqlite3_errmsg(db));
        audit_db_close(db);
        return;
    }
    sqlite3_bind_int64(st, 1, j->since_ms);
    sqlite3_bind_int64(st, 2, j->until_ms);
    j->rows = json_array();
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *decision = col(st, 6), *outcome = col(st, 7);
        if (!outcome || strcmp(outcome, "ok") != 0 || !decision ||
            (strcmp(decision, "allowed") != 0 && strcmp(decision, "confirmed") != 0))
            continue;
        json_t *row = json_pack("{s:I, s:s?, s:s?, s:s?, s:s, s:s}", "time_ms",
                                (json_int_t)sqlite3_column_int64(st, 0), "transport", col(st, 1),
                                "mcp_session", col(st, 2), "session", col(st, 3), "tool",
                                col(st, 4), "arguments", col(st, 5) ? col(st, 5) : "{}");
        if (row)
            json_array_append_new(j->rows, row);
    }
    sqlite3_finalize(st);
    audit_db_close(db);
}

struct param_maker {
    json_t *params;
    int secrets;
    const char *tool;
};

static void literal_placeholder(const char *name, size_t len, void *ud)
{
    struct param_maker *m = ud;
    char *n = xstrndup(name, len);
    char *self = xasprintf("{{%s}}", n);
    if (!json_object_get(m->params, n))
        json_object_set_new(m->params, n,
                            json_pack("{s:s, s:s}", "description",
                                      "recorded literally; the default replays it as it was",
                                      "default", self));
    free(self);
    free(n);
}

/* A string with "[redacted]" in it: each becomes a new secret param. */
static json_t *unredact(const char *s, struct param_maker *m)
{
    static const char R[] = "[redacted]";
    const char *hit = strstr(s, R);
    if (!hit)
        return NULL;
    char *out = xstrdup("");
    while (hit) {
        char name[32];
        snprintf(name, sizeof name, "secret%d", ++m->secrets);
        char *desc = xasprintf("a value the audit log redacted (a %s argument)", m->tool);
        json_object_set_new(m->params, name,
                            json_pack("{s:s, s:b}", "description", desc, "secret", 1));
        free(desc);
        char *next = xasprintf("%s%.*s{{%s}}", out, (int)(hit - s), s, name);
        free(out);
        out = next;
        s = hit + strlen(R);
        hit = strstr(s, R);
    }
    char *last = xasprintf("%s%s", out, s);
    json_t *j = json_string(last);
    free(out);
    free(last);
    return j;
}

static void unredact_all(json_t *v, struct param_maker *m)
{
    const char *key;
    size_t i;
    json_t *item, *r;
    json_object_foreach(v, key, item)
    {
        if (json_is_string(item) && (r = unredact(json_string_value(item), m)))
            json_object_set_new(v, key, r);
        else
            unredact_all(item, m);
    }
    json_array_foreach(v, i, item)
    {
        if (json_is_string(item) && (r = unredact(json_string_value(item), m)))
            json_array_set_new(v, i, r);
        else
            unredact_all(item, m);
    }
}

/* Whether the caller may take row: its own calls only. */
static bool own(const json_t *row, const json_t *client, int64_t server_start_ms)
{
    const char *mine = json_string_value(json_object_get(client, "mcp_session"));
    const char *theirs = json_string_value(json_object_get(row, "mcp_session"));
    if (mine)
        return theirs && strcmp(mine, theirs) == 0;
    const char *transport = json_string_value(json_object_get(row, "transport"));
    const char *my_transport = json_string_value(json_object_get(client, "transport"));
    return !theirs && transport && my_transport && strcmp(transport, my_transport) == 0 &&
           strcmp(transport, "stdio") == 0 &&
           json_integer_value(json_object_get(row, "time_ms")) >= server_start_ms;
}

static void after(uv_work_t *w, int status)
{
    (void)status;
    struct job *j = w->data;
    struct tool_call *call = j->call;
    const json_t *from = json_object_get(tool_call_args(call), "from");
    if (!j->rows) {
        tool_call_fail(call, "the audit log could not be read: %s", j->err ? j->err : "?");
    } else {
        struct app *app = tool_call_app(call);
        int64_t start = unix_ms() - (int64_t)app_uptime_ms(app) - 1000;
        json_t *client = tool_call_client(call);
        const char *session = json_string_value(json_object_get(from, "session"));
        json_t *picked = json_array();
        size_t i, cut = 0;
        const json_t *row;
        json_array_foreach(j->rows, i, row)
        {
            const char *tool = json_string_value(json_object_get(row, "tool"));
            const struct tool_entry *e = registry_find(tool);
            const char *rs = json_string_value(json_object_get(row, "session"));
            if (!e || e->tool->annotations.read_only || e->tool->lowers_privilege ||
                strncmp(tool, "recipe_", 7) == 0 || !own(row, client, start) ||
                (session && (!rs || strcmp(rs, session) != 0)))
                continue;
            json_t *args =
                json_loads(json_string_value(json_object_get(row, "arguments")), 0, NULL);
            if (!json_is_object(args) || json_is_true(json_object_get(args, "truncated"))) {
                cut++;
                json_decref(args);
                continue;
            }
            json_object_del(args, "session");
            json_array_append_new(picked, json_pack("{s:s, s:o}", "tool", tool, "arguments", args));
        }
        json_decref(client);
        json_int_t last = json_integer_value(json_object_get(from, "last"));
        while (last > 0 && (json_int_t)json_array_size(picked) > last)
            json_array_remove(picked, 0);
        if (json_array_size(picked) == 0) {
            tool_call_fail_code(call, ERROR_NOT_FOUND,
                                "from: none of your calls in the audit log match (only your own "
                                "successful calls that change something count%s)",
                                cut ? "; some were too long to replay" : "");
        } else {
            struct param_maker m = {.params = json_object()};
            json_t *step;
            json_array_foreach(picked, i, step)
            {
                m.tool = json_string_value(json_object_get(step, "tool"));
                json_t *args = json_object_get(step, "arguments");
                recipe_placeholders(args, literal_placeholder, &m);
                unredact_all(args, &m);
            }
            char *what = xasprintf("the audit log: %zu call%s%s", json_array_size(picked),
                                   json_array_size(picked) == 1 ? "" : "s",
                                   cut ? ", some left out as too long" : "");
            recipe_save_finish(call, picked, m.params, what);
            picked = NULL;
            free(what);
        }
        json_decref(picked);
    }
    json_decref(j->rows);
    free(j->err);
    free(j->path);
    free(j);
}

static void timer_closed(uv_handle_t *h)
{
    struct job *j = h->data;
    uv_queue_work(tool_call_app(j->call)->loop, &j->work, work, after);
}

static void poll_queue(uv_timer_t *t)
{
    struct job *j = t->data;
    struct app *app = tool_call_app(j->call);
    json_t *d = audit_describe(app->audit);
    json_int_t queued = json_integer_value(json_object_get(d, "queued"));
    json_decref(d);
    j->waited_ms += POLL_MS;
    if (queued > 0 && j->waited_ms < FLUSH_WAIT_MS)
        return;
    if (queued > 0)
        log_warn("recipe_save from the audit log: %lld calls still queued", (long long)queued);
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, timer_closed);
}

void recipe_from_audit_start(struct tool_call *call, const json_t *from)
{
    struct app *app = tool_call_app(call);
    if (!app->audit) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                            "from: this server keeps no audit log (--no-audit)");
        return;
    }
    int64_t since = 0, until = INT64_MAX;
    const char *s = json_string_value(json_object_get(from, "since"));
    const char *u = json_string_value(json_object_get(from, "until"));
    if ((s && !parse_time(s, &since)) || (u && !parse_time(u, &until))) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "from.%s: expected a UTC time such as 2026-11-24T10:00:00Z",
                            s && !parse_time(s, &since) ? "since" : "until");
        return;
    }
    if (json_object_size(from) == 0) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "from: give session, since/until or last");
        return;
    }
    json_t *d = audit_describe(app->audit);
    struct job *j = xcalloc(1, sizeof *j);
    j->call = call;
    j->path = xstrdup(json_string_value(json_object_get(d, "path")));
    json_decref(d);
    j->since_ms = since;
    j->until_ms = until;
    j->work.data = j;
    uv_timer_init(app->loop, &j->timer);
    j->timer.data = j;
    uv_timer_start(&j->timer, poll_queue, 0, POLL_MS);
}
