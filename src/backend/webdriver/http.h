/* An HTTP client on the libuv loop: libcurl's multi interface, its sockets
 * watched with uv_poll and its timeouts with a uv_timer, so no call blocks
 * the loop and no thread is made per request. One client per WebDriver
 * session: its connections to the endpoint are kept and reused. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

struct wd_http;

/* How a request ended. status is the HTTP status (0: no response). */
struct wd_http_response {
    long status;
    char *body; /* NUL-terminated; NULL when nothing arrived */
    size_t len;
    bool timed_out;    /* the request's time limit ran out */
    bool no_connect;   /* the endpoint could not be reached (refused, no route, DNS) */
    const char *error; /* libcurl's reason when the transfer failed, else NULL */
};

/* Called once per request, on the loop; resp is valid during the call only. */
typedef void (*wd_http_done_fn)(void *ud, const struct wd_http_response *resp);

struct wd_http *wd_http_create(uv_loop_t *loop);
/* Ends every request in flight, calling each done with error "cancelled",
 * and frees the client once libuv has closed its handles. Accepts NULL. */
void wd_http_destroy(struct wd_http *h);
/* Ends every request in flight now; each done is called with error set to
 * why (copied). */
void wd_http_abort_all(struct wd_http *h, const char *why);
/* Starts a request. url may hold user:password@ (sent as basic auth).
 * json_body: sent as application/json (copied), NULL for none.
 * timeout_ms: the whole request, connecting included. done is always called
 * (maybe before this returns when the request cannot start). */
void wd_http_request(struct wd_http *h, const char *method, const char *url, const char *json_body,
                     long timeout_ms, wd_http_done_fn done, void *ud);
/* Requests in flight. */
int wd_http_pending(const struct wd_http *h);

/* An AWS JSON 1.1 API call (POST), signed with Signature Version 4 by
 * libcurl: target is the operation ("DeviceFarm_20150623.GetRemoteAccessSession"). */
struct wd_aws {
    const char *region, *service, *target;
    const char *key_id, *secret, *token; /* token: NULL without a session token */
};
void wd_http_request_aws(struct wd_http *h, const char *url, const struct wd_aws *aws,
                         const char *json_body, long timeout_ms, wd_http_done_fn done, void *ud);
