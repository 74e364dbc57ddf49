#include "mcp/jsonrpc.h"

#include "core/json_in.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <string.h>

static bool valid_id(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

int jsonrpc_parse(const char *data, size_t len, struct jsonrpc_message *out, char **err,
                  json_t **error_id)
{
    memset(out, 0, sizeof *out);
    *error_id = NULL;
    json_error_t jerr;
    json_t *root =
        json_in_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!root) {
        *err = xasprintf("Parse error: %s (at byte %d)", jerr.text, jerr.position);
        return JSONRPC_PARSE_ERROR;
    }
    if (json_is_array(root)) {
        json_decref(root);
        *err = xstrdup("Invalid Request: JSON-RPC batches are not supported; send one message "
                       "per line");
        return JSONRPC_INVALID_REQUEST;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        *err = xstrdup("Invalid Request: a message must be a JSON object");
        return JSONRPC_INVALID_REQUEST;
    }
    json_t *id = json_object_get(root, "id");
    bool has_id = id != NULL;
    if (has_id && valid_id(id)) {
        if (json_is_string(id) && json_string_length(id) > JSONRPC_MAX_ID_BYTES) {
            *err = xasprintf("Invalid Request: id is %zu bytes long; at most %d allowed",
                             json_string_length(id), JSONRPC_MAX_ID_BYTES);
            json_decref(root);
            return JSONRPC_INVALID_REQUEST;
        }
        *error_id = json_incref(id);
    }
    const json_t *version = json_object_get(root, "jsonrpc");
    if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0) {
        char *got = version ? jsonrpc_describe_value(version) : xstrdup("nothing");
        *err = xasprintf("Invalid Request: \"jsonrpc\" must be \"2.0\", got %s", got);
        free(got);
        json_decref(root);
        return JSONRPC_INVALID_REQUEST;
    }
    if (has_id && !valid_id(id)) {
        char *got = jsonrpc_describe_value(id);
        *err = xasprintf("Invalid Request: \"id\" must be a string or an integer, got %s", got);
        free(got);
        json_decref(root);
        return JSONRPC_INVALID_REQUEST;
    }
    json_t *method = json_object_get(root, "method");
    json_t *params = json_object_get(root, "params");
    if (method) {
        if (!json_is_string(method)) {
            *err = xstrdup("Invalid Request: \"method\" must be a string");
            json_decref(root);
            return JSONRPC_INVALID_REQUEST;
        }
        if (params && !json_is_object(params)) {
            *err = xstrdup("Invalid Request: \"params\" must be an object");
            json_decref(root);
            return JSONRPC_INVALID_REQUEST;
        }
        out->kind = has_id ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
        out->method = json_string_value(method);
        out->params = params;
    } else {
        json_t *result = json_object_get(root, "result");
        json_t *error = json_object_get(root, "error");
        if (!has_id || (!result == !error)) {
            *err = xstrdup("Invalid Request: a message needs \"method\" (request or notification) "
                           "or \"id\" with exactly one of \"result\" and \"error\" (response)");
            json_decref(root);
            return JSONRPC_INVALID_REQUEST;
        }
        out->kind = JSONRPC_RESPONSE;
        out->result = result;
        out->error = error;
    }
    out->root = root;
    out->id = has_id ? id : NULL;
    json_decref(*error_id);
    *error_id = NULL;
    return 0;
}

void jsonrpc_message_finish(struct jsonrpc_message *m)
{
    json_decref(m->root);
    memset(m, 0, sizeof *m);
}

/* {"jsonrpc": "2.0", "id": id, key: value}, built directly: every answer
 * passes here, and json_pack parses its format string each time. */
static json_t *envelope(json_t *id, const char *key, json_t *steal_value)
{
    if (!steal_value)
        return NULL;
    json_t *m = json_object();
    json_object_set_new_nocheck(m, "jsonrpc", json_string_nocheck("2.0"));
    json_object_set_nocheck(m, "id", id ? id : json_null());
    json_object_set_new_nocheck(m, key, steal_value);
    return m;
}

json_t *jsonrpc_result(json_t *id, json_t *steal_result)
{
    return envelope(id, "result", steal_result);
}

json_t *jsonrpc_error(json_t *id, int code, const char *message, json_t *steal_data)
{
    json_t *error = json_object();
    json_object_set_new_nocheck(error, "code", json_integer(code));
    json_object_set_new_nocheck(error, "message", utf8_json_string(message, strlen(message)));
    if (steal_data)
        json_object_set_new_nocheck(error, "data", steal_data);
    return envelope(id, "error", error);
}

json_t *jsonrpc_notification(const char *method, json_t *steal_params)
{
    json_t *n = json_object();
    json_object_set_new_nocheck(n, "jsonrpc", json_string_nocheck("2.0"));
    json_object_set_new_nocheck(n, "method", json_string(method));
    if (steal_params)
        json_object_set_new_nocheck(n, "params", steal_params);
    return n;
}

char *jsonrpc_describe_value(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        if (n > 40)
            return xasprintf("string \"%.*s...\" (%zu bytes)", (int)utf8_truncate(s, n, 37), s, n);
        return xasprintf("string \"%s\"", s);
    }
    case JSON_INTEGER:
        return xasprintf("integer %" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL:
        return xasprintf("number %g", json_real_value(v));
    case JSON_TRUE:
        return xstrdup("boolean true");
    case JSON_FALSE:
        return xstrdup("boolean false");
    case JSON_NULL:
        return xstrdup("null");
    case JSON_ARRAY:
        return xasprintf("array of %zu items", json_array_size(v));
    case JSON_OBJECT:
        return xstrdup("object");
    }
    return xstrdup("unknown value");
}
