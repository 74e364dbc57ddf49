#include "mcp/registry.h"

#include "core/xmalloc.h"
#include "mcp/tool_groups.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tool_entry *entries;
static size_t count, cap;
/* Open addressing over entries by name: index + 1, 0 when free. Every
 * call looks its tool up, and comparing names one by one through fifty
 * tools was 2% of a trivial call's instructions. */
static uint32_t *slots;
static size_t n_slots; /* a power of two, at least twice count */

static size_t name_hash(const char *name)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

static void slot_put(size_t index)
{
    size_t i = name_hash(entries[index].tool->name) & (n_slots - 1);
    while (slots[i])
        i = (i + 1) & (n_slots - 1);
    slots[i] = (uint32_t)index + 1;
}

static void index_added(void)
{
    if (count * 2 <= n_slots) {
        slot_put(count - 1);
        return;
    }
    free(slots);
    n_slots = 64;
    while (n_slots < count * 4)
        n_slots *= 2;
    slots = xcalloc(n_slots, sizeof *slots);
    for (size_t i = 0; i < count; i++)
        slot_put(i);
}

struct absent {
    char *name;
    char *why;
};
static struct absent *absent;
static size_t absent_count;

/* serve --tools: the groups served (NULL: all). */
static char **served_groups;
/* The groups tools/list shows when no --tools was given (NULL: every group
 * served): the default set, while the other groups stay callable by name. */
static char **listed_groups;
/* serve --output-schemas: list each tool's outputSchema in tools/list. */
static bool list_output_schemas;

void registry_serve_groups(char **groups)
{
    tool_groups_free(served_groups);
    served_groups = groups && groups[0] ? groups : NULL;
    if (!served_groups)
        tool_groups_free(groups);
}

void registry_list_groups(char **groups)
{
    tool_groups_free(listed_groups);
    listed_groups = groups;
}

bool registry_listed(const struct tool_entry *e)
{
    if (!listed_groups || !e->tool->group)
        return true;
    for (char **g = listed_groups; *g; g++)
        if (strcmp(*g, e->tool->group) == 0)
            return true;
    return false;
}

void registry_list_output_schemas(bool on)
{
    list_output_schemas = on;
}

static bool group_served(const char *group)
{
    if (!served_groups || !group)
        return true;
    for (char **g = served_groups; *g; g++)
        if (strcmp(*g, group) == 0)
            return true;
    return false;
}

static json_t *parse_schema(const struct tool *t, const char *text, const char *which)
{
    json_error_t err;
    json_t *s = json_loads(text, 0, &err);
    if (!s || !json_is_object(s)) {
        fprintf(stderr, "glovebox: tool %s: invalid %s schema: %s (line %d)\n", t->name, which,
                err.text, err.line);
        abort();
    }
    return s;
}

json_t *registry_error_schema(void)
{
    json_t *codes = json_array();
    for (int c = 0; c <= ERROR_CODE_LAST; c++)
        json_array_append_new(codes, json_string(error_code_name((enum error_code)c)));
    return json_pack("{s:s, s:s, s:{s:{s:s, s:o}, s:{s:s}}, s:[s, s], s:b}", "type", "object",
                     "description",
                     "Present only when the call failed (isError): what went wrong, with a code "
                     "from docs/errors.md.",
                     "properties", "code", "type", "string", "enum", codes, "message", "type",
                     "string", "required", "code", "message", "additionalProperties", 0);
}

/* Failed calls answer with structuredContent {"error": {code, message}}
 * (docs/errors.md), and clients check structuredContent against the output
 * schema even on isError results (the TypeScript SDK's callTool does). So
 * every output schema admits that shape, from one fragment, whatever file
 * the tool's schema comes from: "error" is a property, and the tool's own
 * required fields apply to results without it. */
static void admit_error_result(json_t *schema)
{
    json_t *props = json_object_get(schema, "properties");
    if (!json_is_object(props)) {
        props = json_object();
        json_object_set_new(schema, "properties", props);
    }
    json_object_set_new(props, "error", registry_error_schema());
    json_t *required = json_object_get(schema, "required");
    if (!json_is_array(required) || json_array_size(required) == 0)
        return;
    json_t *either = json_pack("[{s:O}, {s:[s]}]", "required", required, "required", "error");
    json_object_del(schema, "required");
    if (!json_object_get(schema, "anyOf")) {
        json_object_set_new(schema, "anyOf", either);
        return;
    }
    json_t *all = json_object_get(schema, "allOf");
    if (!json_is_array(all)) {
        all = json_array();
        json_object_set_new(schema, "allOf", all);
    }
    json_array_append_new(all, json_pack("{s:o}", "anyOf", either));
}

/* Keywords that only bound what the server accepts (string lengths,
 * patterns, array sizes, numeric ranges): tools/list leaves them out, since
 * every client hands the list to its model and they were a fifth of it. The
 * server still validates against the whole schema and names the field and
 * its limit when a call breaks one (docs/tools.md). */
static const char *const limit_keywords[] = {
    "minLength", "maxLength", "pattern",          "minItems",         "maxItems",
    "minimum",   "maximum",   "exclusiveMinimum", "exclusiveMaximum",
};

