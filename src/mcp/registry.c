#include "mcp/registry.h"

#include "core/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tool_entry *entries;
static size_t count, cap;

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

void registry_add(const struct tool *tool)
{
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
    e->input_schema = parse_schema(tool, tool->input_schema, "input");
    e->output_schema =
        tool->output_schema ? parse_schema(tool, tool->output_schema, "output") : NULL;
}

void registry_clear(void)
{
    for (size_t i = 0; i < count; i++) {
        json_decref(entries[i].input_schema);
        json_decref(entries[i].output_schema);
    }
    free(entries);
    entries = NULL;
    count = cap = 0;
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
    for (size_t i = 0; i < count; i++)
        if (strcmp(entries[i].tool->name, name) == 0)
            return &entries[i];
    return NULL;
}

json_t *registry_tool_json(const struct tool_entry *e, bool with_title_and_output,
                           bool with_annotations)
{
    const struct tool *t = e->tool;
    json_t *o = json_pack("{s:s, s:s, s:O}", "name", t->name, "description", t->description,
                          "inputSchema", e->input_schema);
    if (with_title_and_output) {
        json_object_set_new(o, "title", json_string(t->title));
        if (e->output_schema)
            json_object_set(o, "outputSchema", e->output_schema);
    }
    if (with_annotations) {
        const struct tool_annotations *a = &t->annotations;
        json_t *ann = json_pack("{s:s, s:b, s:b}", "title", t->title, "readOnlyHint", a->read_only,
                                "openWorldHint", a->open_world);
        /* destructive/idempotent only mean something for tools that write. */
        if (!a->read_only) {
            json_object_set_new(ann, "destructiveHint", json_boolean(a->destructive));
            json_object_set_new(ann, "idempotentHint", json_boolean(a->idempotent));
        }
        json_object_set_new(o, "annotations", ann);
    }
    return o;
}
