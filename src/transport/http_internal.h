/* Shared by the files of the HTTP transport. */
#pragma once
#include "core/app.h"
#include "core/strbuf.h"
#include "transport/http.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

struct lws;
struct lws_context;
struct mcp_session;

/* The health endpoint: no token, no Host check, says nothing but "ok". */
#define HTTP_HEALTH_PATH "/healthz"

enum http_method { HTTP_GET, HTTP_POST, HTTP_DELETE, HTTP_OPTIONS, HTTP_OTHER };

/* One HTTP request and its response. It lives while its connection does;
 * whoever streams into it (an SSE stream) is told through on_detach when the
 * client goes away. */
struct http_req {
    struct http_transport *t;
    struct lws *wsi;        /* TLS: NULL once the connection is gone */
    struct http_conn *conn; /* plain HTTP: NULL once the connection is gone */
    enum http_method method;
    char path[256];
    char query[512];
    char remote[64];
    /* Headers, copied at arrival (libwebsockets drops them later). */
    char *host, *origin, *authorization, *accept, *content_type;
    char *session_id, *protocol_version, *last_event_id, *mcp_method, *mcp_name;
    char *correlation_id; /* X-Correlation-Id (/v1) */
    /* The viewer's (src/viewer/): its cookie and a WebSocket upgrade. */
    char *cookie, *accept_encoding, *upgrade, *ws_key, *ws_version, *ws_protocol;
    long content_length; /* -1 if absent */
    struct strbuf body;
    bool discarding;  /* the body is over --max-message: read, dropped, then 413 */
    size_t discarded; /* bytes dropped so far */

    /* Response. */
    int status;
    const char *resp_type;      /* static string; NULL for none */
    struct strbuf resp_headers; /* "name:\nvalue\n" pairs added to the response */
    struct strbuf out;          /* body bytes not yet written */
    bool responding;            /* headers decided; waiting to be written */
    bool headers_sent;
    bool streaming;   /* SSE: no content length, ends by closing */
    bool ended;       /* nothing more will be added to out */
    bool close_after; /* the request body was not read: close, never reuse */
    bool counted;     /* counted in the client's open requests */
    bool routed;      /* handed to its endpoint: waiting for, or streaming, its answer */
    bool hung_up;     /* the client went away; the connection is being closed */
    struct http_req *prev, *next; /* the transport's open requests */

    void *owner;
    void (*on_detach)(struct http_req *req); /* connection closed before the end */
};

/* A request with no connection details yet (the server fills them in from
 * libwebsockets; the HTTP fuzz harness from its input). */
struct http_req *http_req_alloc(struct http_transport *t);
/* The connection is gone: tell whoever streams into req, then free it. */
void http_req_destroy(struct http_req *req);

/* Response building, in order: headers, then respond/stream. */
void http_req_header(struct http_req *req, const char *name, const char *value);
/* A complete response; body may be NULL. */
void http_req_respond(struct http_req *req, int status, const char *type, const char *body,
                      size_t len);
