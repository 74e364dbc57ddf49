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
    char *abort_reason;  /* mcp_abort_calls: the answer becomes this error; NULL */
    bool hook_ran;       /* the cancel hook ran (it runs at most once) */
    struct tool_call *live_prev, *live_next; /* every call in flight */
    struct tool_call_hold *holds;            /* open audit holds (tool_call_hold) */
    /* Answered while held: what the record needs once the connection may be
     * gone, and the call's place on the list of held calls. */
    bool answered;
    uint64_t answered_ms; /* uv_now */
    json_t *client;       /* tool_call_client at the answer; owned */
    json_t *result;       /* the answer as sent (a copy); owned */
    struct tool_call *held_prev, *held_next;
    /* A call made by another tool (tool_call_spawn): told of the answer
     * instead of the client. */
    tool_call_spawn_fn spawn_done;
    void *spawn_ud;
    json_t *secrets; /* strings the audit log must not show; owned; NULL if none */
};

struct tool_call *tool_call_create(struct mcp_conn *c, const struct tool_entry *entry, json_t *args,
                                   json_t *id, void *stream, const struct request_ctx *rc);

/* Finish with a result that is not a CallToolResult (a 2026-07-28
 * input_required result); stolen. Frees the call. */
void tool_call_finish_raw(struct tool_call *call, json_t *result);

/* A created call through schema validation, the gate and confirmation to
 * its handler, as tools/call does; params are the tools/call params
 * (borrowed). Finishes or runs the call. */
void tool_call_admit(struct tool_call *call, const json_t *params);

/* Tools/call after admission (confirm.c): note the decision, run the handler. */
void tool_call_run(struct tool_call *call, const char *decision);

/* Ask a person to confirm call before it runs (confirm.c). params are the
 * tools/call params (borrowed; 2026-07-28 requestState and inputResponses);
 * why says why confirmation is needed (taken). Finishes or runs the call. */
void confirm_start(struct tool_call *call, const json_t *params, char *why, uint64_t timeout_ms);
