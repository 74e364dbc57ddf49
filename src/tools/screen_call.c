#include "tools/screen_call.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/args.h"
#include "core/base64.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <string.h>

static void finish(struct backend_call *bc, struct backend_result *r)
{
    struct tool_call *call = bc->owner;
    bc->session->in_use--;
    if (r->error) {
        tool_call_fail(call, "%s", r->error);
    } else if (r->bytes) {
        json_t *content = json_array();
        const char *as = args_string(tool_call_args(call), "as", "image");
        if (strcmp(as, "link") == 0) {
            char *uri = xasprintf("glovebox://session/%s/screen", bc->session->id);
            json_array_append_new(content,
                                  json_pack("{s:s, s:s, s:s, s:s}", "type", "resource_link", "uri",
                                            uri, "name", "screen", "mimeType", r->mime));
            json_object_set_new(r->data, "uri", json_string(uri));
            free(uri);
        } else {
            /* Base64 is ASCII: skip jansson's copy-and-check of a large string. */
            char *b64 = base64_encode(r->bytes, r->len);
            json_t *image = json_pack("{s:s, s:s}", "type", "image", "mimeType", r->mime);
            json_object_set_new(image, "data", json_stringn_nocheck(b64, strlen(b64)));
            json_array_append_new(content, image);
            free(b64);
        }
        json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", r->text));
        tool_call_done_content(call, content, r->data);
        r->data = NULL;
    } else if (json_is_string(json_object_get(r->data, "uri"))) {
        /* A file the client can fetch (a recording): link it, do not inline it. */
        json_t *content = json_pack("[{s:s, s:s}]", "type", "text", "text", r->text);
        const char *mime = json_string_value(json_object_get(r->data, "mime_type"));
        json_array_append_new(
            content, json_pack("{s:s, s:O, s:s, s:s}", "type", "resource_link", "uri",
                               json_object_get(r->data, "uri"), "name",
                               json_string_value(json_object_get(r->data, "recording"))
                                   ? json_string_value(json_object_get(r->data, "recording"))
                                   : "file",
                               "mimeType", mime ? mime : "application/octet-stream"));
        tool_call_done_content(call, content, r->data);
        r->data = NULL;
    } else {
        tool_call_done(call, r->data, "%s", r->text ? r->text : "done");
        r->data = NULL;
    }
    json_decref(r->data);
    free(r->bytes);
    free(r->text);
    free(r->error);
    free(bc);
}

static void note(struct backend_call *bc, const char *key, json_t *value)
{
    tool_call_note(bc->owner, key, value);
}

static void cancel(struct tool_call *call)
{
    struct backend_call *bc = tool_call_data(call);
    if (bc && bc->cancel)
        bc->cancel(bc);
}

/* The caller's MCP session id (HTTP), or NULL. Caller frees. */
static char *caller_session(struct tool_call *call)
{
    json_t *who = tool_call_client(call);
    const char *id = json_string_value(json_object_get(who, "mcp_session"));
    char *copy = id ? xstrdup(id) : NULL;
    json_decref(who);
    return copy;
}

void screen_call_claim(struct tool_call *call, struct session *s)
{
    char *id = caller_session(call);
    session_set_owner(s, id);
    free(id);
}

void screen_call_note_user(struct tool_call *call, struct session *s)
{
    char *id = caller_session(call);
    session_note_user(s, id);
    free(id);
}

void screen_call_run(struct tool_call *call, size_t op_offset, const char *verb, bool needs_live)
{
    struct app *app = tool_call_app(call);
    const json_t *args = tool_call_args(call);
    char *err = NULL;
    struct session *s = session_resolve(app->sessions, args_string(args, "session", NULL), &err);
    if (!s) {
        tool_call_fail(call, "%s", err);
        free(err);
        return;
    }
    screen_call_note_user(call, s);
    backend_op op = *(const backend_op *)((const char *)s->impl + op_offset);
    if (!op) {
        tool_call_fail(call, "cannot %s: not supported by %s sessions", verb, s->impl->kind);
        return;
    }
    if (s->state == SESSION_STOPPING || (needs_live && s->state != SESSION_LIVE)) {
        tool_call_fail(call, "cannot %s: session %s has ended (%s)", verb, s->id,
                       s->end_reason ? s->end_reason : "stopped");
        return;
    }
    struct backend_call *bc = xcalloc(1, sizeof *bc);
    bc->session = s;
    bc->args = args;
    bc->app = app;
    bc->owner = call;
    bc->finish = finish;
    bc->note = note;
    tool_call_set_data(call, bc);
    tool_call_on_cancel(call, cancel);
    s->in_use++;
    op(bc);
}
