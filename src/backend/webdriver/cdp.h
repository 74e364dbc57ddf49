/* A DevTools (CDP) client on the libuv loop: one WebSocket to one page
 * target of a browser glovebox started, on loopback. Commands with ids and
 * their replies, and the events the page sends. Used to take what
 * chromedriver would answer more slowly (cast.c); never for endpoints
 * glovebox does not own. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <uv.h>

struct wd_cdp;

/* A command's outcome: result (borrowed) or err. */
typedef void (*wd_cdp_reply_fn)(void *ud, json_t *result, const char *err);
/* An event of the page's own session, or a Target.* event of any (params
 * borrowed); method NULL when the socket is gone (then
 * no more events or replies come). */
typedef void (*wd_cdp_event_fn)(void *ud, const char *method, json_t *params);

/* Connects to ws://127.0.0.1:port<path>; events go to ev. */
struct wd_cdp *wd_cdp_open(uv_loop_t *loop, int port, const char *path, wd_cdp_event_fn ev,
                           void *ud);
/* Whether the WebSocket is open (commands are answered). */
bool wd_cdp_ready(const struct wd_cdp *c);
/* Sends method with params (stolen; NULL: {}); fn hears the result, or err
 * when the socket goes or no answer comes within timeout_ms. fn may be
 * NULL (no answer wanted). */
void wd_cdp_call(struct wd_cdp *c, const char *method, json_t *params, long timeout_ms,
                 wd_cdp_reply_fn fn, void *ud);
/* wd_cdp_call in the flat session session (a target attached with
 * Target.setAutoAttach {flatten}); NULL: the page's own. */
void wd_cdp_call_in(struct wd_cdp *c, const char *session, const char *method, json_t *params,
                    long timeout_ms, wd_cdp_reply_fn fn, void *ud);
/* Closes: commands in flight hear err "closed"; no event after. Accepts NULL. */
void wd_cdp_close(struct wd_cdp *c);
