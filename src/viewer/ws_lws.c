/* The viewer's WebSocket over HTTPS (ws_lws.h). libwebsockets answers the
 * upgrade once the checks here pass (the same as over plain HTTP, but a
 * refusal closes the connection: libwebsockets gives no status to send),
 * delivers messages in pieces we put together, and writes one queued
 * message each time the connection can take one. */
#define LOG_MODULE "viewer"
#include "viewer/ws_lws.h"

#include "core/xmalloc.h"
#include "transport/http_internal.h"
#include "viewer/internal.h"
#include "viewer/ws.h"

#include <stdlib.h>
#include <string.h>

struct out {
    struct out *next;
    size_t len;
    bool text;
    unsigned char data[]; /* LWS_PRE bytes, then the message */
};

struct ws_lws {
    struct lws *wsi;
    struct ws *ws; /* from the upgrade on; NULL before */
    struct view_grant grant;
    struct out *head, **tail;
    size_t queued;
    bool closing, close_sent;
    uint16_t code;
    char reason[123];
    /* A message arriving in pieces. */
    unsigned char *msg;
    size_t msg_len;
    bool too_big;
};

/* Checks what a plain upgrade is checked for (viewer/http.c); the grant
 * into l, or NULL when refused. */
static struct ws_lws *admit(struct lws *wsi, struct http_transport *t)
{
    struct viewer *v = t->viewer;
    char uri[64], host[256], origin[256], cookie[1024];
    if (!v || v->shut || lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
        strcmp(uri, "/view/ws") != 0)
        return NULL;
    bool has_origin = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) > 0;
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0 ||
        !http_guard_host_origin(t, host, has_origin ? origin : NULL))
        return NULL;
    if (lws_hdr_copy(wsi, cookie, sizeof cookie, WSI_TOKEN_HTTP_COOKIE) <= 0)
        return NULL;
    const struct view_grant *g = viewer_grant_of_cookie(v, cookie);
    if (!g || v->n_clients >= VIEW_MAX_CLIENTS)
        return NULL;
    struct ws_lws *l = xcalloc(1, sizeof *l);
    l->grant = *g;
    l->tail = &l->head;
    return l;
}

static void lws_free_(struct ws_lws *l)
{
    while (l->head) {
        struct out *o = l->head;
        l->head = o->next;
        free(o);
    }
    free(l->msg);
    free(l);
}

void ws_lws_send(struct ws_lws *l, bool text, const void *a, size_t alen, const void *b,
                 size_t blen)
{
    if (l->closing || !l->wsi)
        return;
    struct out *o = xmalloc(sizeof *o + LWS_PRE + alen + blen);
    o->next = NULL;
    o->len = alen + blen;
    o->text = text;
    if (alen)
        memcpy(o->data + LWS_PRE, a, alen);
    if (blen)
        memcpy(o->data + LWS_PRE + alen, b, blen);
    *l->tail = o;
    l->tail = &o->next;
    l->queued += o->len;
    lws_callback_on_writable(l->wsi);
}

void ws_lws_close(struct ws_lws *l, uint16_t code, const char *reason)
{
    if (l->closing)
        return;
    l->closing = true;
    l->code = code;
    snprintf(l->reason, sizeof l->reason, "%s", reason);
    if (l->wsi)
        lws_callback_on_writable(l->wsi);
}

size_t ws_lws_queued(const struct ws_lws *l)
{
    return l->queued;
}

static int writeable(struct ws_lws *l)
{
    struct out *o = l->head;
    if (o) {
        l->head = o->next;
        if (!l->head)
            l->tail = &l->head;
        l->queued -= o->len;
        int n = lws_write(l->wsi, o->data + LWS_PRE, o->len,
                          o->text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY);
        free(o);
        if (n < 0)
            return -1;
        if (l->head || l->closing)
            lws_callback_on_writable(l->wsi);
        return 0;
    }
    if (l->closing && !l->close_sent) {
        /* The close frame, then the page's answer to it ends the
         * connection (libwebsockets' own close, returning -1 here, cuts it
         * while the page may still be sending: the frame is lost). */
        unsigned char buf[LWS_PRE + 125];
        size_t rl = strlen(l->reason);
        buf[LWS_PRE] = (unsigned char)(l->code >> 8);
        buf[LWS_PRE + 1] = (unsigned char)l->code;
        memcpy(buf + LWS_PRE + 2, l->reason, rl);
        l->close_sent = true;
        /* LWS_WRITE_CLOSE (4): not in the public enum, handled by lws_write. */
        if (lws_write(l->wsi, buf + LWS_PRE, rl + 2, (enum lws_write_protocol)4) < 0)
            return -1;
        lws_set_timeout(l->wsi, PENDING_TIMEOUT_CLOSE_ACK, 5);
    }
    return 0;
}

/* A piece of a message: put together up to WS_MAX_IN bytes. */
static void receive(struct ws_lws *l, const void *in, size_t len)
{
    if (lws_is_first_fragment(l->wsi)) {
        l->msg_len = 0;
        l->too_big = false;
    }
    if (!l->too_big && l->msg_len + len > WS_MAX_IN) {
        l->too_big = true;
        ws_close(l->ws, 1009, "message too big: at most 65536 bytes");
    }
    if (l->too_big || l->closing)
        return;
    if (!l->msg)
        l->msg = xmalloc(WS_MAX_IN);
    memcpy(l->msg + l->msg_len, in, len);
    l->msg_len += len;
    if (lws_is_final_fragment(l->wsi) && !lws_remaining_packet_payload(l->wsi))
        ws_lws_message(l->ws, !lws_frame_is_binary(l->wsi), (const char *)l->msg, l->msg_len);
}

int viewer_lws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                        size_t len)
{
    struct ws_lws **pl = user;
    if (!pl) /* no connection state: nothing of ours yet, or any more */
        return reason == LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION;
    struct http_transport *t = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        *pl = admit(wsi, t);
        return *pl ? 0 : 1;
    case LWS_CALLBACK_ESTABLISHED: {
        struct ws_lws *l = *pl;
        if (!l || !t->viewer || t->viewer->shut)
            return -1;
        l->wsi = wsi;
        l->ws = viewer_client_open_lws(t->viewer, l, &l->grant);
        return l->ws ? 0 : -1;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* The page's answer to our close: end without a second close
         * frame (a page takes one after its answer as a broken
         * connection, 1006). A close the page began is echoed. */
        return *pl && (*pl)->close_sent ? 1 : 0;
    case LWS_CALLBACK_RECEIVE:
        if (*pl && (*pl)->ws)
            receive(*pl, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return *pl && (*pl)->wsi ? writeable(*pl) : 0;
    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_WSI_DESTROY:
        if (*pl) {
            struct ws_lws *l = *pl;
            *pl = NULL;
            l->wsi = NULL;
            if (l->ws)
                ws_lws_gone(l->ws); /* the viewer lets go of it */
            lws_free_(l);
        }
        return 0;
    default:
        return 0;
    }
}
