#include "tools/host_rules.h"

#include "core/app.h"
#include "policy/policy.h"
#include "tools/tools.h"

#include <stdlib.h>

bool host_rules_listed(struct tool_call *call, const char *tool)
{
    const struct policy *p = tool_call_app(call)->policy;
    json_t *d = policy_describe(p);
    const json_t *hosts =
        json_object_get(json_object_get(json_object_get(d, "rules"), tool), "hosts");
    bool ok = json_array_size(hosts) > 0;
    json_decref(d);
    if (!ok)
        return false;
    char *refusal = policy_check_arguments(p, tool, tool_call_args(call));
    free(refusal);
    return refusal == NULL;
}
