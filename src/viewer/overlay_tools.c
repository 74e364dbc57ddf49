/* overlay_draw, overlay_remove, overlay_clear: the agent points things out
 * to the person in the live viewer (overlay.h). They change nothing on the
 * screen, so they are read-only for the policy; they never appear in a
 * screenshot. Three small tools sharing their session lookup. */
#include "core/app.h"
#include "core/args.h"
#include "mcp/tool.h"
#include "overlay_clear.schema.h"
#include "overlay_draw.schema.h"
#include "overlay_remove.schema.h"
#include "session/session.h"
#include "tools/tools.h"
#include "viewer/overlay.h"

#include <stdlib.h>

static struct session *session_of(struct tool_call *call)
{
    struct app *app = tool_call_app(call);
    const char *id = args_string(tool_call_args(call), "session", NULL);
    char *err = NULL;
    struct session *s = session_resolve(app->sessions, tool_call_owner(call), id, &err);
    if (!s) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
    }
    return s;
}

static void drawn(void *ud, const char *session, json_t *ids, enum error_code code, const char *err)
{
    struct tool_call *call = ud;
    if (!ids) {
        tool_call_fail_code(call, code, "%s", err);
        return;
    }
    size_t n = json_array_size(ids);
    tool_call_done(call, json_pack("{s:s, s:o}", "session", session, "ids", ids),
                   "drew %zu overlay%s on %s (shown in the live viewer only)", n, n == 1 ? "" : "s",
                   session);
}

static void draw(struct tool_call *call)
{
    struct session *s = session_of(call);
    if (!s)
        return;
    const json_t *args = tool_call_args(call);
    overlay_draw(tool_call_app(call), s, json_object_get(args, "shapes"),
                 args_int(args, "ttl_ms", OVERLAY_TTL_MS),
                 json_is_true(json_object_get(args, "one_at_a_time")), drawn, call);
}

static void finish(struct tool_call *call, struct session *s, int n, enum error_code code,
                   char *err)
{
    if (n < 0) {
        tool_call_fail_code(call, code, "%s", err);
        free(err);
        return;
    }
    tool_call_done(call, json_pack("{s:s, s:i}", "session", s->id, "removed", n),
                   "removed %d overlay%s from %s", n, n == 1 ? "" : "s", s->id);
}

static void remove_(struct tool_call *call)
{
    struct session *s = session_of(call);
    if (!s)
        return;
    enum error_code code;
    char *err = NULL;
    int n = overlay_remove(tool_call_app(call), s, json_object_get(tool_call_args(call), "ids"),
                           &code, &err);
    finish(call, s, n, code, err);
}

static void clear(struct tool_call *call)
{
    struct session *s = session_of(call);
    if (!s)
        return;
    enum error_code code;
    char *err = NULL;
    int n = overlay_clear(tool_call_app(call), s, &code, &err);
    finish(call, s, n, code, err);
}

const struct tool tool_overlay_draw = {
    .name = "overlay_draw",
    .title = "Draw overlays for the person",
    .description = "Draws shapes over a session's screen in the live viewer (glovebox view) "
                   "for the person watching; never in screenshots. At most 64 a session, 20 "
                   "changes/s.",
    .input_schema = tool_overlay_draw_input_schema,
    .output_schema = tool_overlay_draw_output_schema,
    .annotations = {.read_only = true},
    .handler = draw,
    .group = "viewer",
};

const struct tool tool_overlay_remove = {
    .name = "overlay_remove",
    .title = "Remove overlays",
    .description = "Removes overlays drawn with overlay_draw, by id.",
    .input_schema = tool_overlay_remove_input_schema,
    .output_schema = tool_overlay_remove_output_schema,
    .annotations = {.read_only = true, .idempotent = true},
    .handler = remove_,
    .group = "viewer",
};

const struct tool tool_overlay_clear = {
    .name = "overlay_clear",
    .title = "Clear overlays",
    .description = "Removes every overlay of a session.",
    .input_schema = tool_overlay_clear_input_schema,
    .output_schema = tool_overlay_clear_output_schema,
    .annotations = {.read_only = true, .idempotent = true},
    .handler = clear,
    .group = "viewer",
};
