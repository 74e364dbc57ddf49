/* webdriver_connect: a session on a W3C WebDriver endpoint, or on a
 * chromedriver and headless Chromium glovebox starts and owns. Compiled
 * into the executable: the URL is checked (and the policy has seen its
 * host) before the module, with libcurl, is loaded. */
#include "backend/backend.h"
#include "backend/webdriver/url.h"
#include "backend/webdriver/webdriver.h"
#include "core/args.h"
#include "core/xmalloc.h"
#include "mcp/confirm.h"
#include "session/session.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "webdriver_connect.schema.h"

#include <string.h>

static void connected(void *ud, struct session *s, enum error_code code, const char *err)
{
    struct tool_call *call = ud;
    if (!s) {
        tool_call_fail_code(call, code, "%s", err);
        return;
    }
    json_t *out = session_to_json(s);
    const char *browser = json_string_value(json_object_get(out, "browser"));
    tool_call_done(call, out, "connected %s to %s (%s)", s->id,
                   json_string_value(json_object_get(out, "url")),
                   browser ? browser : "browser not named");
}

/* A slow start (a farm preparing a device) says what it waits for. */
static void progress(void *ud, const char *message)
{
    /* Progress only has to grow within a call: one counter serves all. */
    static unsigned steps;
    tool_call_progress(ud, ++steps, 0, message);
}

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    const char *url = args_string(a, "url", NULL);
    const char *attach = args_string(a, "attach", NULL);
    char *err = NULL;
    if (url && !wd_url_check_http("url", url, &err)) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    const char *provider = args_string(a, "provider", NULL);
    struct webdriver_farm farm = {
        .project_arn = args_string(a, "project_arn", NULL),
        .device_arn = args_string(a, "device_arn", NULL),
        .app_arn = args_string(a, "app_arn", NULL),
        .region = args_string(a, "region", NULL),
    };
    if (provider && (url || attach)) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "argument \"provider\": the farm makes the endpoint; give no url or "
                            "attach");
        return;
    }
    if (provider && (!farm.project_arn || !farm.device_arn)) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "provider \"aws-device-farm\" needs project_arn and device_arn");
        return;
    }
    if (!provider && (farm.project_arn || farm.device_arn || farm.app_arn || farm.region)) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "project_arn, device_arn, app_arn and region go with provider "
                            "\"aws-device-farm\"");
        return;
    }
    const char *cred_env = args_string(a, "credentials_env", NULL);
    char *with_creds = NULL;
    if (cred_env && url &&
        !(with_creds = wd_url_with_env_credentials("credentials_env", url, cred_env, &err))) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    if (cred_env && !url) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "argument \"credentials_env\" needs \"url\": the endpoint the "
                            "credentials are for");
        return;
    }
    if (with_creds)
        url = with_creds;
    if (attach && !url) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "argument \"attach\" needs \"url\": the endpoint where that session "
                            "lives");
        return;
    }
    const struct webdriver_api *wd = backend_load("webdriver", &err);
    if (!wd) {
        tool_call_fail_code(call, ERROR_DEVICE_UNAVAILABLE, "cannot connect: %s", err);
        free(err);
        free(with_creds);
        return;
    }
    struct session_client who;
    if (!screen_call_admit(call, &who)) {
        free(with_creds);
        return;
    }
    struct webdriver_options o = {
        .url = url,
        .capabilities = json_object_get(a, "capabilities"),
        .attach = attach,
        .name = args_string(a, "name", NULL),
        .timeout_ms = (long)args_int(a, "timeout_ms", 60000),
        .keepalive_s = (int)args_int(a, "keepalive_s", -1),
        .width = (int)args_int(a, "width", 1280),
        .height = (int)args_int(a, "height", 800),
        .credentials_env = cred_env,
        .farm = provider ? &farm : NULL,
        .progress = progress,
        .client = &who,
    };
    wd->connect(tool_call_app(call), &o, connected, call);
    free(with_creds);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const char *url = json_string_value(json_object_get(args, "url"));
    if (!url) {
        strbuf_puts(q, "start a headless Chromium browser");
        return true;
    }
    /* What a person reads never holds the credentials. */
    char *shown = wd_url_display(url);
    json_t *v = json_string(shown);
    free(shown);
    if (!v)
        return false;
    strbuf_puts(q, "connect to the WebDriver endpoint ");
    confirm_quote_json(q, v, CONFIRM_QUOTE_MAX);
    json_decref(v);
    return true;
}

static const struct tool_rule_args rule_args = {.host = "url"};

const struct tool tool_webdriver_connect = {
    .name = "webdriver_connect",
    .group = "webdriver",
    .title = "Connect to a browser or device (WebDriver)",
    .description = "Starts a browser or device session over W3C WebDriver (chromedriver, Appium, a "
                   "grid or farm; default: a headless Chromium of glovebox's own), or attaches to "
                   "one. Then open_url, screenshot, click, type_text, read_text.",
    .input_schema = tool_webdriver_connect_input_schema,
    .output_schema = tool_webdriver_connect_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = handle,
    .rule_args = &rule_args,
    .confirm_phrase = confirm_phrase,
};
