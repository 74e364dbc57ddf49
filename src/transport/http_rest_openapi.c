/* /v1/openapi.json: the REST API described as OpenAPI 3.1, built from the
 * same registry that answers tools/list, so the two never disagree: each
 * tool's input schema becomes the arguments of its request body, its output
 * schema the result of its answer. */
#include "backend/backend.h"
#include "core/version.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "transport/http_rest.h"

#include <string.h>

static json_t *ref(const char *name)
{
    char *r = xasprintf("#/components/schemas/%s", name);
    json_t *o = json_pack("{s:s}", "$ref", r);
    free(r);
    return o;
}

static json_t *json_content(json_t *schema)
{
    return json_pack("{s:{s:o}}", "application/json", "schema", schema);
}

static json_t *response(const char *description, json_t *schema)
{
    json_t *o = json_pack("{s:s}", "description", description);
    if (schema)
        json_object_set_new(o, "content", json_content(schema));
    return o;
}

/* The refusals every operation may answer. */
static void add_refusals(json_t *responses, const char *const *statuses)
{
    static const struct {
        const char *status, *what;
    } known[] = {
        {"400", "invalid_argument: the body or an argument is wrong (the message names it)"},
        {"401", "the bearer token is missing or wrong"},
        {"403", "denied: the policy refuses, or the call needs a person's confirmation"},
        {"404", "not_found: no such session or tool"},
        {"410", "session_expired: the session has ended"},
        {"429", "too many requests"},
    };
    for (const char *const *s = statuses; *s; s++)
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strcmp(known[i].status, *s) == 0)
                json_object_set_new(responses, *s, response(known[i].what, ref("Error")));
}

static json_t *components(void)
{
    json_t *codes = json_array();
    for (int c = 0; c <= ERROR_CODE_LAST; c++)
        json_array_append_new(codes, json_string(error_code_name((enum error_code)c)));
    json_t *error =
        json_pack("{s:s, s:[s], s:{s:{s:s, s:[s,s], s:{s:{s:s, s:o}, s:{s:s}}}, s:{s:s}}}", "type",
                  "object", "required", "error", "properties", "error", "type", "object",
                  "required", "code", "message", "properties", "code", "type", "string", "enum",
                  codes, "message", "type", "string", "correlation_id", "type", "string");
    json_t *session = json_pack(
        "{s:s, s:[s,s,s], s:{s:{s:s}, s:{s:s}, s:{s:[s,s]}, s:{s:s, s:[s,s,s,s]}, s:{s:s}, "
        "s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}}}",
        "type", "object", "required", "id", "kind", "state", "properties", "id", "type", "string",
        "kind", "type", "string", "name", "type", "string", "null", "state", "type", "string",
        "enum", "starting", "live", "stopping", "ended", "created", "type", "string",
        "last_activity", "type", "string", "idle_s", "type", "integer", "end_reason", "type",
        "string", "shared", "type", "boolean");
    int n;
    const struct backend_kind *kinds = backend_kinds(&n);
    json_t *kind_names = json_array();
    for (int i = 0; i < n; i++)
        if (kinds[i].module && kinds[i].tools && kinds[i].tools[0])
            json_array_append_new(kind_names, json_string(kinds[i].kind));
    json_t *create = json_pack(
        "{s:s, s:[s], s:b, s:{s:{s:s, s:o}, s:{s:s}, s:{s:s}, s:{s:s, s:i}, s:{s:s}, s:{s:s}}}",
        "type", "object", "required", "kind", "additionalProperties", 0, "properties", "kind",
        "type", "string", "enum", kind_names, "arguments", "type", "object", "name", "type",
        "string", "idle_s", "type", "integer", "minimum", 1, "shared", "type", "boolean",
        "correlation_id", "type", "string");
    return json_pack("{s:{s:o, s:o, s:o}, s:{s:{s:s, s:s}}}", "schemas", "Error", error, "Session",
                     session, "CreateSession", create, "securitySchemes", "bearer", "type", "http",
                     "scheme", "bearer");
}

