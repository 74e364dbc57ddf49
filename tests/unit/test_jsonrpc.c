/* JSON-RPC: strict parsing, ids echoed exactly, clear errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "core/strbuf.h"
#include "mcp/jsonrpc.h"

static int parse(const char *text, struct jsonrpc_message *m, char **err, json_t **id)
{
    *err = NULL;
    return jsonrpc_parse(text, strlen(text), m, err, id);
}

static void request_notification_response(void **state)
{
    struct jsonrpc_message m;
    char *err;
    json_t *id;
    assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &m, &err, &id), 0);
    assert_int_equal(m.kind, JSONRPC_REQUEST);
    assert_string_equal(m.method, "ping");
    assert_int_equal(json_integer_value(m.id), 7);
    jsonrpc_message_finish(&m);
    assert_int_equal(
        parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &m, &err, &id), 0);
    assert_int_equal(m.kind, JSONRPC_NOTIFICATION);
    assert_null(m.id);
    jsonrpc_message_finish(&m);
    assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}", &m, &err, &id), 0);
    assert_int_equal(m.kind, JSONRPC_RESPONSE);
    jsonrpc_message_finish(&m);
}

static void expect_error(const char *text, int code, const char *fragment, bool has_id)
{
    struct jsonrpc_message m;
    char *err;
    json_t *id;
    assert_int_equal(parse(text, &m, &err, &id), code);
    assert_non_null(strstr(err, fragment));
    if (has_id)
        assert_non_null(id);
    else
        assert_null(id);
    json_decref(id);
    free(err);
}

static void invalid_messages(void **state)
{
    expect_error("{not json", JSONRPC_PARSE_ERROR, "Parse error", false);
    expect_error("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", JSONRPC_INVALID_REQUEST,
                 "batches", false);
    expect_error("{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}", JSONRPC_INVALID_REQUEST,
                 "\"2.0\"", true);
    expect_error("{\"id\":3,\"method\":\"ping\"}", JSONRPC_INVALID_REQUEST, "got nothing", true);
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", JSONRPC_INVALID_REQUEST,
                 "string or an integer", false);
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", JSONRPC_INVALID_REQUEST,
                 "string or an integer", false);
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", JSONRPC_INVALID_REQUEST,
                 "\"method\"", true);
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}",
                 JSONRPC_INVALID_REQUEST, "\"params\"", true);
    expect_error("\"just a string\"", JSONRPC_INVALID_REQUEST, "object", false);
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"b\"}",
                 JSONRPC_PARSE_ERROR, "duplicate", false);
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"a\"}", JSONRPC_PARSE_ERROR,
                 "Parse error", false);
}

static void huge_id_refused(void **state)
{
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"");
    for (int i = 0; i < 5000; i++)
        strbuf_putc(&sb, 'x');
    strbuf_puts(&sb, "\"}");
    expect_error(sb.data, JSONRPC_INVALID_REQUEST, "at most 1024", false);
    strbuf_finish(&sb);
}

static void deep_nesting_is_an_error(void **state)
{
    struct strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < 10000; i++)
        strbuf_putc(&sb, '[');
    for (int i = 0; i < 10000; i++)
        strbuf_putc(&sb, ']');
    expect_error(sb.data, JSONRPC_PARSE_ERROR, "Parse error", false);
    strbuf_finish(&sb);
}

static void ids_echo_exactly(void **state)
{
    const char *ids[] = {"9223372036854775807", "-9223372036854775808", "\"req-\\u00e9\"", "0"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", ids[i]);
        struct jsonrpc_message m;
        char *err;
        json_t *id;
        assert_int_equal(parse(text, &m, &err, &id), 0);
        json_t *reply = jsonrpc_result(m.id, json_object());
        char *out = json_dumps(json_object_get(reply, "id"),
                               JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);
        assert_string_equal(out, i == 2 ? "\"req-\\u00E9\"" : ids[i]);
        free(out);
        json_decref(reply);
        jsonrpc_message_finish(&m);
    }
}

static void error_builder(void **state)
{
    json_t *e = jsonrpc_error(NULL, JSONRPC_METHOD_NOT_FOUND, "Method not found: x", NULL);
    assert_true(json_is_null(json_object_get(e, "id")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "error"), "code")),
                     -32601);
    json_decref(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(request_notification_response),
        cmocka_unit_test(invalid_messages),
        cmocka_unit_test(huge_id_refused),
        cmocka_unit_test(deep_nesting_is_an_error),
        cmocka_unit_test(ids_echo_exactly),
        cmocka_unit_test(error_builder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
