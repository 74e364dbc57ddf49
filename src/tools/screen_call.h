/* The shared path of every tool that acts on a screen: find the session
 * (the "session" argument, else the most recent live one), check its kind
 * can do the operation and is still running when it must be, then hand the
 * call to the backend and turn its answer into the tool result. */
#pragma once
#include "mcp/tool.h"

#include <stdbool.h>
#include <stddef.h>

/* op_offset: BACKEND_OP(field). verb: for messages ("read text").
 * needs_live: refuse sessions that have ended (input, waits on output). */
void screen_call_run(struct tool_call *call, size_t op_offset, const char *verb, bool needs_live);

/* The "session" property every screen tool has, for input schemas. */
#define SESSION_PROPERTY                                                                           \
    "\"session\":{\"type\":\"string\",\"minLength\":1,\"description\":"                            \
    "\"Session id or name (default: the most recently started live session)\"}"

/* Desktops: the window to focus before keys are sent (type_text, press_key). */
#define WINDOW_PROPERTY                                                                            \
    "\"window\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,\"description\":"           \
    "\"Desktop: focus this window (id from window_list, or a part of its title) first\"}"

struct session;
/* The calling MCP session started s (kept so that session's expiry can
 * release it). */
void screen_call_claim(struct tool_call *call, struct session *s);
/* The calling MCP session used s; if it is not the owner, s is shared. */
void screen_call_note_user(struct tool_call *call, struct session *s);
