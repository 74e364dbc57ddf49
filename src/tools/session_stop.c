/* session_stop: end a session and everything it started. Answers once the
 * backend has released it all (processes reaped, connections closed). */
#include "core/app.h"
#include "core/args.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "session_stop.schema.h"
#include "tools/tools.h"

#include <stdlib.h>

static void stopped(struct session *s, void *ud)
{
    struct tool_call *call = ud;
    json_t *out = json_pack("{s:o, s:b}", "session", session_to_json(s), "was_live", 1);
    tool_call_done(call, out, "session %s stopped (%s)", s->id,
                   s->end_reason ? s->end_reason : "stopped");
}

static void handle(struct tool_call *call)
{
    struct app *app = tool_call_app(call);
    const char *id = args_string(tool_call_args(call), "session", NULL);
    char *err = NULL;
    struct session *s = session_resolve(app->sessions, tool_call_owner(call), id, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return;
    }
    if (s->state == SESSION_ENDED) {
        json_t *out = json_pack("{s:o, s:b}", "session", session_to_json(s), "was_live", 0);
        tool_call_done(call, out, "session %s had already ended: %s", s->id,
                       s->end_reason ? s->end_reason : "ended");
        return;
    }
    session_when_ended(s, stopped, call);
    session_stop(s, "stopped by session_stop");
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *session = json_object_get(args, "session");
    if (!json_is_string(session))
        return false;
    strbuf_puts(q, "stop session ");
    confirm_quote_json(q, session, 64);
    return true;
}

const struct tool tool_session_stop = {
    .name = "session_stop",
    .group = "sessions",
    .title = "Stop a session",
    .description = "Ends a session and everything it started (an attached display or remote "
                   "session is only detached).",
    .input_schema = tool_session_stop_input_schema,
    .output_schema = tool_session_stop_output_schema,
    .annotations = {.read_only = false, .destructive = true, .idempotent = true},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
};
