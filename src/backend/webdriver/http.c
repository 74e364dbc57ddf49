/* libcurl's multi interface driven by libuv (see http.h). curl tells us
 * which sockets to watch (socket_cb) and when to call it back
 * (timer_cb); the loop reports readiness through curl_multi_socket_action. */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/http.h"

#include "core/log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

/* A response larger than this is refused: a misbehaving endpoint must not
 * grow glovebox's memory without a bound (a full-page screenshot of a big
 * page stays well below it). */
#define MAX_RESPONSE (64u * 1024 * 1024)

struct request {
    struct wd_http *h;
    CURL *easy;
    struct curl_slist *headers;
    char *body_out;
    struct strbuf in;
    bool too_big;
    char errbuf[CURL_ERROR_SIZE];
    wd_http_done_fn done;
    void *ud;
    struct request *next;
};

struct wd_http {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t timer;
    struct request *requests;
    struct sock *socks; /* watchers open now */
    int open_handles;   /* uv handles not closed yet: freed at 0 once destroyed */
    bool destroyed;
};

/* The watcher of one socket curl uses. */
struct sock {
    uv_poll_t poll;
    struct wd_http *h;
    curl_socket_t fd;
    struct sock *next;
};

static void close_sock(struct sock *k);

static void maybe_free(struct wd_http *h)
{
    if (h->destroyed && h->open_handles == 0)
        free(h);
}

static void handle_closed(uv_handle_t *handle)
{
    struct wd_http *h = handle->data;
    h->open_handles--;
    maybe_free(h);
}

static void sock_closed(uv_handle_t *handle)
{
    struct sock *k = handle->data;
    struct wd_http *h = k->h;
    free(k);
    h->open_handles--;
    maybe_free(h);
}

static void unlink_request(struct request *r)
{
    for (struct request **pp = &r->h->requests; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            return;
        }
}

/* Takes r out of curl and answers it. */
static void finish_request(struct request *r, CURLcode rc, const char *why)
{
    struct wd_http *h = r->h;
    unlink_request(r);
    struct wd_http_response resp = {0};
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &resp.status);
    curl_multi_remove_handle(h->multi, r->easy);
    if (why) {
        resp.error = why;
        resp.status = 0;
    } else if (r->too_big) {
        resp.error = "the response was larger than 64 MiB";
    } else if (rc != CURLE_OK) {
        resp.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
        resp.no_connect = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                          rc == CURLE_COULDNT_RESOLVE_PROXY;
        resp.error = r->errbuf[0] ? r->errbuf : curl_easy_strerror(rc);
    }
    if (!resp.error) {
        resp.body = r->in.data;
        resp.len = r->in.len;
    }
    r->done(r->ud, &resp);
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    strbuf_finish(&r->in);
    free(r->body_out);
    free(r);
}

static void check_done(struct wd_http *h)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(h->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        struct request *r = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        CURLcode rc = m->data.result;
        /* m belongs to curl and ends with the handle's removal. */
        finish_request(r, rc, NULL);
    }
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    struct sock *k = p->data;
    struct wd_http *h = k->h;
    int flags = 0;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    int running;
    curl_multi_socket_action(h->multi, k->fd, flags, &running);
    check_done(h);
}

static void on_timer(uv_timer_t *t)
{
    struct wd_http *h = t->data;
    int running;
    curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(h);
}

static void close_sock(struct sock *k)
{
    for (struct sock **pp = &k->h->socks; *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    if (uv_is_closing((uv_handle_t *)&k->poll)) {
        /* The server's shutdown closed it (wd_http_destroy). */
        sock_closed((uv_handle_t *)&k->poll);
        return;
    }
    uv_poll_stop(&k->poll);
    uv_close((uv_handle_t *)&k->poll, sock_closed);
}

static int socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    (void)easy;
    struct wd_http *h = userp;
    struct sock *k = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (k) {
            curl_multi_assign(h->multi, fd, NULL);
            close_sock(k);
        }
        return 0;
    }
    if (!k) {
        k = xcalloc(1, sizeof *k);
        k->h = h;
        k->fd = fd;
        if (uv_poll_init_socket(h->loop, &k->poll, fd) != 0) {
            free(k);
            return -1;
        }
        k->poll.data = k;
        h->open_handles++;
        k->next = h->socks;
        h->socks = k;
        curl_multi_assign(h->multi, fd, k);
    }
    int events = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
    uv_poll_start(&k->poll, events, on_poll);
    return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    struct wd_http *h = userp;
    if (timeout_ms < 0)
        uv_timer_stop(&h->timer);
    else /* 0: as soon as the loop comes round, not from inside curl */
        uv_timer_start(&h->timer, on_timer, (uint64_t)timeout_ms, 0);
    return 0;
}

