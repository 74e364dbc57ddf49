/* The interface every kind of screen implements. A backend is one folder
 * under src/backend/ and one entry in the catalogue (catalog.c). Operations a
 * kind cannot do are NULL, and the tool then answers "not supported by <kind>
 * sessions". Operations that take time answer through a callback so the loop
 * never blocks. Nothing here knows about JSON-RPC. */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct session;

struct backend_impl {
    const char *kind; /* "terminal", "desktop", "vnc", "webdriver", "android" */

    /* Begin ending the session (kill, disconnect). The backend calls
     * session_ended(s, reason) once everything it owns is released; it may do
     * so before returning. Called at most once. */
    void (*stop)(struct session *s);
    /* Free the backend's state. The session has ended. */
    void (*destroy)(struct session *s);
    /* Kind-specific facts for session_list and status (pid, size, display…):
     * a new JSON object. */
    json_t *(*describe)(struct session *s);
};

/* One requirement a backend has of this machine. */
struct backend_requirement {
    const char *what;    /* "Xvfb", "DejaVu Sans Mono font", … */
    const char *package; /* Debian package that provides it */
    bool (*present)(void);
};

struct backend_kind {
    const char *kind;
    const char *summary;
    bool implemented; /* this build can create sessions of this kind */
    const struct backend_requirement *requirements; /* NULL-terminated by what==NULL */
};

/* Every kind glovebox knows, in a fixed order; *count is set. */
const struct backend_kind *backend_kinds(int *count);
/* For each kind: {kind, implemented, available, missing:[{what, package}]}.
 * available means implemented and nothing missing. */
json_t *backend_check_all(void);
