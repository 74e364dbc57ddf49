/* The tool registry: every real tool has valid schemas and honest
 * annotations, in a fixed order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "mcp/registry.h"
#include "mcp/tool_groups.h"
#include "tools/tools.h"

static void every_tool_is_well_formed(void **state)
{
    tools_register_all();
    assert_true(registry_count() >= 3);
    for (size_t i = 0; i < registry_count(); i++) {
        const struct tool_entry *e = registry_at(i);
        const struct tool *t = e->tool;
        assert_non_null(t->handler);
        assert_true(strlen(t->description) > 20);
        assert_non_null(t->title);
        /* Every tool states its --tools group (mcp/tool_groups.c). */
        assert_non_null(t->group);
        assert_true(tool_group_known(t->group));
        /* Inputs are always objects and refuse arguments they do not know. */
        assert_string_equal(json_string_value(json_object_get(e->input_schema, "type")), "object");
        assert_true(json_is_false(json_object_get(e->input_schema, "additionalProperties")));
        if (e->output_schema)
            assert_string_equal(json_string_value(json_object_get(e->output_schema, "type")),
                                "object");
        /* Names are snake_case and unique (registry_add aborts on duplicates). */
        for (const char *p = t->name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || *p == '_');
        assert_ptr_equal(registry_find(t->name), e);
    }
    registry_clear();
}

static void tool_json_follows_version(void **state)
{
    tools_register_all();
    const struct tool_entry *e = registry_find("status");
    assert_non_null(e);
    json_t *plain = registry_tool_json(e, true, true);
    assert_null(json_object_get(plain, "outputSchema")); /* only with --output-schemas */
    assert_null(json_object_get(json_object_get(plain, "annotations"), "title"));
    json_decref(plain);
    registry_list_output_schemas(true);
    json_t *full = registry_tool_json(e, true, true);
    assert_non_null(json_object_get(full, "outputSchema"));
    assert_non_null(json_object_get(full, "title"));
    assert_true(
        json_is_true(json_object_get(json_object_get(full, "annotations"), "readOnlyHint")));
    json_t *old = registry_tool_json(e, false, false);
    assert_null(json_object_get(old, "outputSchema"));
    assert_null(json_object_get(old, "annotations"));
    json_t *mid = registry_tool_json(e, false, true);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(mid, "annotations"), "title")),
        e->tool->title);
    json_decref(full);
    json_decref(old);
    json_decref(mid);
    /* Order is registration order, stable across calls. */
    /* The first kind built starts the list with its start tool. */
#if GLOVEBOX_KIND_TERMINAL
    assert_string_equal(registry_at(0)->tool->name, "terminal_start");
#elif GLOVEBOX_KIND_DESKTOP
    assert_string_equal(registry_at(0)->tool->name, "desktop_start");
#endif
    registry_clear();
    assert_int_equal(registry_count(), 0);
}

static void noop(struct tool_call *call)
{
    (void)call;
}

/* Failed calls answer {"error": {code, message}}; every output schema must
 * admit it whatever its own shape, and still require its fields otherwise. */
static void output_schemas_admit_errors(void **state)
{
    static const struct tool plain = {
        .name = "plain",
        .title = "Plain",
        .description = "a tool whose output has no required fields",
        .input_schema = "{\"type\":\"object\",\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}",
        .handler = noop,
    };
    static const struct tool either = {
        .name = "either",
        .title = "Either",
        .description = "a tool whose output schema has its own anyOf",
        .input_schema = "{\"type\":\"object\",\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"required\":[\"id\"],"
                         "\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}",
        .handler = noop,
    };
    registry_add(&plain);
    registry_add(&either);
    json_t *p = registry_find("plain")->output_schema;
    json_t *error = json_object_get(json_object_get(p, "properties"), "error");
    assert_non_null(json_object_get(json_object_get(p, "properties"), "n"));
    json_t *want = registry_error_schema();
    assert_true(json_equal(error, want));
    assert_null(json_object_get(p, "required"));
    assert_null(json_object_get(p, "anyOf"));
    /* The codes of core/error_code.h, in order, tool_failed first. */
    json_t *codes =
        json_object_get(json_object_get(json_object_get(want, "properties"), "code"), "enum");
    assert_int_equal(json_array_size(codes), ERROR_CODE_LAST + 1);
    assert_string_equal(json_string_value(json_array_get(codes, 0)), "tool_failed");
    assert_string_equal(json_string_value(json_array_get(codes, ERROR_TIMEOUT)), "timeout");
    json_decref(want);

    json_t *e = registry_find("either")->output_schema;
    assert_null(json_object_get(e, "required"));
    assert_int_equal(json_array_size(json_object_get(e, "anyOf")), 2); /* its own, untouched */
    json_t *all = json_object_get(e, "allOf");
    assert_int_equal(json_array_size(all), 1);
    json_t *alt = json_object_get(json_array_get(all, 0), "anyOf");
    json_t *expect = json_loads("[{\"required\":[\"id\"]},{\"required\":[\"error\"]}]", 0, NULL);
    assert_true(json_equal(alt, expect));
    json_decref(expect);
    registry_clear();
}

