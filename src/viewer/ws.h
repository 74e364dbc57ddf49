/* A server-side WebSocket (RFC 6455) on a socket taken over from the plain
 * HTTP server after an Upgrade: the viewer's one channel. Strict: client
 * frames must be masked, whole (no fragments) and at most WS_MAX_IN bytes;
 * a client sending more than WS_MAX_RATE messages a second, garbage or an
 * oversized frame is closed — that client only. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define WS_MAX_IN   65536 /* bytes of one client message */
#define WS_MAX_RATE 200   /* client messages a second (bursts of twice that) */

struct ws;

struct ws_handlers {
    /* A whole text or binary message (loop thread). */
    void (*message)(struct ws *ws, bool text, const char *data, size_t len, void *ud);
    /* The socket is closed; ws is freed right after this returns. */
    void (*closed)(struct ws *ws, void *ud);
};

/* Answers the upgrade (101 with Sec-WebSocket-Accept for key and the chosen
 * protocol) on fd (taken) and serves it; in[0..n) are bytes already read
 * past the request head. NULL with *err (malloc'd) when fd cannot be used. */
struct ws *ws_create(uv_loop_t *loop, int fd, const char *key, const char *protocol, const char *in,
                     size_t n, const struct ws_handlers *h, void *ud, char **err);
/* Queue one message. Nothing happens once closing. */
void ws_send(struct ws *ws, bool text, const void *data, size_t len);
/* The same with the payload in two parts (a header and shared bytes). */
void ws_send2(struct ws *ws, const void *a, size_t alen, const void *b, size_t blen);
/* Bytes queued and not yet taken by the kernel. */
size_t ws_queued(const struct ws *ws);
/* Send a close frame (code, reason) and close; closed() runs later. */
void ws_close(struct ws *ws, uint16_t code, const char *reason);
/* Handles the messages that came with the upgrade request (ws_create's in):
 * call once the caller can take messages (it holds ws). */
void ws_start(struct ws *ws);
/* Whether ws_close was called or the peer went away. */
bool ws_closing(const struct ws *ws);
/* The Sec-WebSocket-Accept value for key into out[29]. */
void ws_accept_key(const char *key, char *out);

/* Over HTTPS libwebsockets frames the connection (ws_lws.c); a ws around
 * it has the same interface and limits. */
struct ws_lws;
struct ws *ws_create_lws(uv_loop_t *loop, struct ws_lws *l, const struct ws_handlers *h, void *ud);
/* ws_lws.c's side: a whole message came (rate-limited here), and the
 * connection is gone (closed() runs, ws is freed). */
void ws_lws_message(struct ws *ws, bool text, const char *data, size_t len);
void ws_lws_gone(struct ws *ws);
/* ws.c's side, ws_lws.c's work. */
void ws_lws_send(struct ws_lws *l, bool text, const void *a, size_t alen, const void *b,
                 size_t blen);
void ws_lws_close(struct ws_lws *l, uint16_t code, const char *reason);
size_t ws_lws_queued(const struct ws_lws *l);
