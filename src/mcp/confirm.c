/* Asking a person to confirm a tool call before it runs. Legacy sessions
 * (2025-11-25 and earlier) are asked with an elicitation/create request on
 * the call's own connection; stateless 2026-07-28 requests cannot be asked
 * anything, so the first tools/call answers input_required with the question
 * and a requestState (request_state.c), and the client calls again with the
 * answer. Either way the handler runs only after an explicit yes. */
#define LOG_MODULE "confirm"
#include "mcp/confirm.h"

#include "core/app.h"
#include "core/log.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "mcp/call.h"
#include "mcp/registry.h"
#include "mcp/request_state.h"

#include <stdlib.h>
#include <string.h>

/* The key of our question in inputRequests/inputResponses, and the form field. */
#define KEY "confirm"
/* Arguments shown in a generic question. */
#define GENERIC_ARGS_MAX 8

static bool invisible(uint32_t cp)
{
    /* C1 controls, zero-width and joiners, bidi marks, embeddings,
     * overrides and isolates, word joiner and friends, BOM. */
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
           cp == 0x061c || cp == 0x00ad;
}

void confirm_quote(struct strbuf *out, const char *s, size_t len, size_t max)
{
    strbuf_putc(out, '"');
    size_t i = 0, chars = 0;
    while (i < len && chars < max) {
        uint32_t cp;
        size_t n = utf8_decode((const unsigned char *)s + i, len - i, &cp);
        if (n == 0) {
            strbuf_printf(out, "\\x%02x", (unsigned char)s[i]);
            i++;
            chars++;
            continue;
        }
        if (cp == '"' || cp == '\\')
            strbuf_printf(out, "\\%c", (char)cp);
        else if (cp == '\n')
            strbuf_puts(out, "\\n");
        else if (cp == '\r')
            strbuf_puts(out, "\\r");
        else if (cp == '\t')
            strbuf_puts(out, "\\t");
        else if (cp < 0x20 || cp == 0x7f)
            strbuf_printf(out, "\\x%02x", (unsigned)cp);
        else if (invisible(cp))
            strbuf_printf(out, "\\u{%04x}", (unsigned)cp);
        else
            strbuf_append(out, s + i, n);
        i += n;
        chars++;
    }
    strbuf_putc(out, '"');
    if (i < len) {
        size_t more = utf8_length(s + i, len - i);
        strbuf_printf(out, " (cut short; %zu more character%s)", more, more == 1 ? "" : "s");
    }
}

void confirm_quote_json(struct strbuf *out, const json_t *v, size_t max)
{
    confirm_quote(out, json_string_value(v), json_string_length(v), max);
}

/* A value of any type, quoted: strings as themselves, the rest as compact
 * JSON (which escapes control characters; ENSURE_ASCII escapes the rest). */
void confirm_quote_value(struct strbuf *out, const json_t *v)
{
    if (json_is_string(v)) {
        confirm_quote_json(out, v, CONFIRM_QUOTE_MAX);
        return;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY | JSON_SORT_KEYS);
    if (!text) {
        strbuf_puts(out, "?");
        return;
    }
    size_t len = strlen(text);
    if (len > CONFIRM_QUOTE_MAX) {
        strbuf_append(out, text, CONFIRM_QUOTE_MAX);
        strbuf_printf(out, "… (cut short; %zu more characters)", len - CONFIRM_QUOTE_MAX);
    } else {
        strbuf_append(out, text, len);
    }
    free(text);
}

void confirm_session_phrase(struct strbuf *out, const json_t *args, const char *prep)
{
    const json_t *s = json_object_get(args, "session");
    if (json_is_string(s)) {
        strbuf_printf(out, " %s session ", prep);
        confirm_quote_json(out, s, 64);
    } else {
        strbuf_printf(out, " %s the current session", prep);
    }
}

/* A command array as one quoted line: ["bash", "-c", "x y"] -> "bash -c 'x y'"
 * would hide where arguments begin; each argument is quoted instead. */
