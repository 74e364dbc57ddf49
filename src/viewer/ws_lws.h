/* The viewer's WebSocket over HTTPS: libwebsockets does the TLS and the
 * framing, and the connection is a struct ws (ws.h) to the viewer, with
 * the same checks at the upgrade (Host, Origin, cookie, page count) and
 * the same limits on what the page sends. For the HTTP server's protocol
 * list only. */
#pragma once
#include <libwebsockets.h>

#define VIEWER_WS_PROTOCOL  "glovebox.view.v1"
#define VIEWER_LWS_PSS_SIZE sizeof(void *)

int viewer_lws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                        size_t len);