/* A JSON-RPC error with a null id (transport-level failures). */
void http_req_fail(struct http_req *req, int status, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Start an SSE response (200, text/event-stream). */
void http_req_stream(struct http_req *req);
/* Add bytes to a streaming response. */
void http_req_write(struct http_req *req, const char *data, size_t len);
/* End a streaming response. */
void http_req_end(struct http_req *req);
/* The Accept header lists this type (or a wildcard covering it). */
bool http_req_accepts(const struct http_req *req, const char *type);

/* Routing (after the guard and the body): by path. */
void http_dispatch(struct http_req *req);
/* Plain HTTP connections (http_conn.c). */
struct http_conn;
/* Serve an accepted socket (not TLS); takes fd. */
bool http_conn_adopt(struct http_transport *t, int fd, const char *remote);
/* The answer of req changed: write it once the current callback is over. */
void http_conn_want_write(struct http_req *req);
/* Take req's socket from the HTTP server (a WebSocket upgrade): *fd a
 * duplicate the caller owns, bytes read past the head appended to rest.
 * The connection and req are gone afterwards. False (nothing changed) for
 * a TLS request or when the socket cannot be duplicated. */
bool http_conn_detach(struct http_req *req, int *fd, struct strbuf *rest);
/* Close connections idle or stalled past their timeout. */
void http_conns_sweep(struct http_transport *t, uint64_t now_ms);
void http_conns_close_all(struct http_transport *t);
/* Routing (after the guard and the body). */
void http_mcp_handle(struct http_req *req);
void http_legacy_sse(struct http_req *req);
void http_legacy_message(struct http_req *req);
/* /v1 (http_rest.c): the REST API for orchestrators. */
bool http_rest_path(const char *path);
void http_rest_handle(struct http_req *req);
/* A refusal on a /v1 path: {"error": {code, message}} (caller frees). */
char *http_rest_error_body(int status, const char *message);
struct rest *http_rest_create(struct http_transport *t);
/* Every second: sessions idle past their idle_s end. */
void http_rest_sweep(struct http_transport *t);
/* At shutdown: event streams end. Accepts NULL. */
void http_rest_destroy(struct rest *r);

/* The guard: false when it already answered (403, 401, 429, 413…). */
bool http_guard_check(struct http_req *req);
/* The same Host and Origin rules for a request that has no http_req (a
 * WebSocket libwebsockets upgrades itself: the viewer's over HTTPS). */
bool http_guard_host_origin(struct http_transport *t, const char *host, const char *origin);
/* Per-client (remote address) accounting. */
bool http_guard_open(struct http_req *req);
void http_guard_close(struct http_req *req);
void http_guard_sweep(struct http_transport *t, uint64_t now_ms);

struct client_slot;
struct doomed_conn;

/* One listening socket (http_listen.c); accepted connections go to
 * libwebsockets. */
struct http_listener {
    struct http_transport *t;
    int fd; /* -1 once closed */
    uv_poll_t poll;
    bool polling;  /* poll initialised and not yet closed */
    bool paused;   /* out of descriptors: resumed by the sweep */
    char name[64]; /* "127.0.0.1:7800", "[::1]:7800": from getsockname */
    int port;
};

/* Bind every address host names (see http_options.host) on port; false with
 * *err (caller frees) naming the address, the port and why. */
bool http_listen_bind(struct http_transport *t, const char *host, int port, char **err);
/* The address of the client on an accepted descriptor (NULL if unknown). */
const char *http_listen_peer(const struct http_transport *t, int fd);
/* Start accepting on the loop, once t->vhost exists. */
void http_listen_start(struct http_transport *t);
/* Accept again after running out of descriptors (from the sweep). */
void http_listen_resume(struct http_transport *t);
/* Stop listening; t->n_listening counts the closes still to run. */
void http_listen_stop(struct http_transport *t);
/* Close sockets http_listen_start never saw (start-up failed). */
void http_listen_abandon(struct http_transport *t);

#define SESSION_INDEX_SIZE 1024 /* buckets of http_transport.session_index; a power of two */

struct http_transport {
    struct app *app;
    struct http_options opts;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    int port; /* of the first listener: the one the url names */
    struct http_listener listeners[2];
    char (*peers)[64]; /* by descriptor: the client's address, from accept */
    int n_peers;
    char allowed_host[128];  /* the last Host header found allowed */
    struct http_conn *conns; /* plain HTTP connections */
    int n_conns;             /* counted until their close completes */
    struct http_conn *flush_list;
    uv_idle_t flusher; /* writes answers given outside their request's callback */
    int n_listeners;
    int n_listening;  /* listener closes not yet completed */
    uv_timer_t sweep; /* idle sessions, old rate buckets */
    struct mcp_session *sessions;
    /* Every session not yet freed (live and doomed), by a hash of its id:
     * each request names its session, and walking a list of hundreds of
     * them cost more than the rest of finding its way. */
    struct mcp_session *session_index[SESSION_INDEX_SIZE];
    int n_sessions;
    int n_requests;
    struct http_req *routing; /* being routed now: its answer is written inline */
    struct client_slot *clients;
    struct http_req *reqs; /* open requests */
    /* Finished requests kept for the next ones, with their buffers: a
     * request is a kilobyte and three buffers, allocated for every call. */
    struct http_req *spare_reqs;
    int n_spare_reqs;
    uv_check_t hangups; /* finds clients that hung up mid-answer */
    uint64_t hangup_scan_ms;
    unsigned hangup_turns; /* loop turns since the streams' sockets were last peeked at */
    bool shutting_down;
    int shutdown_ticks;
    uv_timer_t reaper; /* runs deferred closes */
    struct mcp_session *doomed;
    struct doomed_conn *doomed_conns;
    struct rest *rest; /* the /v1 API (http_rest.c) */
    void (*done)(void *ud);
    void *done_ud;
    struct viewer *viewer; /* /view (src/viewer/) */
};

/* MCP sessions (http_mcp.c). */
void http_sessions_sweep(struct http_transport *t, uint64_t now_ms);
void http_sessions_close_all(struct http_transport *t);
void http_guard_finish(struct http_transport *t);

/* A logical MCP response stream: the answer to one POST (JSON or SSE), the
 * standalone GET stream of a session, or a 2024-11-05 /sse stream. It can
 * outlive the HTTP request it is written to: a client that reconnects with
 * Last-Event-ID gets the events it missed from a bounded replay buffer. */
struct sse_event {
    uint64_t seq;
    char *text; /* the whole event, "id: …\ndata: …\n\n" */
    size_t len;
};

enum stream_kind {
    STREAM_POST,       /* one request's answer */
    STREAM_STANDALONE, /* GET /mcp: messages tied to no request */
    STREAM_LEGACY,     /* GET /sse of the 2024-11-05 transport: everything */
};

struct mcp_stream {
    struct http_transport *t;
    enum stream_kind kind;
    struct mcp_session *session; /* NULL for a stateless 2026-07-28 request */
    struct mcp_conn *conn;       /* the session's, or the stateless request's own */
    struct http_req *req;        /* where events go now; NULL while disconnected */
    int number;                  /* names the stream in event ids */
    bool modern;
    bool creates_session; /* an initialize: its answer carries MCP-Session-Id */
    bool sse;             /* the answer became an event stream */
    bool done;            /* the final message is in */
    bool orphan;          /* its client left before it became resumable */
    uint64_t next_seq;
    uint64_t delivered; /* highest seq written to some connection */
    struct sse_event *events;
    size_t n_events, cap_events, bytes;
    struct mcp_stream *next; /* in the session's list */
};

struct mcp_session {
    struct http_transport *t;
    char id[40];
    struct mcp_conn *conn;
    struct mcp_stream *streams; /* kept for resumption, and the standalone one */
    int next_stream;
    uint64_t last_used_ms;
    bool legacy; /* 2024-11-05 HTTP+SSE: everything goes on its /sse stream */
    bool doomed; /* to be closed once the current callback is over */
    struct mcp_session *next;
    struct mcp_session *index_next; /* the transport's session index, same bucket */
};

/* Streams (http_stream.c). */
struct mcp_stream *stream_create(struct http_transport *t, enum stream_kind kind,
                                 struct mcp_session *s, struct mcp_conn *conn);
/* End the connection but keep the stream for Last-Event-ID. */
void http_stream_disconnect(struct mcp_stream *st);
/* The request waiting for this stream's answer (it stays plain JSON until
 * something comes before the answer). */
void stream_bind(struct mcp_stream *st, struct http_req *req);
/* Route the stream's output to req (SSE), replaying events after seq. */
void stream_attach(struct mcp_stream *st, struct http_req *req, uint64_t after_seq);
/* Add one message; final ends the stream. msg may be NULL. */
void stream_deliver(struct mcp_stream *st, json_t *msg, bool final);
void stream_free(struct mcp_stream *st);
struct mcp_stream *stream_find(struct mcp_session *s, int number);
/* Event ids are "<stream>-<seq>". */
bool stream_parse_event_id(const char *id, int *number, uint64_t *seq);

/* Sessions (http_session.c). */
struct mcp_session *session_open(struct http_transport *t, bool legacy, const char *remote);
struct mcp_session *session_lookup(struct http_transport *t, const char *id);
/* Ends the session now: requests in flight are cancelled, streams end. */
void session_close(struct mcp_session *s);
/* Close it once the current callback has returned (from inside its
 * connection's own send). */
void session_close_later(struct mcp_session *s);
/* Destroy a stateless request's connection once the current callback has
 * returned. */
void conn_destroy_later(struct http_transport *t, struct mcp_conn *c);
/* The stream given with notifications and responses: answered 202 already. */
extern char http_no_answer;
/* The send callback every HTTP mcp_conn uses. */
void http_conn_send(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud);
void http_conn_disconnect(struct mcp_conn *c, void *stream, void *ud);