void confirm_command_phrase(struct strbuf *out, const json_t *cmd)
{
    size_t i;
    const json_t *a;
    size_t total = 0;
    json_array_foreach(cmd, i, a)
    {
        if (i == 16) {
            strbuf_printf(out, " … (%zu more arguments)", json_array_size(cmd) - i);
            break;
        }
        if (i)
            strbuf_putc(out, ' ');
        if (json_is_string(a) && total < 1000) {
            confirm_quote_json(out, a, 100);
            total += json_string_length(a);
        } else {
            confirm_quote_value(out, a);
        }
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "call <tool> with <sorted arguments>", for tools without a phrase. */
static void generic_phrase(struct strbuf *q, const char *tool, const json_t *args)
{
    strbuf_puts(q, "call ");
    strbuf_puts(q, tool); /* a registered tool's name: [a-z_] */
    /* Sorted, so the same call always reads the same. */
    const char **keys = xcalloc(json_object_size(args) + 1, sizeof *keys);
    size_t n = 0;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)args, k, v) keys[n++] = k;
    qsort(keys, n, sizeof *keys, by_name);
    for (size_t i = 0; i < n && i < GENERIC_ARGS_MAX; i++) {
        strbuf_puts(q, i ? ", " : " with ");
        confirm_quote(q, keys[i], strlen(keys[i]), 40);
        strbuf_putc(q, '=');
        confirm_quote_value(q, json_object_get(args, keys[i]));
    }
    if (n > GENERIC_ARGS_MAX)
        strbuf_printf(q, " and %zu more arguments", n - GENERIC_ARGS_MAX);
    free(keys);
}

char *confirm_question(const char *tool, const json_t *args)
{
    struct strbuf q;
    strbuf_init(&q);
    strbuf_puts(&q, "Allow the agent to ");
    size_t mark = q.len;
    /* The tool says what it does with these arguments. */
    const struct tool_entry *e = registry_find(tool);
    if (!e || !e->tool->confirm_phrase || !e->tool->confirm_phrase(&q, args)) {
        q.len = mark; /* a phrase that gave up leaves nothing behind */
        q.data[q.len] = '\0';
        generic_phrase(&q, tool, args);
    }
    if (q.len > CONFIRM_QUESTION_MAX) {
        /* Many long arguments: what is shown stays inside its quotes. */
        q.len = utf8_truncate(q.data, q.len, CONFIRM_QUESTION_MAX);
        q.data[q.len] = '\0';
        strbuf_puts(&q, "… (the rest of the call is not shown)");
    }
    strbuf_putc(&q, '?');
    return strbuf_steal(&q);
}

/* Asking. */

struct confirm {
    char *why;
    uint64_t timeout_ms;
    struct tool_call *call;
    void *card;        /* shown through the hook (the viewer); NULL: not, or gone */
    int hook_answer;   /* 1 yes, -1 no, 0 none yet */
    char *by;          /* who answered through the hook */
    uv_timer_t *timer; /* no elicitation: the hook alone, until this fires */
};

static const struct confirm_hook *hook;

void confirm_set_hook(const struct confirm_hook *h)
{
    hook = h;
}

static void withdraw_card(struct confirm *cf)
{
    if (cf->card && hook)
        hook->withdraw(hook->ud, cf->card);
    cf->card = NULL;
}

static void confirm_free(struct confirm *cf)
{
    withdraw_card(cf);
    if (cf->timer) {
        uv_timer_stop(cf->timer);
        uv_close((uv_handle_t *)cf->timer, (uv_close_cb)free);
    }
    free(cf->by);
    free(cf->why);
    free(cf);
}

/* "name/version" of the client, or null. */
static json_t *asked_whom(struct tool_call *call)
{
    json_t *who = tool_call_client(call);
    const json_t *client = json_object_get(who, "client");
    const char *name = json_string_value(json_object_get(client, "name"));
    const char *version = json_string_value(json_object_get(client, "version"));
    json_t *by = json_null();
    if (name) {
        char *s = xasprintf("%s%s%s", name, version ? "/" : "", version ? version : "");
        by = utf8_json_string(s, strlen(s));
        free(s);
    }
    json_decref(who);
    return by;
}

static void note(struct tool_call *call, const char *decision, bool asked, const char *answer)
{
    tool_call_note(call, "decision", json_string(decision));
    tool_call_note(
        call, "confirmation",
        json_pack("{s:b, s:s, s:o}", "asked", asked, "answer", answer, "by", asked_whom(call)));
}

