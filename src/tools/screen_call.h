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

#include "session/session.h"

struct backend_call;
struct screen_guard;
/* For a tool that runs backend operations of its own making (computer):
 * bc's app, guard (screen_guard_for; the caller releases it), owner (call),
 * and the audit hooks (note, hold) that reach call. The caller sets session,
 * args and finish. */
void screen_call_bind(struct backend_call *bc, struct tool_call *call,
                      const struct screen_guard *guard);

/* The session the call's "session" argument names, or the caller's default,
 * among those the caller may reach (session_resolve). NULL with *err. */
struct session *screen_call_resolve(struct tool_call *call, char **err);
/* Who a start tool's new session belongs to: the caller, and its "shared"
 * argument. owner is borrowed from the call. */
struct session_client screen_call_client(struct tool_call *call);
/* For a start tool: *who as above, if the session budget lets the caller
 * start one more; else the call is answered with why, and false. */
bool screen_call_admit(struct tool_call *call, struct session_client *who);

/* Whether the operation at op_offset (BACKEND_OP) sends input: refused
 * while a person has control of the session (the live viewer). */
bool screen_call_is_input(size_t op_offset);
/* An input call in flight on s (screen_call_run does it; computer too),
 * until untracked (before it is answered). */
void screen_call_track_input(struct tool_call *call, const struct session *s);
void screen_call_untrack_input(struct tool_call *call);
/* A person took control of s: every input call in flight on it stops (its
 * backend's cancel) and answers denied, "a person has control of session
 * …". Returns how many were stopped. */
int screen_call_stop_input(const struct session *s);
