/* Argument validation: what the model is told when its call is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "mcp/schema.h"

static const char *const SCHEMA =
    "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1},"
    "\"cols\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":1000},"
    "\"format\":{\"type\":\"string\",\"enum\":[\"png\",\"jpeg\",\"webp\"]},"
    "\"name\":{\"type\":\"string\",\"maxLength\":4},"
    "\"env\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"target\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},"
    "\"id\":{\"type\":\"string\",\"pattern\":\"^[a-z]+-[0-9]+$\"}},"
    "\"required\":[\"command\"],\"additionalProperties\":false}";

static json_t *schema;

static int setup(void **state)
{
    schema = json_loads(SCHEMA, 0, NULL);
    return schema ? 0 : -1;
}

static int teardown(void **state)
{
    json_decref(schema);
    return 0;
}

static void expect_ok(const char *args)
{
    json_t *v = json_loads(args, 0, NULL);
    assert_non_null(v);
    char *err = NULL;
    bool ok = schema_validate(schema, v, &err);
    if (!ok)
        fail_msg("unexpected error: %s", err);
    json_decref(v);
}

static void expect_error(const char *args, const char *message)
{
    json_t *v = json_loads(args, 0, NULL);
    assert_non_null(v);
    char *err = NULL;
    assert_false(schema_validate(schema, v, &err));
    assert_string_equal(err, message);
    free(err);
    json_decref(v);
}

static void valid_arguments_pass(void **state)
{
    expect_ok("{\"command\":[\"bash\"]}");
    expect_ok("{\"command\":[\"vim\",\"x\"],\"cols\":80,\"format\":\"png\",\"env\":{\"A\":\"b\"},"
              "\"target\":3,\"id\":\"terminal-1\"}");
    expect_ok("{\"command\":[\"a\"],\"cols\":80.0}");        /* 80.0 is an integer in JSON Schema */
    expect_ok("{\"command\":[\"a\"],\"name\":\"日本語x\"}"); /* length counts characters */
}

static void errors_name_field_expectation_and_value(void **state)
{
    expect_error("{}", "missing required argument \"command\": expected array of strings");
    expect_error("{\"command\":\"bash\"}",
                 "argument \"command\": expected array of strings, got string \"bash\"");
    expect_error("{\"command\":[\"a\", 5]}",
                 "argument \"command[1]\": expected string, got integer 5");
    expect_error("{\"command\":[]}", "argument \"command\": must have at least 1 items, got array "
                                     "of 0 items");
    expect_error("{\"command\":[\"a\"],\"cols\":1}",
                 "argument \"cols\": must be at least 2, got integer 1");
    expect_error("{\"command\":[\"a\"],\"cols\":2.5}",
                 "argument \"cols\": expected integer, got number 2.5");
    expect_error("{\"command\":[\"a\"],\"format\":\"gif\"}",
                 "argument \"format\": expected one of \"png\", \"jpeg\", \"webp\", got string "
                 "\"gif\"");
    expect_error("{\"command\":[\"a\"],\"colz\":3}",
                 "unknown argument \"colz\"; valid arguments: command, cols, format, name, env, "
                 "target, id");
    expect_error("{\"command\":[\"a\"],\"env\":{\"PATH\":1}}",
                 "argument \"env.PATH\": expected string, got integer 1");
    expect_error("{\"command\":[\"a\"],\"name\":\"toolong\"}",
                 "argument \"name\": must be at most 4 characters long, got string \"toolong\"");
    expect_error("{\"command\":[\"a\"],\"target\":true}",
                 "argument \"target\": expected string or integer, got boolean true");
    expect_error("{\"command\":[\"a\"],\"id\":\"Terminal\"}",
                 "argument \"id\": must match the pattern ^[a-z]+-[0-9]+$, got string "
                 "\"Terminal\"");
}

static void describe_is_readable(void **state)
{
    json_t *s = json_loads("{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}", 0, NULL);
    char *d = schema_describe(s);
    assert_string_equal(d, "array of integers");
    free(d);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_arguments_pass),
        cmocka_unit_test(errors_name_field_expectation_and_value),
        cmocka_unit_test(describe_is_readable),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
