/* What a tool is and how its handler answers. One tool per file under
 * src/tools/. A handler receives a call whose arguments already satisfy the
 * tool's input schema; it answers once, now or later (from a timer, a child
 * process, the worker pool), with tool_call_done*() or tool_call_fail().
 * Many calls are in flight at once and may finish in any order. */
#pragma once
#include "core/error_code.h"
#include "core/log.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct app;
struct strbuf;
struct tool_call;

struct tool_annotations {
    bool read_only;   /* does not change its environment */
    bool destructive; /* may destroy something (only meaningful when !read_only) */
    bool idempotent;  /* repeating with the same arguments has no further effect */
    bool open_world;  /* reaches things outside glovebox's control */
};

/* Which arguments of a call the policy's argument rules look at
 * (rules.<tool>.<kind>, docs/policy.md). A tool takes exactly the rule kinds
 * whose field is set; a policy with another kind for it is refused. */
struct tool_rule_args {
    const char *command;       /* array: program, arguments -> "commands" */
    const char *command_alias; /* another name people use for "commands" ("apps"), or NULL */
    bool runs_shell;           /* without command it runs $SHELL (else /bin/sh) */
    const char *cwd;           /* the directory a relative program is found from */
    const char *env;           /* object of environment variables -> "env" */
    const char *display;       /* an existing display to attach to -> "displays" */
    const char *host;          /* a URL or host name -> "hosts" */
    const char *path;          /* a file of this machine the tool reads -> "paths" */
};

struct tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;  /* JSON Schema text, parsed once at start-up */
    const char *output_schema; /* JSON Schema text for structuredContent, or NULL */
    /* The group `serve --tools` selects it by (one of mcp/tool_groups.c);
     * NULL only for test fixtures, which are always served. */
    const char *group;
    struct tool_annotations annotations;
    void (*handler)(struct tool_call *call);
    /* Only ever lowers what the agent may do (set_mode): the policy never
     * hides it, never asks a person about it, and a pause does not stop it. */
    bool lowers_privilege;
    /* The arguments argument rules apply to, or NULL: the tool takes none. */
    const struct tool_rule_args *rule_args;
    /* What a person is asked to allow, after "Allow the agent to " (quote
     * every argument with mcp/confirm.h); false when args do not fit the
     * phrase, and NULL, give "call <tool> with <arguments>". */
    bool (*confirm_phrase)(struct strbuf *out, const json_t *args);
    /* A tool that does, per call, what another tool does (computer: its
     * "type" action types as type_text does): the tool whose permissions,
     * confirmation and rate limits the call also passes, with that tool's
     * read-only flag; NULL (or the function NULL) for the tool's own alone.
     * Allowing this tool then never allows more than the other one. */
    const struct tool *(*acts_as)(const json_t *args);
    /* Strings of args the audit log must never show, known before the call
     * runs (recipe_run: the values of a recipe's secret params), appended to
     * out (an array); NULL: none beyond what the log redacts by itself.
     * Asked before validation and the policy, so a refused or declined
     * call's row hides them too. */
    void (*secrets)(const json_t *args, json_t *out);
};

/* The validated arguments (an object, never NULL), borrowed. */
const json_t *tool_call_args(const struct tool_call *call);
struct app *tool_call_app(const struct tool_call *call);
/* The protocol version this call arrived under ("2025-11-25", "2026-07-28"). */
const char *tool_call_protocol_version(const struct tool_call *call);

const char *tool_call_tool_name(const struct tool_call *call);
/* Who is calling, for the audit log: a new object {"transport": "stdio" |
 * "http", "client": {"name", "version"} or null, "remote": "addr:port"
 * (HTTP), "mcp_session": "…" (HTTP sessions)}. */
json_t *tool_call_client(const struct tool_call *call);
/* The same, as borrowed strings (NULL where the object has no such string),
 * valid until the call is freed: the audit log reads them for every call,
 * and building the object only to take it apart again cost a few µs. */