/* Each kind's start tools are named in every build: registered when the
 * kind is built (and then the names match), known as absent, with the kind
 * and the meson option, when it is not. */
static void kinds_name_their_tools(void **state)
{
    (void)state;
    tools_register_all();
    int n;
    const struct backend_kind *k = backend_kinds(&n);
    for (int i = 0; i < n; i++) {
        size_t named = 0;
        for (const char *const *name = k[i].tool_names; name && *name; name++, named++) {
            if (k[i].module) {
                assert_non_null(registry_find(*name));
                assert_string_equal(k[i].tools[named]->name, *name);
                assert_null(registry_absent_why(*name));
            } else {
                assert_null(registry_find(*name));
                const char *why = registry_absent_why(*name);
                assert_non_null(why);
                assert_non_null(strstr(why, k[i].kind));
                assert_non_null(strstr(why, "=disabled"));
            }
        }
        if (k[i].module) {
            size_t tools = 0;
            while (k[i].tools && k[i].tools[tools])
                tools++;
            assert_int_equal(tools, named);
        }
    }
    registry_clear();
}

/* tools/list leaves out the limits, which arguments are still checked
 * against; a property that happens to be called like a keyword stays. */
static void listed_schemas_leave_out_limits(void **state)
{
    (void)state;
    static const struct tool t = {
        .name = "limited",
        .title = "Limited",
        .description = "a tool whose input has limits",
        .input_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
                        "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3,"
                        "\"description\":\"d\"},"
                        "\"s\":{\"type\":\"string\",\"minLength\":1,\"pattern\":\"^a\"},"
                        "\"pattern\":{\"type\":\"array\",\"maxItems\":2}}}",
        .handler = noop,
    };
    registry_add(&t);
    const struct tool_entry *e = registry_find("limited");
    json_t *want = json_loads("{\"type\":\"object\",\"additionalProperties\":false,"
                              "\"properties\":{\"n\":{\"type\":\"integer\",\"description\":"
                              "\"d\"},\"s\":{\"type\":\"string\"},\"pattern\":{\"type\":"
                              "\"array\"}}}",
                              0, NULL);
    json_t *listed = registry_tool_json(e, true, true);
    assert_true(json_equal(json_object_get(listed, "inputSchema"), want));
    assert_int_equal(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(e->input_schema, "properties"), "n"), "maximum")),
        3);
    json_decref(listed);
    json_decref(want);
    registry_clear();
}

/* serve --tools: only the named groups are registered; the others' tools are
 * absent, and say which group would serve them. */
static void groups_select_tools(void **state)
{
    (void)state;
    char *err = NULL;
    registry_serve_groups(tool_groups_parse("server", &err));
    tools_register_all();
    assert_non_null(registry_find("status"));
    assert_null(registry_find("screenshot"));
    const char *why = registry_absent_why("screenshot");
    assert_non_null(why);
    assert_non_null(strstr(why, "\"perception\""));
    assert_non_null(strstr(why, "--tools"));
    registry_clear();

    /* registry_clear forgets the choice: every group again. */
    tools_register_all();
    assert_non_null(registry_find("screenshot"));
    registry_clear();

    char **d = tool_groups_parse(" default , windows,default", &err);
    assert_non_null(d);
    size_t n = 0;
    bool windows = false, perception = false;
    for (char **g = d; *g; g++, n++) {
        windows |= strcmp(*g, "windows") == 0;
        perception |= strcmp(*g, "perception") == 0;
    }
    assert_true(windows && perception);
    size_t count, defaults = 0;
    const struct tool_group *all = tool_groups(&count);
    for (size_t i = 0; i < count; i++)
        defaults += all[i].by_default;
    assert_int_equal(n, defaults + 1); /* each group once */
    tool_groups_free(d);

    char **every = tool_groups_parse("all", &err);
    assert_non_null(every);
    assert_null(every[0]);
    tool_groups_free(every);

    assert_null(tool_groups_parse("input,bogus", &err));
    assert_non_null(strstr(err, "unknown tool group \"bogus\""));
    assert_non_null(strstr(err, "perception"));
    free(err);
    err = NULL;
    assert_null(tool_groups_parse("input,,server", &err));
    assert_non_null(strstr(err, "empty tool group"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_tool_is_well_formed),
        cmocka_unit_test(tool_json_follows_version),
        cmocka_unit_test(output_schemas_admit_errors),
        cmocka_unit_test(kinds_name_their_tools),
        cmocka_unit_test(listed_schemas_leave_out_limits),
        cmocka_unit_test(groups_select_tools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
