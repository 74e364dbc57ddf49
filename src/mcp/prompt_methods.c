/* prompts/list and prompts/get. */
#include "core/app.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "mcp/internal.h"
#include "mcp/jsonrpc.h"
#include "mcp/prompt.h"

#include <stdlib.h>
#include <string.h>

static json_t *prompt_json(const struct prompt *p)
{
    json_t *o = json_pack("{s:s, s:s}", "name", p->name, "description", p->description);
    if (p->title)
        json_object_set_new(o, "title", json_string(p->title));
    json_t *args = json_array();
    for (size_t i = 0; i < PROMPT_MAX_ARGUMENTS && p->arguments[i].name; i++) {
        const struct prompt_argument *a = &p->arguments[i];
        json_array_append_new(args, json_pack("{s:s, s:s, s:b}", "name", a->name, "description",
                                              a->description, "required", a->required));
    }
    json_object_set_new(o, "arguments", args);
    return o;
}

void method_prompts_list(struct mcp_conn *c, json_t *id, json_t *params,
                         const struct request_ctx *rc, void *stream)
{
    const struct prompt_source *src = prompts_source();
    json_t *more = src ? src->list() : json_array();
    size_t fixed = prompts_count(), total = fixed + json_array_size(more), offset;
    char *err = NULL;
    if (!cursor_parse(params, 'p', total, &offset, &err)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err, NULL);
        free(err);
        json_decref(more);
        return;
    }
    json_t *list = json_array();
    size_t i;
    for (i = offset; i < total && i < offset + (size_t)c->app->page_size; i++)
        json_array_append_new(list, i < fixed ? prompt_json(prompts_at(i))
                                              : json_incref(json_array_get(more, i - fixed)));
    json_decref(more);
    json_t *result = json_pack("{s:o}", "prompts", list);
    if (i < total)
        json_object_set_new(result, "nextCursor", cursor_make('p', i));
    cacheable(rc, result, 60000);
    reply_result(c, stream, id, rc, result);
}

const struct prompt_argument *prompt_argument_find(const struct prompt *p, const char *name)
{
    for (size_t i = 0; i < PROMPT_MAX_ARGUMENTS && p->arguments[i].name; i++)
        if (strcmp(p->arguments[i].name, name) == 0)
            return &p->arguments[i];
    return NULL;
}

static char *argument_names(const struct prompt *p)
{
    struct strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < PROMPT_MAX_ARGUMENTS && p->arguments[i].name; i++)
        strbuf_printf(&sb, "%s\"%s\"", i ? ", " : "", p->arguments[i].name);
    if (sb.len == 0)
        strbuf_puts(&sb, "none");
    return strbuf_steal(&sb);
}

/* The client's arguments against the prompt's: an object of strings, no
 * unknown names, every required one present. NULL, or an error message. */
static char *check_arguments(const struct prompt *p, const json_t *args)
{
    if (args && !json_is_object(args) && !json_is_null(args))
        return xstrdup("Invalid params: \"arguments\" must be an object of strings");
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)args, key, value)
    {
        if (!prompt_argument_find(p, key)) {
            char *names = argument_names(p);
            char *msg = xasprintf("Invalid params: prompt %s has no argument \"%.100s\" "
                                  "(its arguments: %s)",
                                  p->name, key, names);
            free(names);
            return msg;
        }
        if (!json_is_string(value))
            return xasprintf("Invalid params: argument \"%s\" of prompt %s must be a string", key,
                             p->name);
    }
    for (size_t i = 0; i < PROMPT_MAX_ARGUMENTS && p->arguments[i].name; i++) {
        const struct prompt_argument *a = &p->arguments[i];
        if (a->required && !json_object_get(args, a->name))
            return xasprintf("Invalid params: prompt %s needs argument \"%s\" (%s)", p->name,
                             a->name, a->description);
    }
    return NULL;
}

void method_prompts_get(struct mcp_conn *c, json_t *id, json_t *params,
                        const struct request_ctx *rc, void *stream)
{
    const json_t *name = json_object_get(params, "name");
    if (!json_is_string(name)) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS,
                    "Invalid params: \"name\" must be the name of a prompt (a string)", NULL);
        return;
    }
    /* A NUL inside the name must not select the prompt named by its prefix. */
    bool clean = strlen(json_string_value(name)) == json_string_length(name);
    const struct prompt *p = clean ? prompts_find(json_string_value(name)) : NULL;
    const struct prompt_source *src = prompts_source();
    if (!p && clean && src) {
        bool known = true;
        char *err = NULL;
        json_t *description = NULL;
        json_t *messages =
            src->get(json_string_value(name), json_object_get(params, "arguments"), &known, &err);
        if (messages) {
            /* The source puts its description first: {description, messages}. */
            description = json_incref(json_object_get(messages, "description"));
            json_t *m = json_incref(json_object_get(messages, "messages"));
            json_decref(messages);
            reply_result(c, stream, id, rc,
                         json_pack("{s:o, s:o}", "description", description, "messages", m));
            return;
        }
        if (known) {
            reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err ? err : "the prompt failed",
                        NULL);
            free(err);
            return;
        }
    }
    if (!p) {
        char *msg = xasprintf("Invalid params: unknown prompt %.200s (prompts/list shows the "
                              "prompts)",
                              json_string_value(name));
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, msg, NULL);
        free(msg);
        return;
    }
    json_t *args = json_object_get(params, "arguments");
    char *err = check_arguments(p, args);
    if (err) {
        reply_error(c, stream, id, JSONRPC_INVALID_PARAMS, err, NULL);
        free(err);
        return;
    }
    json_t *owned = json_is_object(args) ? json_incref(args) : json_object();
    json_t *messages = p->get(owned, &err);
    json_decref(owned);
    if (!messages) {
        reply_error(c, stream, id, JSONRPC_INTERNAL_ERROR, err ? err : "the prompt failed", NULL);
        free(err);
        return;
    }
    json_t *result = json_pack("{s:s, s:o}", "description", p->description, "messages", messages);
    reply_result(c, stream, id, rc, result);
}