struct tool_call_who {
    const char *transport, *client_name, *client_version, *remote, *mcp_session;
};
void tool_call_who(const struct tool_call *call, struct tool_call_who *out);
/* The client this call comes from, as owner of screen sessions
 * (session/session.h): an MCP session id, a stdio connection's key, or NULL
 * for a stateless HTTP request or once the connection is gone. Borrowed:
 * copy it to keep it past the handler. */
const char *tool_call_owner(const struct tool_call *call);
/* Whether the client declared a capability ("elicitation", "sampling",
 * "roots") in initialize or, for 2026-07-28 requests, in the request's _meta. */
bool tool_call_client_can(const struct tool_call *call, const char *capability);
/* A stateless 2026-07-28 request (which cannot be asked anything). */
bool tool_call_is_modern(const struct tool_call *call);

/* Ask the client something on this call's connection (a server-to-client
 * request such as "elicitation/create"; params stolen). fn runs exactly once,
 * on the loop: with the client's result (borrowed), or with result NULL and
 * error saying why (the client answered with an error, timeout_ms passed, the
 * call was cancelled, the connection closed). A cancelled call with an
 * outstanding question hears it through fn, not through its cancel hook.
 * When the wait ends without an answer (timeout, cancel, a person's pause)
 * the client is told the question is withdrawn (notifications/cancelled
 * with its id) so it can close its dialog.
 * Returns false, without calling fn, when nothing can be asked: 2026-07-28
 * requests (they use multi round-trip results) or a connection already gone. */
typedef void (*tool_call_answer_fn)(struct tool_call *call, const json_t *result, const char *error,
                                    void *ud);
bool tool_call_ask(struct tool_call *call, const char *method, json_t *params, uint64_t timeout_ms,
                   tool_call_answer_fn fn, void *ud);

/* Close the network connection that carries this call's answer, keeping the
 * answer for the client to resume (HTTP SSE with Last-Event-ID). Nothing
 * happens on transports without resumption (stdio). */
void tool_call_disconnect(struct tool_call *call);

/* Facts about this call for the audit log, set by whoever learns them (the
 * policy: "decision", "confirmation"; a backend: "redacted"). value stolen;
 * a key set twice keeps the last value. "decision": "allowed", "invalid",
 * "denied", "rate_limited", "confirmed", "declined", "cancelled", "paused" or
 * "input_required" (a 2026-07-28 call answered with the question);
 * "confirmation": {"asked", "answer", "by"} (docs/policy.md); "interrupted":
 * why a person's pause stopped the call; "error_code": the code of a failed
 * call (set by tool_call_fail*, docs/errors.md). */
void tool_call_note(struct tool_call *call, const char *key, json_t *value);
/* The notes so far (an object, never NULL), borrowed. */
const json_t *tool_call_notes(const struct tool_call *call);
/* Milliseconds from the call's arrival (uv_now) to now, or to its answer
 * once it has been answered (a held call, below). */
uint64_t tool_call_elapsed_ms(const struct tool_call *call);
/* Milliseconds since the call arrived, answered or not. */
uint64_t tool_call_age_ms(const struct tool_call *call);

/* Keeping a call's audit record open past its answer: a fact about the call
 * that takes longer to learn than the work itself (whether typed text went
 * into a password field) must not delay the answer. While a hold is open the
 * answer is sent as usual, but the call_observer (the audit log) hears of
 * the call only once every hold is released, with the notes the holder
 * gave. fallback (stolen, an object) is what is noted if the hold is never
 * released properly: at server shutdown (tool_calls_release_held) — so it
 * should be the cautious answer ({"redacted": true}). Returns NULL (fallback
 * freed) when nobody records calls: there is nothing to hold. Loop thread. */
struct tool_call_hold;
struct tool_call_hold *tool_call_hold(struct tool_call *call, json_t *fallback);
/* Notes (stolen, an object; NULL: none) are added to the call's, and the
 * hold is freed; the last release of an answered call records it. Safe
 * after tool_calls_release_held has recorded the call: the notes are then
 * dropped (the fallback was applied). */
