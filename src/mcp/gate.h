/* The hook through which a permission policy decides which tools a client
 * sees and may call. The protocol engine only asks; the answers come from
 * whoever installs the gate at start-up (src/policy/). No gate: everything
 * is visible and admitted (tests, fuzzing). */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct tool;

struct mcp_gate {
    /* Whether tools/list shows the tool. */
    bool (*visible)(void *ud, const struct tool *tool);
    /* NULL when the call may go ahead; otherwise a malloc'd message for the
     * client saying why not and how to allow it. args are validated. */
    char *(*admit)(void *ud, const struct tool *tool, const json_t *args);
    void *ud;
};
