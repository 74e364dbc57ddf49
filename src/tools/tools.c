#include "tools/tools.h"

#include "mcp/registry.h"

void tools_register_all(void)
{
    /* Sessions first, then perception, action, sync, server: the order a
     * model meets them in tools/list. */
    registry_add(&tool_session_list);
    registry_add(&tool_session_stop);
    registry_add(&tool_status);
}
