/* The tools this server offers, in a fixed order (registration order, which
 * groups them by purpose), with their schemas parsed once. */
#pragma once
#include "mcp/tool.h"

#include <jansson.h>
#include <stddef.h>

struct tool_entry {
    const struct tool *tool;
    json_t *input_schema;  /* parsed, owned: what arguments are validated against */
    json_t *listed_input;  /* owned: the same without the limits tools/list leaves out */
    json_t *output_schema; /* parsed, owned; NULL if none */
};

/* The schema of structuredContent.error on a failed call ({code, message},
 * the codes of core/error_code.h), new. Added to every output schema at
 * registration, so tools' own schemas never spell it. */
json_t *registry_error_schema(void);
/* Add a tool. Aborts on an invalid schema or a duplicate name: both are
 * programming errors caught by the first test run. */
void registry_add(const struct tool *tool);
/* Serve only the tools of these groups (mcp/tool_groups.h; list stolen,
 * NULL or empty: every group); call before registering. A tool of another
 * group is recorded as absent, so calling it answers "unknown tool". */
void registry_serve_groups(char **groups);
/* List only the tools of these groups in tools/list (list stolen; NULL:
 * every tool served); the others are still served to calls by name. */
void registry_list_groups(char **groups);
/* Whether tools/list shows e. */
bool registry_listed(const struct tool_entry *e);
/* Whether tools/list shows each tool's outputSchema (default not: see
 * registry_tool_json). Results conform to it either way. */
void registry_list_output_schemas(bool on);
void registry_clear(void);
size_t registry_count(void);
const struct tool_entry *registry_at(size_t index);
const struct tool_entry *registry_find(const char *name);
/* A tool glovebox has but this build does not (its kind was configured
 * out): a policy written for a fuller build may name it, and is told why it
 * has no effect instead of being refused. why: "a tool of terminal
 * sessions, which …" (copied). registry_clear forgets them. */
void registry_add_absent(const char *name, const char *why);
/* Why name is absent from this build, or NULL (present, or unknown). */
const char *registry_absent_why(const char *name);
/* The index-th absent tool's name (and *why), or NULL past the last. */
const char *registry_absent_at(size_t index, const char **why);
/* The tool's description as tools/list shows it. legacy_fields: which fields
 * the negotiated protocol version knows (title/outputSchema since
 * 2025-06-18, annotations since 2025-03-26). */
json_t *registry_tool_json(const struct tool_entry *e, bool with_title_and_output,
                           bool with_annotations);
