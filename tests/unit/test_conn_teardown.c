/* A connection that goes while calls are in flight (an HTTP DELETE of the
 * MCP session, idle expiry, stdio EOF): every call is stopped exactly once,
 * even when stopping one finishes others (as cancelling the running
 * clipboard read answers the one queued behind it). Run under ASan, a call
 * touched after it was freed is a report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "core/app.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "mcp/tool.h"

#include <uv.h>

#define MAX_HELD 8

static struct tool_call *held[MAX_HELD];
static int n_held, hooks_run, finished;

static void forget(struct tool_call *call)
{
    for (int i = 0; i < n_held; i++) {
        if (held[i] == call) {
            held[i] = held[--n_held];
            return;
        }
    }
}

/* Stopping any held call finishes every held call, its own and the others. */
static void stop_all(struct tool_call *call)
{
    (void)call;
    hooks_run++;
    while (n_held) {
        struct tool_call *c = held[0];
        forget(c);
        finished++;
        tool_call_fail(c, "stopped");
    }
}

static void hold(struct tool_call *call)
{
    held[n_held++] = call;
    tool_call_on_cancel(call, stop_all);
}

static const struct tool hold_tool = {
    .name = "hold",
    .description = "Waits until cancelled",
    .input_schema = "{\"type\": \"object\", \"additionalProperties\": false}",
    .handler = hold,
};

static void discard(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud)
{
    (void)c, (void)stream, (void)msg, (void) final, (void)ud;
}

static struct mcp_conn *open_conn(struct app *app)
{
    struct mcp_transport t = {.name = "unit", .send = discard};
    struct mcp_conn *c = mcp_conn_create(app, &t);
    const char *init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}";
    mcp_conn_receive(c, init, strlen(init), NULL);
    return c;
}

static void call_hold(struct mcp_conn *c, int id)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"hold\",\"arguments\":{}}}",
             id);
    mcp_conn_receive(c, msg, strlen(msg), NULL);
}

static void destroying_a_connection_stops_calls_that_stop_each_other(void **state)
{
    (void)state;
    struct app app = {.page_size = 100, .loop = uv_default_loop()};
    registry_add(&hold_tool);
    struct mcp_conn *c = open_conn(&app);
    for (int i = 1; i <= 4; i++)
        call_hold(c, i);
    assert_int_equal(n_held, 4);
    mcp_conn_destroy(c);
    assert_int_equal(n_held, 0);
    assert_int_equal(finished, 4);
    assert_int_equal(hooks_run, 1); /* the first stop finished them all */

    /* Another connection's calls are not touched by this one going. */
    hooks_run = finished = 0;
    struct mcp_conn *a = open_conn(&app);
    struct mcp_conn *b = open_conn(&app);
    call_hold(a, 1);
    call_hold(b, 1);
    struct tool_call *b_call = held[1];
    n_held = 1; /* a's call only: b's must survive a's teardown */
    mcp_conn_destroy(a);
    assert_int_equal(finished, 1);
    held[n_held++] = b_call;
    mcp_conn_destroy(b);
    assert_int_equal(finished, 2);
    mcp_server_finish();
    registry_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(destroying_a_connection_stops_calls_that_stop_each_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
