#define LOG_MODULE "pause"
#include "policy/pause.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "mcp/server.h"
#include "mcp/tool.h"

#include <string.h>
#include <time.h>

static bool stoppable(const struct tool *tool, void *ud)
{
    (void)ud;
    return !tool->annotations.read_only && !tool->lowers_privilege;
}

static void since_text(const struct app *app, char *buf, size_t size)
{
    time_t secs = (time_t)(app->paused_since_ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *refusal_text(const struct app *app)
{
    char when[32];
    since_text(app, when, sizeof when);
    return xasprintf("Paused by the person at %s: input actions are stopped. The person can "
                     "resume with `glovebox resume` or SIGUSR2 to the server; until then only "
                     "tools that change nothing work.",
                     when);
}

bool pause_active(const struct app *app)
{
    return app->paused_since_ms != 0;
}

void pause_set(struct app *app, bool paused)
{
    if (paused == pause_active(app))
        return;
    if (!paused) {
        app->paused_since_ms = 0;
        log_warn("resumed: input actions are allowed again");
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    app->paused_since_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (app->paused_since_ms == 0)
        app->paused_since_ms = 1;
    char *why = refusal_text(app);
    int n = mcp_abort_calls(stoppable, NULL, why);
    free(why);
    log_warn("paused by the person: input actions are refused; %d call%s in flight stopped", n,
             n == 1 ? "" : "s");
}

char *pause_refusal(const struct app *app, const struct tool *tool)
{
    if (!pause_active(app) || !stoppable(tool, NULL))
        return NULL;
    return refusal_text(app);
}

json_t *pause_describe(const struct app *app)
{
    json_t *o = json_pack("{s:b}", "paused", pause_active(app));
    if (pause_active(app)) {
        char when[32];
        since_text(app, when, sizeof when);
        json_object_set_new(o, "paused_since", json_string(when));
    } else {
        json_object_set_new(o, "paused_since", json_null());
    }
    return o;
}

static bool gate_visible(void *ud, const struct tool *tool)
{
    struct pause_gate *pg = ud;
    return !pg->inner || pg->inner->visible(pg->inner->ud, tool);
}

static struct mcp_verdict gate_admit(void *ud, const struct tool *tool, const json_t *args)
{
    struct pause_gate *pg = ud;
    /* A call doing what a read-only tool does (computer's screenshot) is
     * not input: a pause lets it through as it lets that tool. */
    const struct tool *as = tool->acts_as ? tool->acts_as(args) : NULL;
    char *why = pause_refusal(pg->app, as && as->annotations.read_only ? as : tool);
    if (why)
        return (struct mcp_verdict){.admission = MCP_REFUSE, .message = why, .decision = "paused"};
    if (!pg->inner)
        return (struct mcp_verdict){.admission = MCP_ADMIT};
    return pg->inner->admit(pg->inner->ud, tool, args);
}

void pause_gate_init(struct pause_gate *pg, struct app *app, const struct mcp_gate *inner)
{
    pg->app = app;
    pg->inner = inner;
    pg->gate = (struct mcp_gate){.visible = gate_visible, .admit = gate_admit, .ud = pg};
}
