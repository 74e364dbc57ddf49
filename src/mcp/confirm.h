/* The words a person reads when asked to confirm a tool call. Everything
 * from the agent is quoted, escaped and cut short, so arguments cannot
 * break out of their quotes, hide text (bidi and zero-width characters) or
 * drown the question. */
#pragma once
#include "core/strbuf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest quoted argument, in characters, before it is cut. */
#define CONFIRM_QUOTE_MAX 200
/* Longest question, in bytes, before the rest of the call is left out. */
#define CONFIRM_QUESTION_MAX 2000

/* Appends s in double quotes with \" \\ \n \t \xNN \u{NNNN} escapes for
 * quotes, backslashes, control, bidi and invisible characters, cut after
 * max characters with a note of how many more there were. s is UTF-8. */
void confirm_quote(struct strbuf *out, const char *s, size_t len, size_t max);
/* The same for a JSON string. */
void confirm_quote_json(struct strbuf *out, const json_t *v, size_t max);
/* Any value: a string quoted, the rest as compact JSON, cut short. */
void confirm_quote_value(struct strbuf *out, const json_t *v);
/* " <prep> session \"t1\"", or " <prep> the current session" without one. */
void confirm_session_phrase(struct strbuf *out, const json_t *args, const char *prep);
/* A command array, each argument quoted so none can pose as two. */
void confirm_command_phrase(struct strbuf *out, const json_t *cmd);
/* The question for a call of tool: the tool's own confirm_phrase
 * (mcp/tool.h) or "call <tool> with <arguments>".
 * "Allow the agent to type \"ls -la\" into session t1?" — malloc'd. */
char *confirm_question(const char *tool, const json_t *args);

/* Where else a person may answer a confirmation: the live viewer
 * (src/viewer/) sets this while it serves pages. show puts the question up
 * and returns a handle (NULL: nobody can answer there); answer(cf, yes, by)
 * is called at most once, never after withdraw(handle). by names who
 * answered, for the audit log. First answer wins, between this and the
 * client's elicitation. */
struct confirm_hook {
    /* args: the call's (borrowed; for where it acts: session, x, y, ref);
     * caller: who called (tool_call_owner), to find its default session. */
    void *(*show)(void *ud, const char *tool, const json_t *args, const char *caller,
                  const char *question, const char *why, uint64_t timeout_ms,
                  void (*answer)(void *cf, bool yes, const char *by), void *cf);
    void (*withdraw)(void *ud, void *handle);
    void *ud;
};
/* NULL: none. The hook must outlive every confirmation it showed. */
void confirm_set_hook(const struct confirm_hook *hook);
