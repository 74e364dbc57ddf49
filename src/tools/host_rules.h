/* Whether a tool's host argument may name another machine: only when the
 * person's policy lists hosts for that tool. The gate has already matched
 * the argument against that list; this tells a tool whose default is
 * loopback-only (android's adb_server) that the list exists. */
#pragma once
#include "mcp/tool.h"

#include <stdbool.h>

/* rules.<tool>.hosts is a non-empty list and the call's arguments still pass
 * the policy (it may have been reloaded while a person confirmed). No rule,
 * or a policy that allows everything, is false. */
bool host_rules_listed(struct tool_call *call, const char *tool);