/* Form mode: {} means form only; an object naming modes must name "form". */
static bool can_ask(struct tool_call *call)
{
    if (!tool_call_client_can(call, "elicitation"))
        return false;
    const json_t *caps = call->p.modern ? call->p.client_caps
                         : call->p.conn ? call->p.conn->client_capabilities
                                        : NULL;
    const json_t *e = json_object_get(caps, "elicitation");
    return json_object_size(e) == 0 || json_is_object(json_object_get(e, "form"));
}

static json_t *elicit_params(struct tool_call *call, const struct confirm *cf)
{
    char *question = confirm_question(tool_call_tool_name(call), tool_call_args(call));
    char *message = xasprintf("%s\n\nglovebox asks because %s. No answer within %u s counts as "
                              "no.",
                              question, cf->why, (unsigned)(cf->timeout_ms / 1000));
    json_t *params =
        json_pack("{s:s, s:o, s:{s:s, s:{s:{s:s, s:s, s:s, s:b}}, s:[s]}}", "mode", "form",
                  "message", utf8_json_string(message, strlen(message)), "requestedSchema", "type",
                  "object", "properties", KEY, "type", "boolean", "title", "Allow this action",
                  "description", "Yes runs it once; no stops it.", "default", 0, "required", KEY);
    free(question);
    free(message);
    return params;
}

static void refuse_unsupported(struct tool_call *call, const struct confirm *cf)
{
    note(call, "denied", false, "unsupported");
    const char *tool = tool_call_tool_name(call);
    tool_call_fail_code(
        call, ERROR_DENIED,
        "Confirmation required: %s, so %s needs a person's confirmation before it "
        "runs, and this client cannot ask for it (it did not declare the "
        "\"elicitation\" capability with form mode). Use an MCP client that supports "
        "elicitation, or have the person allow %s without confirmation: set \"mode\" "
        "to \"autopilot\" in the policy file (or glovebox serve --mode autopilot), "
        "list %s in \"allow\" and not in \"confirm\" (see docs/policy.md).",
        cf->why, tool, tool, tool);
}

static void declined(struct tool_call *call, const struct confirm *cf, const char *answer)
{
    const char *tool = tool_call_tool_name(call);
    note(call, "declined", true, answer);
    if (strcmp(answer, "timeout") == 0)
        tool_call_fail_code(
            call, ERROR_TIMEOUT,
            "Declined: the person did not answer within %u s, so %s did not run. Ask "
            "the person before trying again.",
            (unsigned)(cf->timeout_ms / 1000), tool);
    else if (strcmp(answer, "cancel") == 0)
        tool_call_fail_code(
            call, ERROR_DENIED,
            "Declined: the person dismissed the question without allowing it, so %s "
            "did not run.",
            tool);
    else
        tool_call_fail_code(call, ERROR_DENIED, "Declined: the person said no, so %s did not run.",
                            tool);
}

/* Acts on an ElicitResult. False if it is not one (nothing done). */
static bool act_on_answer(struct tool_call *call, const struct confirm *cf, const json_t *result)
{
    const char *action = json_string_value(json_object_get(result, "action"));
    if (!action)
        return false;
    if (strcmp(action, "accept") == 0) {
        const json_t *content = json_object_get(result, "content");
        if (json_is_true(json_object_get(content, KEY))) {
            tool_call_note(call, "confirmation",
                           json_pack("{s:b, s:s, s:o}", "asked", 1, "answer", "accept", "by",
                                     asked_whom(call)));
            log_info("%s confirmed by the person", tool_call_tool_name(call));
            tool_call_run(call, "confirmed");
            return true;
        }
        /* Submitted the form with the box unticked: that is a no. */
        declined(call, cf, "decline");
        return true;
    }
    if (strcmp(action, "decline") == 0 || strcmp(action, "cancel") == 0) {
        declined(call, cf, action);
        return true;
    }
    return false;
}

/* The person answered through the hook (the viewer). */
static void act_on_hook_answer(struct tool_call *call, struct confirm *cf)
{
    if (cf->hook_answer > 0) {
        tool_call_note(call, "confirmation",
                       json_pack("{s:b, s:s, s:s}", "asked", 1, "answer", "accept", "by", cf->by));
        log_info("%s confirmed by the person (%s)", tool_call_tool_name(call), cf->by);
        tool_call_run(call, "confirmed");
    } else {
        tool_call_note(call, "decision", json_string("declined"));
        tool_call_note(call, "confirmation",
                       json_pack("{s:b, s:s, s:s}", "asked", 1, "answer", "decline", "by", cf->by));
        tool_call_fail_code(call, ERROR_DENIED, "Declined: the person said no, so %s did not run.",
                            tool_call_tool_name(call));
    }
}