static size_t write_cb(char *data, size_t size, size_t n, void *ud)
{
    struct request *r = ud;
    size_t len = size * n;
    if (r->in.len + len > MAX_RESPONSE) {
        r->too_big = true;
        return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
    }
    strbuf_append(&r->in, data, len);
    return len;
}

struct wd_http *wd_http_create(uv_loop_t *loop)
{
    struct wd_http *h = xcalloc(1, sizeof *h);
    h->loop = loop;
    h->multi = curl_multi_init();
    if (!h->multi)
        abort();
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
    curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
    uv_timer_init(loop, &h->timer);
    h->timer.data = h;
    h->open_handles = 1;
    return h;
}

void wd_http_abort_all(struct wd_http *h, const char *why)
{
    if (!h)
        return;
    char *copy = xstrdup(why);
    while (h->requests)
        finish_request(h->requests, CURLE_OK, copy);
    free(copy);
}

void wd_http_destroy(struct wd_http *h)
{
    if (!h)
        return;
    wd_http_abort_all(h, "cancelled");
    /* Closes the kept connections; socket_cb closes their watchers. */
    curl_multi_cleanup(h->multi);
    h->multi = NULL;
    /* Whatever curl did not report removed before it went. */
    while (h->socks)
        close_sock(h->socks);
    h->destroyed = true;
    /* At exit the server closes every handle before sessions are destroyed
     * and the loop is gone by then: a closed handle is done with. */
    if (uv_is_closing((uv_handle_t *)&h->timer))
        handle_closed((uv_handle_t *)&h->timer);
    else
        uv_close((uv_handle_t *)&h->timer, handle_closed);
}

int wd_http_pending(const struct wd_http *h)
{
    int n = 0;
    for (const struct request *r = h->requests; r; r = r->next)
        n++;
    return n;
}

/* A request, set up but not started: the JSON body, if any, as content_type. */
static struct request *new_request(struct wd_http *h, const char *method, const char *url,
                                   const char *json_body, const char *content_type, long timeout_ms,
                                   wd_http_done_fn done, void *ud)
{
    struct request *r = xcalloc(1, sizeof *r);
    r->h = h;
    r->done = done;
    r->ud = ud;
    strbuf_init(&r->in);
    r->easy = curl_easy_init();
    if (!r->easy)
        abort();
    CURL *e = r->easy;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    /* No proxy from the environment: an endpoint is reached as named. */
    curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    r->headers = curl_slist_append(NULL, "Accept: application/json");
    if (json_body) {
        r->body_out = xstrdup(json_body);
        char *type = xasprintf("Content-Type: %s", content_type);
        r->headers = curl_slist_append(r->headers, type);
        free(type);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body_out);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(r->body_out));
    }
    return r;
}

static void start_request(struct request *r)
{
    struct wd_http *h = r->h;
    CURL *e = r->easy;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    r->next = h->requests;
    h->requests = r;
    CURLMcode mc = curl_multi_add_handle(h->multi, e);
    if (mc != CURLM_OK)
        finish_request(r, CURLE_OK, curl_multi_strerror(mc));
}

void wd_http_request(struct wd_http *h, const char *method, const char *url, const char *json_body,
                     long timeout_ms, wd_http_done_fn done, void *ud)
{
    struct request *r = new_request(h, method, url, json_body, "application/json; charset=utf-8",
                                    timeout_ms, done, ud);
    /* Without it curl waits a second for "100 Continue" on larger bodies. */
    r->headers = curl_slist_append(r->headers, "Expect:");
    start_request(r);
}

void wd_http_request_aws(struct wd_http *h, const char *url, const struct wd_aws *aws,
                         const char *json_body, long timeout_ms, wd_http_done_fn done, void *ud)
{
    struct request *r =
        new_request(h, "POST", url, json_body, "application/x-amz-json-1.1", timeout_ms, done, ud);
    char *target = xasprintf("X-Amz-Target: %s", aws->target);
    r->headers = curl_slist_append(r->headers, target);
    free(target);
    if (aws->token && *aws->token) {
        char *token = xasprintf("X-Amz-Security-Token: %s", aws->token);
        r->headers = curl_slist_append(r->headers, token);
        explicit_bzero(token, strlen(token));
        free(token);
    }
    /* libcurl signs it: Signature Version 4 over the method, path, headers
     * and body, with the key and the scope aws:amz:<region>:<service>. No
     * "Expect:" to switch 100-continue off here: libcurl 7.88 signs that
     * empty header although it never sends it (API bodies are small). */
    char *scope = xasprintf("aws:amz:%s:%s", aws->region, aws->service);
    curl_easy_setopt(r->easy, CURLOPT_AWS_SIGV4, scope);
    free(scope);
    curl_easy_setopt(r->easy, CURLOPT_USERNAME, aws->key_id);
    curl_easy_setopt(r->easy, CURLOPT_PASSWORD, aws->secret);
    start_request(r);
}
