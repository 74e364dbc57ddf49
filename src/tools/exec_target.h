/* The file a tool is about to execute, resolved once (core/program_path.h)
 * and checked against the policy's commands rule as it is: the path this
 * returns is what the tool executes, with no search after the check. */
#pragma once
#include "mcp/tool.h"

/* argv[0] resolved with cwd (NULL: glovebox's) and path (the PATH the
 * program will get; NULL: glovebox's), then checked for tool. The absolute
 * path (malloc'd), or NULL after failing call (not found: tool_failed;
 * refused: denied, with the refusal). */
char *exec_target(struct tool_call *call, const char *tool, const char *const *argv,
                  const char *cwd, const char *path);

/* An app that is not a file of this machine (a phone's package): checked
 * against the commands rule as "/<kind>/<app>" (a rule lists
 * "/android/com.example.*"), again just before it starts. False after
 * failing call (denied, with the refusal). */
bool exec_target_app(struct tool_call *call, const char *tool, const char *kind, const char *app);
