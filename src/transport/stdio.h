/* The stdio transport: messages on stdin, replies on stdout, in the framing
 * the client used (newline-delimited JSON, or Content-Length when the first
 * byte is 'C'). Logs never go to stdout. */
#pragma once
#include <stdbool.h>

struct app;
struct stdio_transport;

/* Start reading stdin. closed(ud) runs once when stdin reaches EOF or fails. */
struct stdio_transport *stdio_transport_start(struct app *app, void (*closed)(void *ud), void *ud,
                                              char **err);
/* Stop reading and cancel requests in flight; replies already queued are
 * still written. drained(ud) runs once everything queued is on stdout (or
 * stdout is gone). Then destroy. */
void stdio_transport_shutdown(struct stdio_transport *t, void (*drained)(void *ud), void *ud);
void stdio_transport_destroy(struct stdio_transport *t);
