/* The inside of a tool call, for the protocol engine only. */
#pragma once
#include "mcp/internal.h"
#include "mcp/tool.h"

struct tool_call {
    struct pending p; /* first: a tool_call is a pending request */
    struct app *app;
    const struct tool_entry *entry;
    json_t *args; /* owned, validated */
    void *data;
    void (*cancel_hook)(struct tool_call *call);
    json_t *notes;       /* tool_call_note; owned */
    uint64_t started_ms; /* uv_now at arrival */
};

struct tool_call *tool_call_create(struct mcp_conn *c, const struct tool_entry *entry, json_t *args,
                                   json_t *id, void *stream, const struct request_ctx *rc);
