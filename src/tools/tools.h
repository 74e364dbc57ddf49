/* Every MCP tool glovebox offers. One file per tool; this header and
 * tools.c list them in the order tools/list shows them. */
#pragma once
#include "mcp/tool.h"

extern const struct tool tool_status;
extern const struct tool tool_session_list;
extern const struct tool tool_session_stop;

/* Register all tools (and the resource providers backends bring). */
void tools_register_all(void);
