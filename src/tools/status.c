/* status: what this server is and can do right now. */
#include "backend/backend.h"
#include "backend/mirror.h"
#include "core/app.h"
#include "core/pidns.h"
#include "core/strbuf.h"
#include "core/version.h"
#include "core/xmalloc.h"
#include "policy/audit.h"
#include "policy/pause.h"
#include "policy/policy.h"
#include "session/session.h"
#include "status.schema.h"
#include "tools/tools.h"
#include "transport/http.h"

#include <string.h>

/* Adds "audit" to out; returns the sentence for people (malloc'd). A
 * problem is said first, since nobody may be watching the log. */
static char *audit_status(struct app *app, json_t *out)
{
    if (!app->audit) {
        json_object_set_new(out, "audit", json_pack("{s:b}", "enabled", 0));
        return xstrdup("no audit log");
    }
    json_t *a = audit_describe(app->audit);
    json_object_set_new(out, "audit", a);
    long long written = json_integer_value(json_object_get(a, "written"));
    long long queued = json_integer_value(json_object_get(a, "queued"));
    long long dropped = json_integer_value(json_object_get(a, "dropped"));
    const char *error = json_string_value(json_object_get(a, "error"));
    if (error)
        return xasprintf("AUDIT LOG FAILING: %s (%lld calls waiting, %lld dropped, retrying)",
                         error, queued, dropped);
    return xasprintf("audit log %s: %lld calls written%s",
                     json_string_value(json_object_get(a, "path")), written,
                     dropped ? ", some dropped earlier" : "");
}

static void handle(struct tool_call *call)
{
    struct app *app = tool_call_app(call);
    json_t *backends = backend_check_all();
    json_t *sessions = session_registry_list(app->sessions, tool_call_owner(call), false);
    /* Only what the caller may see: other clients' sessions are not counted
     * either (their existence is not revealed). */
    int live = (int)json_array_size(sessions);
    json_t *out = json_pack("{s:s, s:s, s:I, s:s, s:i, s:O, s:o}", "server", "glovebox", "version",
                            GLOVEBOX_VERSION, "uptime_ms", (json_int_t)app_uptime_ms(app),
                            "protocol_version", tool_call_protocol_version(call), "live_sessions",
                            live, "sessions", sessions, "backends", backends);
    char usable[256] = "";
    size_t i;
    json_t *b;
    json_array_foreach(backends, i, b)
    {
        if (!json_is_true(json_object_get(b, "available")))
            continue;
        if (usable[0])
            strncat(usable, ", ", sizeof usable - strlen(usable) - 1);
        strncat(usable, json_string_value(json_object_get(b, "kind")),
                sizeof usable - strlen(usable) - 1);
    }
    /* The items behind the counts, for clients that give the model only the
     * text: each session, and what each kind that cannot run here lacks. */
    struct strbuf items;
    strbuf_init(&items);
    static const char *const lead[] = {"id", "kind", "state", NULL};
    static const char *const skip[] = {"age_ms", NULL};
    json_array_foreach(sessions, i, b)
    {
        strbuf_puts(&items, "\nsession ");
        mirror_item(&items, b, lead, skip);
    }
    json_array_foreach(backends, i, b)
    {
        if (json_is_true(json_object_get(b, "available")))
            continue;
        static const char *const kind[] = {"kind", NULL};
        static const char *const facts[] = {"summary", "available", NULL};
        strbuf_puts(&items, "\nnot usable here: ");
        mirror_item(&items, b, kind, facts);
    }
    json_decref(sessions);
    if (app->http)
        json_object_set_new(out, "http", http_transport_describe(app->http));
    char *policy = app->policy ? policy_summary(app->policy) : xstrdup("no policy in effect");
    if (app->policy)
        json_object_set_new(out, "policy", policy_describe(app->policy));
    enum pidns_mode mode = pidns_mode();
    json_object_set_new(
        out, "containment",
        json_pack("{s:s, s:s?}", "mode", pidns_mode_name(mode), "reason", pidns_reason()));
    char *audit = audit_status(app, out);
    json_t *paused = pause_describe(app);
    json_object_update(out, paused);
    json_decref(paused);
    tool_call_done(call, out,
                   "glovebox %s, up %.1f s, protocol %s, %d live session%s; backends usable "
                   "here: %s; %s; %s; session processes contained: %s%s%s%s",
                   GLOVEBOX_VERSION, (double)app_uptime_ms(app) / 1000.0,
                   tool_call_protocol_version(call), live, live == 1 ? "" : "s",
                   usable[0] ? usable : "none", policy, audit,
                   mode == PIDNS_NONE ? "no" : pidns_mode_name(mode),
                   pause_active(app) ? "; PAUSED by the person since " : "",
                   pause_active(app) ? json_string_value(json_object_get(out, "paused_since")) : "",
                   items.data ? items.data : "");
    strbuf_finish(&items);
    free(policy);
    free(audit);
}

const struct tool tool_status = {
    .name = "status",
    .group = "server",
    .title = "Server status",
    .description = "Version, sessions, which screen kinds this machine can run (and the packages "
                   "missing), the policy and the audit log.",
    .input_schema = tool_status_input_schema,
    .output_schema = tool_status_output_schema,
    .annotations = {.read_only = true, .open_world = false},
    .handler = handle,
};