static void answered(struct tool_call *call, const json_t *result, const char *error, void *ud)
{
    struct confirm *cf = ud;
    withdraw_card(cf);
    if (cf->hook_answer) {
        act_on_hook_answer(call, cf);
    } else if (call->abort_reason) {
        /* Paused while asking: finish() answers with the reason. */
        note(call, "paused", true, "interrupted");
        tool_call_fail_code(call, ERROR_DENIED,
                            "it was waiting for the person's confirmation, and %s did not run.",
                            tool_call_tool_name(call));
    } else if (tool_call_cancelled(call)) {
        note(call, "cancelled", true, "cancel");
        tool_call_fail(call, "the request was cancelled while waiting for confirmation");
    } else if (error && strcmp(error, ASK_TIMED_OUT) == 0) {
        declined(call, cf, "timeout");
    } else if (error) {
        note(call, "declined", true, "error");
        tool_call_fail_code(call, ERROR_DENIED, "Not confirmed: %s, so %s did not run.", error,
                            tool_call_tool_name(call));
    } else if (!act_on_answer(call, cf, result)) {
        note(call, "declined", true, "error");
        tool_call_fail_code(call, ERROR_DENIED,
                            "Not confirmed: the client's answer to the confirmation was not an "
                            "elicitation result (no \"action\"), so %s did not run.",
                            tool_call_tool_name(call));
    }
    confirm_free(cf);
}

/* 2026-07-28: ask by answering input_required. */
static void input_required(struct tool_call *call, const struct confirm *cf)
{
    uint64_t expires = uv_now(call->app->loop) + cf->timeout_ms;
    char *state = request_state_issue(tool_call_tool_name(call), tool_call_args(call), expires);
    json_t *result = json_pack("{s:s, s:{s:{s:s, s:o}}, s:s}", "resultType", "input_required",
                               "inputRequests", KEY, "method", "elicitation/create", "params",
                               elicit_params(call, cf), "requestState", state);
    free(state);
    note(call, "input_required", true, "pending");
    tool_call_finish_raw(call, result);
}

static void retried(struct tool_call *call, const json_t *params, const struct confirm *cf)
{
    const json_t *state = json_object_get(params, "requestState");
    const char *tool = tool_call_tool_name(call);
    uint64_t now = uv_now(call->app->loop);
    enum request_state_check check =
        json_is_string(state)
            ? request_state_verify(json_string_value(state), tool, tool_call_args(call), now, false)
            : REQUEST_STATE_MALFORMED;
    if (check == REQUEST_STATE_EXPIRED) {
        declined(call, cf, "timeout");
        return;
    }
    if (check != REQUEST_STATE_OK) {
        note(call, "denied", true, "invalid_state");
        tool_call_fail_code(
            call, ERROR_DENIED,
            "Not confirmed: the requestState was rejected because %s, so %s did not "
            "run. Call %s again without requestState and inputResponses to ask the "
            "person again.",
            request_state_check_text(check), tool, tool);
        return;
    }
    const json_t *answer = json_object_get(json_object_get(params, "inputResponses"), KEY);
    if (!json_is_string(json_object_get(answer, "action"))) {
        /* No answer to our question: ask again (the spec's advice). */
        input_required(call, cf);
        return;
    }
    /* Redeem: one answer, one run. */
    check = request_state_verify(json_string_value(state), tool, tool_call_args(call), now, true);
    if (check != REQUEST_STATE_OK) {
        note(call, "denied", true, "invalid_state");
        tool_call_fail_code(call, ERROR_DENIED,
                            "Not confirmed: the requestState was rejected because %s.",
                            request_state_check_text(check));
        return;
    }
    if (!act_on_answer(call, cf, answer)) {
        note(call, "declined", true, "error");
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "Not confirmed: inputResponses.%s.action must be accept, decline or "
                            "cancel",
                            KEY);
    }
}

