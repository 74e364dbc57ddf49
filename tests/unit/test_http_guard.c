/* The HTTP transport's own parsing and checks, without a socket: listen
 * addresses, Accept headers, event ids, base64 header values, and the guard
 * (Host, Origin, bearer token, URL tokens, rate limit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/base64.h"
#include "core/xmalloc.h"
#include "transport/http_internal.h"

#include <stdlib.h>
#include <string.h>

static void listen_specs(void **state)
{
    (void)state;
    struct http_options o;
    char *err = NULL;
    http_options_defaults(&o);
    assert_true(http_options_parse_listen(&o, "7801", &err));
    assert_string_equal(o.host, "127.0.0.1");
    assert_int_equal(o.port, 7801);
    assert_true(http_options_parse_listen(&o, "[::1]:9000", &err));
    assert_string_equal(o.host, "::1");
    assert_int_equal(o.port, 9000);
    assert_true(http_options_parse_listen(&o, "localhost:80", &err));
    assert_string_equal(o.host, "localhost");
    assert_false(http_options_parse_listen(&o, "70000", &err));
    assert_non_null(strstr(err, "0..65535"));
    free(err);
    assert_false(http_options_parse_listen(&o, "evil.example:80", &err));
    assert_non_null(strstr(err, "IP address"));
    free(err);
    assert_false(http_options_parse_listen(&o, "1.2.3.4:", &err));
    free(err);
    http_options_finish(&o);
}

static void loopback(void **state)
{
    (void)state;
    assert_true(http_host_is_loopback("127.0.0.1"));
    assert_true(http_host_is_loopback("127.1.2.3"));
    assert_true(http_host_is_loopback("::1"));
    assert_true(http_host_is_loopback("localhost"));
    assert_false(http_host_is_loopback("0.0.0.0"));
    assert_false(http_host_is_loopback("10.0.0.1"));
    assert_false(http_host_is_loopback("localhost.evil.example"));
}

static void accept_header(void **state)
{
    (void)state;
    struct http_req req = {0};
    char a1[] = "application/json, text/event-stream", a2[] = "text/*;q=0.5, application/json;q=1",
         a3[] = "*/*", a4[] = "application/jsonx";
    req.accept = a1;
    assert_true(http_req_accepts(&req, "application/json"));
    assert_true(http_req_accepts(&req, "text/event-stream"));
    assert_false(http_req_accepts(&req, "text/html"));
    req.accept = a2;
    assert_true(http_req_accepts(&req, "text/event-stream"));
    assert_true(http_req_accepts(&req, "application/json"));
    req.accept = a3;
    assert_true(http_req_accepts(&req, "text/event-stream"));
    req.accept = a4;
    assert_false(http_req_accepts(&req, "application/json"));
    req.accept = NULL;
    assert_false(http_req_accepts(&req, "application/json"));
}

static void event_ids(void **state)
{
    (void)state;
    int n;
    uint64_t seq;
    assert_true(stream_parse_event_id("3-17", &n, &seq));
    assert_int_equal(n, 3);
    assert_int_equal(seq, 17);
    assert_true(stream_parse_event_id("0-1", &n, &seq));
    assert_false(stream_parse_event_id("3", &n, &seq));
    assert_false(stream_parse_event_id("-1-2", &n, &seq));
    assert_false(stream_parse_event_id("3-x", &n, &seq));
    assert_false(stream_parse_event_id("3-4 ", &n, &seq));
    assert_false(stream_parse_event_id("", &n, &seq));
}

static void base64_values(void **state)
{
    (void)state;
    size_t len;
    char *s = base64_decode("SGVsbG8sIOS4lueVjA==", 20, &len);
    assert_non_null(s);
    assert_int_equal(len, 13);
    assert_string_equal(s, "Hello, \xe4\xb8\x96\xe7\x95\x8c");
    free(s);
    assert_null(base64_decode("abc", 3, &len));
    assert_null(base64_decode("ab=c", 4, &len));
    assert_null(base64_decode("a*==", 4, &len));
    char *enc = base64_encode((const uint8_t *)"fixture_echo", 12);
    s = base64_decode(enc, strlen(enc), &len);
    assert_string_equal(s, "fixture_echo");
    free(s);
    free(enc);
}

/* A transport without sockets: the guard only answers into req. */
struct guard_fixture {
    struct app app;
    struct http_transport t;
    uv_loop_t loop;
};

static int guard_setup(void **state)
{
    struct guard_fixture *f = xcalloc(1, sizeof *f);
    uv_loop_init(&f->loop);
    f->app.loop = &f->loop;
    f->app.max_message = 1 << 20;
    f->t.app = &f->app;
    http_options_defaults(&f->t.opts);
    *state = f;
    return 0;
}

