/* The live viewer (docs/viewer.md): a page at /view and one WebSocket,
 * /view/ws, through which a person holding a link from `glovebox view`
 * watches the sessions live. One per HTTP transport (one per process). */
#pragma once
#include <stdbool.h>
#include <stddef.h>

struct app;
struct http_transport;
struct http_req;
struct session;
struct viewer;

/* Starts serving /view on t; writes DATA_DIR/viewer/serve-<pid>.url.
 * Never fails: without a data directory links cannot be made, and the page
 * says so. */
struct viewer *viewer_create(struct app *app, struct http_transport *t);
/* Closes every viewer; the memory goes once the handles are closed (see
 * viewer_busy). Accepts NULL. */
void viewer_shutdown(struct viewer *v);
/* Whether it still exists (handles closing after viewer_shutdown); it
 * clears the transport's pointer when it goes. Accepts NULL. */
bool viewer_busy(const struct viewer *v);

/* Routing hook of the HTTP server: true when req's path is the viewer's
 * (it has been answered, or taken over as a WebSocket: do not touch req). */
bool viewer_route(struct http_req *req);
/* Whether path is the viewer's: these requests carry no bearer token (a
 * browser cannot send one); the link's secret and its cookie stand in. */
bool viewer_path(const char *path);

/* A terminal's program wrote bytes (loop thread; cheap when nobody
 * watches). */
void viewer_session_output(struct session *s, const char *bytes, size_t len);
/* Its size changed: watchers get the screen again. */
void viewer_session_resized(struct session *s);

/* Whether a person took control of s in the viewer (agent input is then
 * refused). */
bool viewer_person_has_control(const struct session *s);

/* wait_for {control: "agent"}: fn(ud, note) once the person hands s back
 * (note: theirs, or NULL; borrowed), or its control ends otherwise (the
 * session ended, the server stops). Only while a person has control
 * (viewer_person_has_control). Loop thread. */
void viewer_control_when_agent(struct session *s, void (*fn)(void *ud, const char *note), void *ud);
/* Forget a waiter that has not been called (its call was cancelled or
 * timed out). */
void viewer_control_forget_waiter(void *ud);