/* An answer from the hook: with elicitation in flight, that question is
 * withdrawn and answered() acts; without, it is acted on here. */
static void hook_answered(void *ud, bool yes, const char *by)
{
    struct confirm *cf = ud;
    struct tool_call *call = cf->call;
    cf->card = NULL; /* the hook has taken it down */
    cf->hook_answer = yes ? 1 : -1;
    cf->by = xstrdup(by);
    if (!cf->timer) {
        ask_abort_for(call->p.conn, &call->p, "answered in the glovebox viewer", true);
        return;
    }
    tool_call_set_data(call, NULL);
    act_on_hook_answer(call, cf);
    confirm_free(cf);
}

static void hook_timed_out(uv_timer_t *t)
{
    struct confirm *cf = t->data;
    struct tool_call *call = cf->call;
    withdraw_card(cf);
    tool_call_set_data(call, NULL);
    declined(call, cf, "timeout");
    confirm_free(cf);
}

/* Cancelled or paused while only the hook could answer. */
static void hook_cancelled(struct tool_call *call)
{
    struct confirm *cf = tool_call_data(call);
    if (!cf)
        return;
    tool_call_set_data(call, NULL);
    withdraw_card(cf);
    if (call->abort_reason) {
        note(call, "paused", true, "interrupted");
        tool_call_fail_code(call, ERROR_DENIED,
                            "it was waiting for the person's confirmation, and %s did not run.",
                            tool_call_tool_name(call));
    } else {
        note(call, "cancelled", true, "cancel");
        tool_call_fail(call, "the request was cancelled while waiting for confirmation");
    }
    confirm_free(cf);
}

static void *show_card(struct confirm *cf)
{
    if (!hook)
        return NULL;
    char *question = confirm_question(tool_call_tool_name(cf->call), tool_call_args(cf->call));
    void *card =
        hook->show(hook->ud, tool_call_tool_name(cf->call), tool_call_args(cf->call),
                   tool_call_owner(cf->call), question, cf->why, cf->timeout_ms, hook_answered, cf);
    free(question);
    return card;
}

/* The client cannot ask, but a person in the viewer can: a card on the
 * approve and control pages open now, the call waiting for its answer (or
 * the policy's timeout). False when no such page is open. */
static bool ask_in_viewer(struct tool_call *call, struct confirm *cf)
{
    if (!call->p.conn || !(cf->card = show_card(cf)))
        return false;
    log_info("asking the person in the viewer to confirm %s", tool_call_tool_name(call));
    cf->timer = xmalloc(sizeof *cf->timer);
    uv_timer_init(call->app->loop, cf->timer);
    cf->timer->data = cf;
    uv_timer_start(cf->timer, hook_timed_out, cf->timeout_ms, 0);
    tool_call_set_data(call, cf);
    tool_call_on_cancel(call, hook_cancelled);
    return true;
}

void confirm_start(struct tool_call *call, const json_t *params, char *why, uint64_t timeout_ms)
{
    struct confirm *cf = xcalloc(1, sizeof *cf);
    cf->why = why ? why : xstrdup("the policy asks for it");
    cf->timeout_ms = timeout_ms ? timeout_ms : 60000;
    cf->call = call;
    if (tool_call_is_modern(call)) {
        /* A stateless request stays open while it runs, so a viewer's
         * answer can come within it (REST calls are such requests). */
        if (json_object_get(params, "requestState"))
            retried(call, params, cf);
        else if (can_ask(call))
            input_required(call, cf);
        else if (ask_in_viewer(call, cf))
            return;
        else
            refuse_unsupported(call, cf);
        confirm_free(cf);
        return;
    }
    if (!can_ask(call)) {
        if (ask_in_viewer(call, cf))
            return;
        refuse_unsupported(call, cf);
        confirm_free(cf);
        return;
    }
    log_info("asking the person to confirm %s", tool_call_tool_name(call));
    cf->card = show_card(cf);
    if (!tool_call_ask(call, "elicitation/create", elicit_params(call, cf), cf->timeout_ms,
                       answered, cf)) {
        note(call, "declined", false, "error");
        tool_call_fail(call, "Not confirmed: the client's connection is gone, so %s did not run.",
                       tool_call_tool_name(call));
        confirm_free(cf);
    }
}