static json_t *id_param(void)
{
    return json_pack("[{s:s, s:s, s:b, s:{s:s}}]", "name", "id", "in", "path", "required", 1,
                     "schema", "type", "string");
}

static json_t *op(const char *id, const char *summary)
{
    return json_pack("{s:s, s:s, s:o}", "operationId", id, "summary", summary, "responses",
                     json_object());
}

static void session_paths(json_t *paths)
{
    json_t *list = op("listSessions", "The sessions this client may reach");
    json_object_set_new(list, "parameters",
                        json_pack("[{s:s, s:s, s:{s:s, s:[s,s]}}]", "name", "state", "in", "query",
                                  "schema", "type", "string", "enum", "live", "all"));
    json_object_set_new(
        json_object_get(list, "responses"), "200",
        response("the sessions",
                 json_pack("{s:s, s:{s:{s:s, s:o}}}", "type", "object", "properties", "sessions",
                           "type", "array", "items", ref("Session"))));
    add_refusals(json_object_get(list, "responses"), (const char *[]){"400", "401", NULL});
    json_t *create = op("createSession", "Start a session through its kind's start tool");
    json_object_set_new(
        create, "requestBody",
        json_pack("{s:b, s:o}", "required", 1, "content", json_content(ref("CreateSession"))));
    json_object_set_new(json_object_get(create, "responses"), "201",
                        response("the new session (Location names it)", ref("Session")));
    add_refusals(json_object_get(create, "responses"), (const char *[]){"400", "401", "403", NULL});
    json_object_set_new(paths, "/v1/sessions",
                        json_pack("{s:o, s:o}", "get", list, "post", create));

    json_t *get = op("getSession", "One session");
    json_object_set_new(json_object_get(get, "responses"), "200",
                        response("the session", ref("Session")));
    add_refusals(json_object_get(get, "responses"), (const char *[]){"401", "404", NULL});
    json_t *del = op("deleteSession", "End a session");
    json_object_set_new(json_object_get(del, "responses"), "204", response("ending", NULL));
    add_refusals(json_object_get(del, "responses"), (const char *[]){"401", "404", "410", NULL});
    json_object_set_new(
        paths, "/v1/sessions/{id}",
        json_pack("{s:o, s:o, s:o}", "parameters", id_param(), "get", get, "delete", del));

    json_t *keep = op("keepSessionAlive", "Restart the session's idle timeout");
    json_object_set_new(json_object_get(keep, "responses"), "200",
                        response("the session", ref("Session")));
    add_refusals(json_object_get(keep, "responses"), (const char *[]){"401", "404", "410", NULL});
    json_object_set_new(paths, "/v1/sessions/{id}/keepalive",
                        json_pack("{s:o, s:o}", "parameters", id_param(), "post", keep));

    json_t *events = op("sessionEvents", "The session's events (state, started, ended, expired)");
    json_object_set_new(json_object_get(events, "responses"), "200",
                        json_pack("{s:s, s:{s:{s:{s:s}}}}", "description", "an event stream",
                                  "content", "text/event-stream", "schema", "type", "string"));
    add_refusals(json_object_get(events, "responses"), (const char *[]){"401", "404", "410", NULL});
    json_object_set_new(paths, "/v1/sessions/{id}/events",
                        json_pack("{s:o, s:o}", "parameters", id_param(), "get", events));
}

/* Local references ("#/$defs/x") point into the schema they are written
 * in; inside the document they would point at its root. */
static void rewrite_refs(json_t *v, const char *prefix)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) rewrite_refs(item, prefix);
        return;
    }
    if (!json_is_object(v))
        return;
    const char *key;
    json_t *item;
    json_object_foreach(v, key, item)
    {
        const char *r = json_string_value(item);
        if (strcmp(key, "$ref") == 0 && r && strncmp(r, "#/$defs/", 8) == 0) {
            char *to = xasprintf("#/components/schemas/%s_%s", prefix, r + 8);
            json_object_set_new(v, key, json_string(to));
            free(to);
        } else {
            rewrite_refs(item, prefix);
        }
    }
}

/* A schema of the registry made fit for the document: its $defs go to the
 * components as <prefix>_<name>. New reference. */
