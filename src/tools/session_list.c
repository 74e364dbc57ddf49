/* session_list: the screens glovebox is driving. */
#include "backend/mirror.h"
#include "core/app.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "session/session.h"
#include "session_list.schema.h"
#include "tools/tools.h"

#include <stdlib.h>

static void handle(struct tool_call *call)
{
    struct app *app = tool_call_app(call);
    bool ended = args_bool(tool_call_args(call), "include_ended", false);
    const char *owner = tool_call_owner(call);
    json_t *list = session_registry_list(app->sessions, owner, ended);
    size_t n = json_array_size(list);
    static const char *const lead[] = {"id", "kind", "state", NULL};
    static const char *const skip[] = {"age_ms", NULL};
    struct strbuf sb;
    strbuf_init(&sb);
    /* Every call says this line: no printf for it. */
    strbuf_put_size(&sb, n);
    strbuf_puts(&sb, n == 1 ? " session" : " sessions");
    size_t i;
    json_t *s;
    json_array_foreach(list, i, s)
    {
        strbuf_putc(&sb, '\n');
        mirror_item(&sb, s, lead, skip);
    }
    json_t *structured = json_object();
    json_object_set_new_nocheck(structured, "sessions", list);
    tool_call_done(call, structured, "%s", sb.data);
    strbuf_finish(&sb);
}

const struct tool tool_session_list = {
    .name = "session_list",
    .group = "sessions",
    .title = "List sessions",
    .description = "Lists your sessions: id, kind, name, state.",
    .input_schema = tool_session_list_input_schema,
    .output_schema = tool_session_list_output_schema,
    .annotations = {.read_only = true},
    .handler = handle,
};
