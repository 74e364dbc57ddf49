/* The process-wide context every tool sees: the loop, the live sessions and
 * the settings from the command line. One per process. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct session_registry;
struct http_transport;

struct mcp_gate;
struct tool_call;
struct resource_read;

/* Told about every tools/call as it is answered (the audit log): the
 * arguments, notes and client are readable through mcp/tool.h; result is
 * the CallToolResult about to be sent (borrowed). Runs on the loop; must
 * not block. */
struct call_observer {
    void (*finished)(void *ud, const struct tool_call *call, const json_t *result);
    /* Every resources/read a provider answered, allowed or not (mcp/resources.h
     * has the accessors); error is the text the client got, NULL when it got
     * the contents. */
    void (*read)(void *ud, const struct resource_read *r, const char *error);
    /* Something a person did that is no call: what ("viewer/take_control"),
     * the session, and a JSON object of details (who: the viewer link). */
    void (*event)(void *ud, const char *what, const char *session, const json_t *details);
    void *ud;
};
struct policy;
struct audit;
struct session_table;

struct app {
    uv_loop_t *loop;
    struct session_registry *sessions;
    uint64_t started_ms; /* uv_now at start */
    char *data_dir;      /* recordings, screenshots, audit.db; created on demand */
    size_t max_message;  /* bytes; larger incoming messages are refused */
    int page_size;       /* list results per page */
    bool shutting_down;
    struct http_transport *http;               /* NULL when not serving HTTP */
    struct policy *policy;                     /* NULL: no policy (tests, fuzzing) */
    const struct mcp_gate *gate;               /* permission policy; NULL admits everything */
    const struct call_observer *call_observer; /* NULL: nobody listens */
    struct audit *audit;                       /* NULL: no audit log (--no-audit) */
    struct session_table *session_table;       /* NULL: none could be opened */
    /* When a person paused input (policy/pause.h), in ms since the epoch;
     * 0: not paused. */
    int64_t paused_since_ms;
};

/* Milliseconds since the app started. */
uint64_t app_uptime_ms(const struct app *app);
/* Create the data directory if needed; false with *err on failure. */
bool app_ensure_data_dir(struct app *app, char **err);