static int guard_teardown(void **state)
{
    struct guard_fixture *f = *state;
    http_guard_finish(&f->t);
    http_options_finish(&f->t.opts);
    uv_loop_close(&f->loop);
    free(f);
    return 0;
}

/* Runs the guard on a request with these headers; returns the status it
 * answered with, or 0 when it let the request through. */
static int check(struct guard_fixture *f, const char *host, const char *origin, const char *auth,
                 const char *query)
{
    struct http_req req = {0};
    req.t = &f->t;
    req.method = HTTP_POST;
    snprintf(req.path, sizeof req.path, "/mcp");
    snprintf(req.query, sizeof req.query, "%s", query ? query : "");
    snprintf(req.remote, sizeof req.remote, "127.0.0.1");
    req.host = host ? xstrdup(host) : NULL;
    req.origin = origin ? xstrdup(origin) : NULL;
    req.authorization = auth ? xstrdup(auth) : NULL;
    strbuf_init(&req.out);
    strbuf_init(&req.resp_headers);
    bool passed = http_guard_check(&req);
    int status = passed ? 0 : req.status;
    free(req.host);
    free(req.origin);
    free(req.authorization);
    strbuf_finish(&req.out);
    strbuf_finish(&req.resp_headers);
    return status;
}

static void guard_host_origin(void **state)
{
    struct guard_fixture *f = *state;
    assert_int_equal(check(f, "127.0.0.1:7800", NULL, NULL, NULL), 0);
    assert_int_equal(check(f, "localhost", "http://localhost:3000", NULL, NULL), 0);
    assert_int_equal(check(f, "[::1]:7800", "https://127.0.0.1", NULL, NULL), 0);
    assert_int_equal(check(f, "evil.example", NULL, NULL, NULL), 403);
    assert_int_equal(check(f, NULL, NULL, NULL, NULL), 403);
    assert_int_equal(check(f, "localhost", "http://evil.example", NULL, NULL), 403);
    assert_int_equal(check(f, "localhost", "null", NULL, NULL), 403);
    assert_int_equal(check(f, "localhost", "http://localhost.evil.example", NULL, NULL), 403);
    assert_int_equal(check(f, "localhost", "http://localhost/path", NULL, NULL), 403);
    f->t.opts.allow_origins = xcalloc(2, sizeof(char *));
    f->t.opts.allow_origins[0] = xstrdup("https://app.example");
    assert_int_equal(check(f, "localhost", "https://app.example", NULL, NULL), 0);
    f->t.opts.allow_hosts = xcalloc(2, sizeof(char *));
    f->t.opts.allow_hosts[0] = xstrdup("box.lan");
    assert_int_equal(check(f, "box.lan:7800", NULL, NULL, NULL), 0);
}

static void guard_token(void **state)
{
    struct guard_fixture *f = *state;
    f->t.opts.token = xstrdup("0123456789abcdef-token");
    assert_int_equal(check(f, "localhost", NULL, NULL, NULL), 401);
    assert_int_equal(check(f, "localhost", NULL, "Bearer 0123456789abcdef-toke", NULL), 401);
    assert_int_equal(check(f, "localhost", NULL, "Bearer 0123456789abcdef-tokenX", NULL), 401);
    assert_int_equal(check(f, "localhost", NULL, "Basic 0123456789abcdef-token", NULL), 401);
    assert_int_equal(check(f, "localhost", NULL, "Bearer 0123456789abcdef-token", NULL), 0);
    assert_int_equal(check(f, "localhost", NULL, "bearer 0123456789abcdef-token", NULL), 0);
    assert_int_equal(check(f, "localhost", NULL, "Bearer 0123456789abcdef-token",
                           "x=1&access_token=0123456789abcdef-token"),
                     400);
}

static void guard_rate(void **state)
{
    struct guard_fixture *f = *state;
    f->t.opts.rate_per_s = 3;
    int limited = 0;
    for (int i = 0; i < 10; i++)
        if (check(f, "localhost", NULL, NULL, NULL) == 429)
            limited++;
    /* A burst of two seconds' worth passes, the rest is refused. */
    assert_int_equal(limited, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(listen_specs),
        cmocka_unit_test(loopback),
        cmocka_unit_test(accept_header),
        cmocka_unit_test(event_ids),
        cmocka_unit_test(base64_values),
        cmocka_unit_test_setup_teardown(guard_host_origin, guard_setup, guard_teardown),
        cmocka_unit_test_setup_teardown(guard_token, guard_setup, guard_teardown),
        cmocka_unit_test_setup_teardown(guard_rate, guard_setup, guard_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