static json_t *hoist(const json_t *schema, const char *prefix, json_t *components)
{
    json_t *s = json_deep_copy(schema);
    json_object_del(s, "$schema");
    json_t *defs = json_object_get(s, "$defs");
    if (defs) {
        json_incref(defs);
        json_object_del(s, "$defs");
        rewrite_refs(defs, prefix);
        const char *name;
        json_t *def;
        json_object_foreach(defs, name, def)
        {
            char *key = xasprintf("%s_%s", prefix, name);
            json_object_set(components, key, def);
            free(key);
        }
        json_decref(defs);
    }
    rewrite_refs(s, prefix);
    return s;
}

/* The tool's input schema without the session argument (the path names
 * the session). */
static json_t *arguments_schema(const struct tool_entry *e, json_t *components)
{
    char *prefix = xasprintf("%s_input", e->tool->name);
    json_t *s = hoist(e->input_schema, prefix, components);
    free(prefix);
    json_t *props = json_object_get(s, "properties");
    json_object_del(props, "session");
    json_t *req = json_object_get(s, "required");
    for (size_t i = json_array_size(req); i-- > 0;)
        if (strcmp(json_string_value(json_array_get(req, i)), "session") == 0)
            json_array_remove(req, i);
    return s;
}

static void tool_path(json_t *paths, const struct tool_entry *e, json_t *components)
{
    const struct tool *tool = e->tool;
    json_t *body = json_pack("{s:s, s:b, s:{s:o, s:{s:s}}}", "type", "object",
                             "additionalProperties", 0, "properties", "arguments",
                             arguments_schema(e, components), "correlation_id", "type", "string");
    char *prefix = xasprintf("%s_output", tool->name);
    json_t *result = e->output_schema ? hoist(e->output_schema, prefix, components) : json_object();
    free(prefix);
    json_t *ok =
        json_pack("{s:s, s:[s,s], s:{s:{s:s, s:[s,s]}, s:o, s:o, s:{s:s}, s:{s:s}}}", "type",
                  "object", "required", "status", "correlation_id", "properties", "status", "type",
                  "string", "enum", "succeeded", "failed", "result", result, "error",
                  json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}", "type", "object", "properties", "code",
                            "type", "string", "message", "type", "string"),
                  "correlation_id", "type", "string", "content", "type", "array");
    json_t *post =
        json_pack("{s:s, s:s, s:s, s:{s:b, s:o}, s:{s:o}}", "operationId", tool->name, "summary",
                  tool->title ? tool->title : tool->name, "description", tool->description,
                  "requestBody", "required", 0, "content", json_content(body), "responses", "200",
                  response("the call ran: succeeded, or failed with error", ok));
    json_t *sse = json_pack("{s:{s:s}}", "schema", "type", "string");
    json_object_set_new(
        json_object_get(json_object_get(json_object_get(post, "responses"), "200"), "content"),
        "text/event-stream", sse);
    add_refusals(json_object_get(post, "responses"),
                 (const char *[]){"400", "401", "403", "404", "410", "429", NULL});
    char *p = xasprintf("/v1/sessions/{id}/tools/%s", tool->name);
    json_object_set_new(paths, p, json_pack("{s:o, s:o}", "parameters", id_param(), "post", post));
    free(p);
}

json_t *rest_openapi(const struct http_transport *t)
{
    json_t *paths = json_object();
    json_t *comps = components();
    session_paths(paths);
    for (size_t i = 0; i < registry_count(); i++)
        tool_path(paths, registry_at(i), json_object_get(comps, "schemas"));
    json_t *doc = json_pack(
        "{s:s, s:{s:s, s:s, s:s}, s:o, s:o}", "openapi", "3.1.0", "info", "title",
        "glovebox REST API", "version", GLOVEBOX_VERSION, "description",
        "Sessions and tool calls for orchestrators, beside the MCP endpoint /mcp (docs/rest.md)",
        "paths", paths, "components", comps);
    if (t->opts.token)
        json_object_set_new(doc, "security", json_pack("[{s:[]}]", "bearer"));
    return doc;
}
