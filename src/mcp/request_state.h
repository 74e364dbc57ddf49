/* Tamper-proof requestState for 2026-07-28 multi round-trip requests. The
 * state travels through the client, so it is treated as hostile input: it
 * carries an expiry and a nonce, authenticated with HMAC-SHA256 under a key
 * drawn from getrandom once per process, over the tool name and the
 * canonical arguments. A state is valid only for the call it was issued for,
 * only until it expires, only in the process that issued it, and only once. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

enum request_state_check {
    REQUEST_STATE_OK,
    REQUEST_STATE_MALFORMED, /* not a state this server writes */
    REQUEST_STATE_MISMATCH,  /* altered, for another tool or arguments, or another process */
    REQUEST_STATE_EXPIRED,
    REQUEST_STATE_REUSED, /* already redeemed */
};

/* A new state (malloc'd, printable ASCII) for tool + args that expires at
 * expires_ms (the caller's monotonic clock, e.g. uv_now). */
char *request_state_issue(const char *tool, const json_t *args, uint64_t expires_ms);
/* Checks state against the call it comes back with. With redeem, a state
 * that passes is remembered until it expires, and presenting it again is
 * REQUEST_STATE_REUSED. */
enum request_state_check request_state_verify(const char *state, const char *tool,
                                              const json_t *args, uint64_t now_ms, bool redeem);
/* A sentence for the client, e.g. "it was altered or belongs to other arguments". */
const char *request_state_check_text(enum request_state_check c);
