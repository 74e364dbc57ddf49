/* browser_logs: what the page said on its console and the requests that
 * failed, since the last call — read-only, for an agent to see why a page
 * misbehaves without a screenshot. */
#include "backend/backend.h"
#include "backend/webdriver/webdriver.h"
#include "browser_logs.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(browser_logs), "read the browser's logs", false);
}

const struct tool tool_browser_logs = {
    .name = "browser_logs",
    .title = "Browser console and failed requests",
    .description = "Console messages, page errors and failed network requests of a browser "
                   "session since the previous call (each entry is returned once).",
    .input_schema = tool_browser_logs_input_schema,
    .output_schema = tool_browser_logs_output_schema,
    .annotations = {.read_only = true, .destructive = false, .open_world = false},
    .handler = handle,
    .group = "webdriver",
};
