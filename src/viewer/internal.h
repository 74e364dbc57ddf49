/* Shared by the files of the live viewer. */
#pragma once
#include "core/app.h"
#include "image/frame.h"
#include "viewer/links.h"
#include "viewer/viewer.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#define VIEW_PROTOCOL "glovebox.view.v1"
#define VIEW_COOKIE   "glovebox_view"
/* Open viewer pages (WebSockets) at once, and remembered page grants. */
#define VIEW_MAX_CLIENTS 32
#define VIEW_MAX_GRANTS  256
/* Queued bytes past which a viewer is behind: terminals skip to a fresh
 * screen, desktops skip frames. */
#define VIEW_BEHIND_BYTES (1u << 20)

struct ws;
struct feed;
struct session;

/* What a page may do: from its link, through its cookie. */
struct view_grant {
    char cookie_hash[65];
    char link_id[VIEW_ID_LEN + 1];
    enum view_role role;
    char session[48]; /* "" every session */
    int64_t expires;  /* unix seconds */
    struct view_grant *next;
};

struct view_client {
    struct viewer *v;
    struct ws *ws;
    struct view_grant grant; /* a copy */
    char watching[48];       /* session id; "" none */
    bool terminal;           /* watching a terminal */
    bool needs_replay;       /* fell behind: send the screen again when drained */
    char *last_list;         /* the session list last sent (JSON text) */
    /* A desktop: its feed and what this page lacks. */
    struct feed *feed;
    uint8_t *dirty, *lossy; /* one byte per tile */
    int unacked;            /* frames sent and not acknowledged */
    uint64_t job;           /* the feed job this page is part of; 0 none */
    int group;              /* its group in that job */
    struct view_client *next;
};

struct viewer {
    struct app *app;
    struct http_transport *t;
    char *url_file; /* NULL if not written */
    struct view_grant *grants;
    struct view_client *clients;
    int n_clients;
    struct feed *feeds;
    uv_timer_t sweep;
    int closing; /* handles not yet closed */
    bool shut;
};

extern struct viewer *viewer_the;

/* Grants (auth.c). */
/* Exchange a link ("id.secret") for a new grant; the cookie value into
 * cookie[65]. False with *status and *why for the page. */
bool viewer_grant_exchange(struct viewer *v, const char *link, char *cookie,
                           const struct view_grant **out, int *status, const char **why);
/* The grant of a Cookie header, valid now (not expired, its link not
 * revoked); NULL otherwise. */
const struct view_grant *viewer_grant_of_cookie(struct viewer *v, const char *cookie_header);
/* Whether g still holds (expiry, revocation). */
bool viewer_grant_valid(struct viewer *v, const struct view_grant *g, const char **why);
void viewer_grants_finish(struct viewer *v);

/* Clients (client.c). */
void viewer_client_open(struct viewer *v, int fd, const char *key, const char *in, size_t n,
                        const struct view_grant *g);
/* The same over HTTPS, on a connection libwebsockets serves (ws_lws.c):
 * the page's ws. */
struct ws_lws;
struct ws *viewer_client_open_lws(struct viewer *v, struct ws_lws *l, const struct view_grant *g);
/* Once a second: expiry and revocation, session list, ended sessions. */
void viewer_clients_sweep(struct viewer *v);
void viewer_clients_close_all(struct viewer *v);
void viewer_client_send_json(struct view_client *c, json_t *msg);
/* Send a terminal page the whole screen (after joining, a resize, or
 * falling behind). */
void viewer_send_replay(struct view_client *c, struct session *s);
/* A client or feed finished closing: free the viewer if it is shut. */
void viewer_release(struct viewer *v);

/* Desktop feeds (feed.c). */
/* Start sending c the frames of desktop s; false with *err. */
bool viewer_feed_join(struct viewer *v, struct view_client *c, struct session *s, char **err);
void viewer_feed_leave(struct view_client *c);
void viewer_feed_ack(struct view_client *c, uint32_t seq);
void viewer_feeds_close_all(struct viewer *v);
/* When the desktop a page watches last changed on screen (uv_now ms); 0
 * when no page watches it. */
uint64_t viewer_feed_changed_ms(struct viewer *v, const char *session);
/* The monitors (RandR) of the desktop a page watches, as last sent to the
 * pages (borrowed); NULL when not known or no page watches it. */
const json_t *viewer_feed_monitors(struct viewer *v, const char *session);
/* The session with this id (any state), or NULL. */
struct session *viewer_session_find(struct viewer *v, const char *id);

/* Approval cards (cards.c). */
void viewer_cards_start(struct viewer *v);
void viewer_cards_stop(void);
/* Send c every open question. */
void viewer_cards_send(struct view_client *c);
/* c answered question id. */
void viewer_card_answer(struct view_client *c, const char *id, bool yes);
/* Where the call of card id acts is known: bounds {x, y, width, height}
 * (borrowed), or NULL when its ref could not be found. */
void viewer_card_located(const char *id, const json_t *bounds);

/* Card markers (card_target.c). */
/* Where a call acts: {session, x, y}, {session, ref}, or NULL (a new object). */
json_t *viewer_card_target(struct viewer *v, const json_t *args, const char *caller);
/* Looks up the bounds of a {session, ref} target, then viewer_card_located. */
void viewer_card_target_resolve(struct viewer *v, const char *card, const json_t *target);

/* Takeover (control.c). */
void viewer_control_take(struct view_client *c);
void viewer_control_handback(struct view_client *c, const char *note);
void viewer_control_input(struct view_client *c, const char *data, size_t len);
/* A "pointer" or "key" message from c's page (a desktop it controls). */
void viewer_control_event(struct view_client *c, const json_t *msg);
/* Tell c who controls the session it watches. */
void viewer_control_send_state(struct view_client *c);
/* c's page went away (grace period); once a second; at shutdown. */
void viewer_control_left(struct view_client *c);
void viewer_control_sweep(struct viewer *v);
void viewer_control_finish(void);

/* The X11 keysym of a browser KeyboardEvent's key (code tells left from
 * right modifiers); 0 for a key with none (dead keys, media keys).
 * *is_char: it types a character (keysym.c). */
uint32_t viewer_keysym(const char *key, const char *code, bool *is_char);

/* Page assets (assets.c, generated). */
struct view_asset {
    const char *path; /* "/view/view.js" */
    const char *mime;
    const unsigned char *gz; /* gzip */
    size_t gz_len, len;
};
extern const struct view_asset view_assets[];
extern const size_t view_n_assets;
