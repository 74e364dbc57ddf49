/* set_mode: the agent may lower its own privileges, never raise them. */
#include "core/app.h"
#include "core/args.h"
#include "mcp/server.h"
#include "policy/policy.h"
#include "set_mode.schema.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    struct app *app = tool_call_app(call);
    const char *want = args_string(tool_call_args(call), "mode", "");
    enum policy_mode mode;
    if (!policy_mode_parse(want, &mode)) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "\"mode\" must be passive, assist or autopilot, got \"%s\"", want);
        return;
    }
    if (!app->policy) {
        tool_call_fail_code(call, ERROR_NOT_SUPPORTED,
                            "No policy is in effect in this server, so there is no mode to set");
        return;
    }
    enum policy_mode now = policy_mode(app->policy);
    /* passive < assist < autopilot: the enum is ordered by privilege. */
    if (mode > now) {
        tool_call_fail_code(
            call, ERROR_DENIED,
            "set_mode can only lower privileges (autopilot → assist → passive); the "
            "mode is %s. Raising it to %s needs the person: glovebox serve --mode %s "
            "or \"mode\" in the policy file.",
            policy_mode_name(now), want, want);
        return;
    }
    char *visible_before = mcp_visible_tools(app);
    policy_set_mode(app->policy, mode);
    /* Passive hides every tool that changes anything: clients must hear. */
    mcp_tools_notify_if_changed(app, visible_before);
    tool_call_done(call, json_pack("{s:s, s:s}", "mode", want, "previous", policy_mode_name(now)),
                   "Mode is now %s (was %s)", want, policy_mode_name(now));
}

const struct tool tool_set_mode = {
    .name = "set_mode",
    .group = "server",
    .title = "Lower the mode",
    .description = "Lowers the server's mode: autopilot, then assist (changes need a person's OK), "
                   "then passive (observe only). Only a person can raise it.",
    .input_schema = tool_set_mode_input_schema,
    .output_schema = tool_set_mode_output_schema,
    .annotations = {.read_only = false, .idempotent = true},
    .handler = handle,
    .lowers_privilege = true,
};
