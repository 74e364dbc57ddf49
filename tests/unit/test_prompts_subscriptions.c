/* The protocol engine's prompts, completion and resource subscriptions,
 * driven through a connection whose transport records what it sends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "core/app.h"
#include "mcp/prompt.h"
#include "mcp/resources.h"
#include "mcp/server.h"

/* Every message a connection sent, in order (an array per connection). */
static void record(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud)
{
    if (msg)
        json_array_append(ud, msg);
}

static json_t *greet_get(const json_t *args, char **err)
{
    const char *who = json_string_value(json_object_get(args, "who"));
    return json_pack("[{s:s, s:{s:s, s:s}}]", "role", "user", "content", "type", "text", "text",
                     who);
}

static void who_complete(const char *value, const json_t *context, json_t *values)
{
    if (strncmp("world", value, strlen(value)) == 0)
        json_array_append_new(values, json_string("world"));
}

static const struct prompt greet = {
    .name = "greet",
    .description = "Greets someone",
    .arguments =
        {{.name = "who", .description = "whom", .required = true, .complete = who_complete}},
    .get = greet_get,
};

static void watched_read(struct resource_read *r, const char *uri)
{
    resource_read_done(r, json_pack("[{s:s, s:s}]", "uri", uri, "text", "x"));
}

static const struct resource_provider watched = {
    .uri_template = "unit://w/{n}",
    .prefix = "unit://w/",
    .name = "w",
    .description = "watched",
    .mime_type = "text/plain",
    .read = watched_read,
    .subscribable = true,
};

struct fixture {
    struct app app;
    json_t *sent_a, *sent_b;
    struct mcp_conn *a, *b;
};

static struct mcp_conn *open_conn(struct fixture *f, json_t *sent)
{
    struct mcp_transport t = {.name = "unit", .send = record, .ud = sent};
    struct mcp_conn *c = mcp_conn_create(&f->app, &t);
    const char *init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}";
    mcp_conn_receive(c, init, strlen(init), NULL);
    return c;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->app.page_size = 100;
    prompts_add(&greet);
    resources_add(&watched);
    f->sent_a = json_array();
    f->sent_b = json_array();
    f->a = open_conn(f, f->sent_a);
    f->b = open_conn(f, f->sent_b);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    mcp_conn_destroy(f->a);
    mcp_conn_destroy(f->b);
    json_decref(f->sent_a);
    json_decref(f->sent_b);
    mcp_server_finish();
    free(f);
    return 0;
}

/* Sends one request on c and returns the last message sent (borrowed). */
static json_t *ask(struct mcp_conn *c, json_t *sent, const char *msg)
{
    mcp_conn_receive(c, msg, strlen(msg), NULL);
    return json_array_get(sent, json_array_size(sent) - 1);
}

static void capabilities_follow_what_is_registered(void **state)
{
    struct fixture *f = *state;
    json_t *caps =
        json_object_get(json_object_get(json_array_get(f->sent_a, 0), "result"), "capabilities");
    assert_true(json_is_object(json_object_get(caps, "prompts")));
    assert_true(json_is_object(json_object_get(caps, "completions")));
    assert_true(json_is_true(json_object_get(json_object_get(caps, "resources"), "subscribe")));
}

static void prompt_arguments_are_checked(void **state)
{
    struct fixture *f = *state;
    json_t *r = ask(f->a, f->sent_a,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{"
                    "\"name\":\"greet\",\"arguments\":{\"who\":\"you\"}}}");
    json_t *msg = json_array_get(json_object_get(json_object_get(r, "result"), "messages"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(msg, "content"), "text")),
                        "you");
    r = ask(f->a, f->sent_a,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{"
            "\"name\":\"greet\"}}");
    const char *m = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
    assert_non_null(strstr(m, "needs argument \"who\""));
    r = ask(f->a, f->sent_a,
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\",\"params\":{"
            "\"name\":\"greet\",\"arguments\":{\"who\":[]}}}");
    m = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
    assert_non_null(strstr(m, "argument \"who\" of prompt greet must be a string"));
}

static void completion_asks_the_argument(void **state)
{
    struct fixture *f = *state;
    json_t *r = ask(f->a, f->sent_a,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"completion/complete\",\"params\":{"
                    "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                    "\"argument\":{\"name\":\"who\",\"value\":\"wo\"}}}");
    json_t *values =
        json_object_get(json_object_get(json_object_get(r, "result"), "completion"), "values");
    assert_int_equal(json_array_size(values), 1);
    assert_string_equal(json_string_value(json_array_get(values, 0)), "world");
}

static size_t updates(json_t *sent, const char *uri)
{
    size_t n = 0, i;
    json_t *m;
    json_array_foreach(sent, i, m)
    {
        const char *method = json_string_value(json_object_get(m, "method"));
        const char *u = json_string_value(json_object_get(json_object_get(m, "params"), "uri"));
        if (method && strcmp(method, "notifications/resources/updated") == 0 && u &&
            strcmp(u, uri) == 0)
            n++;
    }
    return n;
}

static void updates_reach_subscribers_only(void **state)
{
    struct fixture *f = *state;
    json_t *r = ask(f->a, f->sent_a,
                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/subscribe\",\"params\":{"
                    "\"uri\":\"unit://w/1\"}}");
    assert_non_null(json_object_get(r, "result"));
    resources_updated("unit://w/1");
    resources_updated("unit://w/2");
    assert_int_equal(updates(f->sent_a, "unit://w/1"), 1);
    assert_int_equal(updates(f->sent_a, "unit://w/2"), 0);
    assert_int_equal(updates(f->sent_b, "unit://w/1"), 0);

    ask(f->a, f->sent_a,
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/unsubscribe\",\"params\":{"
        "\"uri\":\"unit://w/1\"}}");
    resources_updated("unit://w/1");
    assert_int_equal(updates(f->sent_a, "unit://w/1"), 1);
}

static void a_closed_connection_hears_nothing(void **state)
{
    struct fixture *f = *state;
    ask(f->b, f->sent_b,
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/subscribe\",\"params\":{"
        "\"uri\":\"unit://w/9\"}}");
    mcp_conn_destroy(f->b);
    f->b = NULL;
    /* Under ASan a dangling subscriber would be a use after free here. */
    resources_updated("unit://w/9");
    assert_int_equal(updates(f->sent_b, "unit://w/9"), 0);
}

static void unknown_uris_cannot_be_subscribed(void **state)
{
    struct fixture *f = *state;
    json_t *r = ask(f->a, f->sent_a,
                    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/subscribe\",\"params\":{"
                    "\"uri\":\"other://x\"}}");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "error"), "code")),
                     -32602);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(capabilities_follow_what_is_registered, setup, teardown),
        cmocka_unit_test_setup_teardown(prompt_arguments_are_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(completion_asks_the_argument, setup, teardown),
        cmocka_unit_test_setup_teardown(updates_reach_subscribers_only, setup, teardown),
        cmocka_unit_test_setup_teardown(a_closed_connection_hears_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_uris_cannot_be_subscribed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