void tool_call_release(struct tool_call_hold *h, json_t *notes);
/* Every answered call still held is recorded now, with the fallback notes of
 * its open holds (server shutdown, before the audit log closes). The holds
 * stay valid until their holders release them. */
void tool_calls_release_held(void);

/* Strings of this call's arguments the audit log must never show (the
 * values of a recipe's secret params): cut out of the recorded arguments,
 * notes and error text wherever they occur. */
void tool_call_add_secret(struct tool_call *call, const char *value);
/* The strings added so far (an array), or NULL; borrowed. */
const json_t *tool_call_secrets(const struct tool_call *call);

/* Calling another tool on behalf of this call (a recipe's steps), through
 * exactly the path a client's tools/call takes: schema validation, the
 * policy's gate (permissions, rate limits, a person's confirmation asked on
 * this call's connection), the handler, the audit log, a person's pause.
 * The child acts as this call's client (its sessions, its owner). done runs
 * once, on the loop, with the CallToolResult (borrowed) and the child's
 * notes (borrowed: "decision", "error_code"), possibly before
 * tool_call_spawn returns. args are stolen; notes (stolen, an object, or
 * NULL) start the child's notes, so its audit row carries them; secrets
 * (borrowed array of strings, or NULL) are tool_call_add_secret'd. *child is
 * set before the child runs, so done can clear it. false with *err
 * (malloc'd) when no call could start: an unknown tool, the client gone,
 * too many calls in flight on its connection. */
typedef void (*tool_call_spawn_fn)(void *ud, const json_t *result, const json_t *notes);
bool tool_call_spawn(struct tool_call *parent, const char *tool, json_t *args, json_t *notes,
                     const json_t *secrets, tool_call_spawn_fn done, void *ud,
                     struct tool_call **child, char **err);
/* Cancel a spawned child as a client's notifications/cancelled would: its
 * done still runs once. */
void tool_call_cancel(struct tool_call *child);

/* A listener told of every answered tools/call, after the audit log's
 * observer: the call (its arguments, owner) and the CallToolResult about to
 * be sent, both borrowed. Recipes use it to remember what the elements a
 * snapshot showed were, so a ref can be saved as a locator. One listener;
 * NULL removes it. Loop thread; must not block. */
void tool_calls_set_tap(void (*tap)(const struct tool_call *call, const json_t *result));

/* Per-call state a handler may attach (freed by the handler itself). */
void tool_call_set_data(struct tool_call *call, void *data);
void *tool_call_data(const struct tool_call *call);

/* Cancellation: the client gave up on this call. The hook runs once, on the
 * loop thread; it should stop the work and then finish the call as usual
 * (the answer is not sent). */
bool tool_call_cancelled(const struct tool_call *call);
void tool_call_on_cancel(struct tool_call *call, void (*hook)(struct tool_call *call));

/* Progress notification, sent only when the client asked for progress.
 * total <= 0 means unknown; message may be NULL. */
void tool_call_progress(struct tool_call *call, double progress, double total, const char *message);
/* A log message to the client (notifications/message), if its level is wanted. */
void tool_call_log(struct tool_call *call, enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Success: structured is the structuredContent (stolen; may be NULL), text the
 * human/model readable mirror. Frees the call. */
void tool_call_done(struct tool_call *call, json_t *structured, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Success with explicit content blocks (images, resource links) — both stolen.
 * Frees the call. */
void tool_call_done_content(struct tool_call *call, json_t *content, json_t *structured);
/* The tool failed: isError result whose text says why and, for clients that
 * know structuredContent (2025-06-18 on), structuredContent.error = {code,
 * message} (docs/errors.md). Frees the call. */
void tool_call_fail(struct tool_call *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same with a code from core/error_code.h; tool_call_fail uses
 * ERROR_TOOL_FAILED. */
void tool_call_fail_code(struct tool_call *call, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
