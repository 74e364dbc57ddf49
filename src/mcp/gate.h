/* The hook through which a permission policy decides which tools a client
 * sees and may call. The protocol engine only asks; the answers come from
 * whoever installs the gate at start-up (src/policy/). No gate: everything
 * is visible and admitted (tests, fuzzing). */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct tool;

enum mcp_admission {
    MCP_ADMIT,   /* run the tool */
    MCP_REFUSE,  /* do not run it; message says why and how to allow it */
    MCP_CONFIRM, /* run it only if a person confirms (src/mcp/confirm.c asks) */
};

struct mcp_verdict {
    enum mcp_admission admission;
    /* malloc'd or NULL. MCP_REFUSE: the text for the client. MCP_CONFIRM:
     * why the person is asked ("the mode is assist"), for the refusal when
     * the client cannot ask. */
    char *message;
    uint64_t confirm_timeout_ms; /* MCP_CONFIRM: an unanswered question declines after this */
    /* MCP_REFUSE: the decision for the audit log ("denied" when NULL,
     * "rate_limited", "paused"); static. */
    const char *decision;
};

struct mcp_gate {
    /* Whether tools/list shows the tool (tools that need confirmation are shown). */
    bool (*visible)(void *ud, const struct tool *tool);
    /* What to do with a call; args are validated. */
    struct mcp_verdict (*admit)(void *ud, const struct tool *tool, const json_t *args);
    void *ud;
};
