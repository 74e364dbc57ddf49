/* The words a person reads when asked to confirm a tool call. Everything
 * from the agent is quoted, escaped and cut short, so arguments cannot
 * break out of their quotes, hide text (bidi and zero-width characters) or
 * drown the question. */
#pragma once
#include "core/strbuf.h"

#include <jansson.h>
#include <stddef.h>

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
