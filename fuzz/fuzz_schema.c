/* libFuzzer harness: tool arguments (the input, parsed as JSON) validated
 * against every registered tool's input schema and a few fixed schemas that
 * use each keyword the validator supports. The error messages are built and
 * freed too, since a model reads them. */
#include "mcp/registry.h"
#include "mcp/schema.h"
#include "tools/tools.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

/* Shapes future screen tools will have: nested objects, arrays of objects,
 * maps, alternatives, patterns, numeric ranges, nullable types. */
static const char *const fixed_schemas[] = {
    /* terminal_start-like */
    "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":1},"
    "\"minItems\":1,\"maxItems\":64},"
    "\"cols\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":1000},"
    "\"rows\":{\"type\":\"integer\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1001},"
    "\"env\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"name\":{\"type\":[\"string\",\"null\"],\"maxLength\":64,"
    "\"pattern\":\"^[A-Za-z0-9_.-]+$\"}},"
    "\"required\":[\"command\"],\"additionalProperties\":false}",
    /* click-like: one of three ways to say where */
    "{\"type\":\"object\",\"properties\":{"
    "\"session\":{\"type\":\"string\",\"minLength\":1},"
    "\"x\":{\"type\":\"number\"},\"y\":{\"type\":\"number\"},"
    "\"ref\":{\"type\":\"string\",\"pattern\":\"^e[0-9]+$\"},"
    "\"button\":{\"enum\":[\"left\",\"middle\",\"right\"]},"
    "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3}},"
    "\"oneOf\":[{\"required\":[\"x\",\"y\"]},{\"required\":[\"ref\"]},"
    "{\"required\":[\"text\"]}],\"additionalProperties\":true}",
    /* overlay_draw-like: arrays of tagged objects */
    "{\"type\":\"object\",\"properties\":{"
    "\"shapes\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"kind\":{\"const\":\"rect\"},"
    "\"bounds\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":4,"
    "\"maxItems\":4},"
    "\"label\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}},"
    "\"required\":[\"kind\",\"bounds\"],\"additionalProperties\":false}}},"
    "\"required\":[\"shapes\"]}",
    /* non-object schemas and odd keyword values */
    "{\"type\":[\"integer\",\"boolean\",\"array\"],\"items\":true,\"minimum\":-1e300,"
    "\"maxLength\":-1,\"minItems\":-5}",
    "{\"anyOf\":[{\"type\":\"string\",\"pattern\":\"(a|b)*c{2,3}\"},"
    "{\"type\":\"object\",\"additionalProperties\":{\"anyOf\":[{\"type\":\"integer\"},"
    "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}]}}]}",
    "true",
};

#define N_FIXED (sizeof fixed_schemas / sizeof fixed_schemas[0])
static json_t *schemas[N_FIXED];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    tools_register_all();
    for (size_t i = 0; i < N_FIXED; i++) {
        json_error_t e;
        schemas[i] = json_loads(fixed_schemas[i], JSON_DECODE_ANY, &e);
        if (!schemas[i]) {
            fprintf(stderr, "fuzz_schema: fixed schema %zu: %s\n", i, e.text);
            abort();
        }
    }
    return 0;
}

static void check(const json_t *schema, const json_t *value)
{
    char *err = NULL;
    bool ok = schema_validate(schema, value, &err);
    if (!ok && !err) {
        fputs("fuzz_schema: validation failed without a message\n", stderr);
        abort();
    }
    free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Tool arguments arrive as any JSON value; the protocol engine only
     * passes objects, but the validator recurses into every kind. */
    json_t *value = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!value)
        return 0;
    for (size_t i = 0; i < registry_count(); i++)
        check(registry_at(i)->input_schema, value);
    for (size_t i = 0; i < N_FIXED; i++)
        check(schemas[i], value);
    /* The same value as a (hostile) schema for describe, which tools/list
     * errors and argument messages use. */
    free(schema_describe(value));
    json_decref(value);
    return 0;
}
