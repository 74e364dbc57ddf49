#include "tools/exec_target.h"

#include "core/app.h"
#include "core/program_path.h"
#include "core/xmalloc.h"
#include "policy/policy.h"
#include "tools/tools.h"

#include <stdlib.h>

static bool refused(struct tool_call *call, char *refusal)
{
    if (!refusal)
        return false;
    tool_call_note(call, "decision", json_string("denied"));
    tool_call_fail_code(call, ERROR_DENIED, "%s", refusal);
    free(refusal);
    return true;
}

char *exec_target(struct tool_call *call, const char *tool, const char *const *argv,
                  const char *cwd, const char *path)
{
    char *err = NULL;
    char *file = program_path_resolve(argv[0], cwd, path, &err);
    if (!file) {
        tool_call_fail_code(call, ERROR_NOT_FOUND, "%s", err);
        free(err);
        return NULL;
    }
    /* The gate checked the same resolution; files can change while a person
     * confirms, so the path that runs is checked again here. */
    if (refused(call, policy_check_exec(tool_call_app(call)->policy, tool, file, argv))) {
        free(file);
        return NULL;
    }
    return file;
}

bool exec_target_app(struct tool_call *call, const char *tool, const char *kind, const char *app)
{
    char *path = xasprintf("/%s/%s", kind, app);
    const char *argv[] = {app, NULL};
    bool ok = !refused(call, policy_check_exec(tool_call_app(call)->policy, tool, path, argv));
    free(path);
    return ok;
}