static json_t *without_limits(const json_t *schema)
{
    if (json_is_array(schema)) {
        json_t *out = json_array();
        size_t i;
        json_t *v;
        json_array_foreach(schema, i, v) json_array_append_new(out, without_limits(v));
        return out;
    }
    if (!json_is_object(schema))
        return json_deep_copy(schema);
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)schema, k, v)
    {
        bool limit = false;
        for (size_t i = 0; i < sizeof limit_keywords / sizeof limit_keywords[0]; i++)
            limit |= strcmp(k, limit_keywords[i]) == 0;
        /* A property called "maximum" is a name, not the keyword. */
        if (limit && !json_is_object(v))
            continue;
        json_object_set_new(out, k, without_limits(v));
    }
    return out;
}

void registry_add(const struct tool *tool)
{
    if (tool->group && !tool_group_known(tool->group)) {
        fprintf(stderr, "glovebox: tool %s: group \"%s\" is not in mcp/tool_groups.c\n", tool->name,
                tool->group);
        abort();
    }
    if (!group_served(tool->group)) {
        /* A policy written for every group may still name it. */
        char *why = xasprintf("a tool of the group \"%s\", which this server does not serve "
                              "(glovebox serve --tools)",
                              tool->group);
        registry_add_absent(tool->name, why);
        free(why);
        return;
    }
    if (registry_find(tool->name)) {
        fprintf(stderr, "glovebox: tool %s registered twice\n", tool->name);
        abort();
    }
    if (count == cap) {
        cap = cap ? cap * 2 : 32;
        entries = xrealloc(entries, cap * sizeof *entries);
    }
    struct tool_entry *e = &entries[count++];
    e->tool = tool;
    index_added();
    e->input_schema = parse_schema(tool, tool->input_schema, "input");
    e->listed_input = without_limits(e->input_schema);
    e->output_schema =
        tool->output_schema ? parse_schema(tool, tool->output_schema, "output") : NULL;
    if (e->output_schema)
        admit_error_result(e->output_schema);
}

void registry_clear(void)
{
    for (size_t i = 0; i < count; i++) {
        json_decref(entries[i].input_schema);
        json_decref(entries[i].listed_input);
        json_decref(entries[i].output_schema);
    }
    free(entries);
    entries = NULL;
    count = cap = 0;
    free(slots);
    slots = NULL;
    n_slots = 0;
    for (size_t i = 0; i < absent_count; i++) {
        free(absent[i].name);
        free(absent[i].why);
    }
    free(absent);
    absent = NULL;
    absent_count = 0;
    registry_serve_groups(NULL);
    registry_list_groups(NULL);
    list_output_schemas = false;
}

void registry_add_absent(const char *name, const char *why)
{
    absent = xrealloc(absent, (absent_count + 1) * sizeof *absent);
    absent[absent_count++] = (struct absent){xstrdup(name), xstrdup(why)};
}

const char *registry_absent_why(const char *name)
{
    for (size_t i = 0; i < absent_count; i++)
        if (strcmp(absent[i].name, name) == 0)
            return absent[i].why;
    return NULL;
}

const char *registry_absent_at(size_t index, const char **why)
{
    if (index >= absent_count)
        return NULL;
    *why = absent[index].why;
    return absent[index].name;
}

size_t registry_count(void)
{
    return count;
}

const struct tool_entry *registry_at(size_t index)
{
    return index < count ? &entries[index] : NULL;
}

const struct tool_entry *registry_find(const char *name)
{
    if (!n_slots)
        return NULL;
    for (size_t i = name_hash(name) & (n_slots - 1); slots[i]; i = (i + 1) & (n_slots - 1))
        if (strcmp(entries[slots[i] - 1].tool->name, name) == 0)
            return &entries[slots[i] - 1];
    return NULL;
}

json_t *registry_tool_json(const struct tool_entry *e, bool with_title_and_output,
                           bool with_annotations)
{
    const struct tool *t = e->tool;
    json_t *o = json_pack("{s:s, s:s, s:O}", "name", t->name, "description", t->description,
                          "inputSchema", e->listed_input);
    if (with_title_and_output) {
        json_object_set_new(o, "title", json_string(t->title));
        /* Listed only on request: clients hand tools/list to the model, and
         * the output schemas were over a third of it; without one a client
         * takes structuredContent as it comes (the spec makes it optional). */
        if (e->output_schema && list_output_schemas)
            json_object_set(o, "outputSchema", e->output_schema);
    }
    if (with_annotations) {
        const struct tool_annotations *a = &t->annotations;
        json_t *ann =
            json_pack("{s:b, s:b}", "readOnlyHint", a->read_only, "openWorldHint", a->open_world);
        /* The tool's own title says it since 2025-06-18; older clients read
         * it here. */
        if (!with_title_and_output)
            json_object_set_new(ann, "title", json_string(t->title));
        /* destructive/idempotent only mean something for tools that write. */
        if (!a->read_only) {
            json_object_set_new(ann, "destructiveHint", json_boolean(a->destructive));
            json_object_set_new(ann, "idempotentHint", json_boolean(a->idempotent));
        }
        json_object_set_new(o, "annotations", ann);
    }
    return o;
}
