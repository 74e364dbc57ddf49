/* open_url: load a page in a webdriver session's browser. Only http: and
 * https: pages: file: would read the machine's files, javascript: runs code
 * in whatever page is open, chrome: reaches the browser's own settings. */
#include "backend/backend.h"
#include "backend/webdriver/url.h"
#include "backend/webdriver/webdriver.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "mcp/confirm.h"
#include "open_url.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    char *err = NULL;
    if (!wd_url_check_http("url", args_string(tool_call_args(call), "url", ""), &err)) {
        tool_call_fail_code(call, ERROR_DENIED, "cannot open the URL: %s", err);
        free(err);
        return;
    }
    screen_call_run(call, BACKEND_OP(open_url), "open a URL", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const char *url = json_string_value(json_object_get(args, "url"));
    if (!url)
        return false;
    char *shown = wd_url_display(url);
    json_t *v = json_string(shown);
    free(shown);
    if (!v)
        return false;
    strbuf_puts(q, "open ");
    confirm_quote_json(q, v, CONFIRM_QUOTE_MAX);
    json_decref(v);
    confirm_session_phrase(q, args, "in");
    return true;
}

static const struct tool_rule_args rule_args = {.host = "url"};

const struct tool tool_open_url = {
    .name = "open_url",
    .group = "webdriver",
    .title = "Open a URL",
    .description = "Loads an http(s) URL in a browser session and returns the page title.",
    .input_schema = tool_open_url_input_schema,
    .output_schema = tool_open_url_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
    .confirm_phrase = confirm_phrase,
};
