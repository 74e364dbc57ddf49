/* The interface every kind of screen implements. A backend is one folder
 * under src/backend/ and one entry in the list of kinds (kinds.c). Operations a
 * kind cannot do are NULL, and the tool then answers "not supported by <kind>
 * sessions". Operations that take time answer through a callback so the loop
 * never blocks. Nothing here knows about JSON-RPC. */
#pragma once
#include "core/error_code.h"
#include "image/encode.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app;
struct session;
struct backend_result;
struct frame_source;
struct resource_provider;
struct backend_view_event;

/* A rectangle of a screen, in the screen's pixels. */
struct screen_rect {
    int x, y, width, height;
};

/* What the policy decided for one call, handed to the backend by the gate
 * (tools/screen_call.c): backends never ask the policy themselves, so every
 * kind gets the same rules. Lives until the call is answered. */
struct screen_guard {
    /* Areas painted over in every image of the screen this call makes. */
    const struct screen_rect *redact;
    size_t n_redact;
    /* Whether input may reach the window with this title and application
     * name; false with *why (malloc'd, for the user) when a rule forbids it.
     * NULL: no rule restricts input. Any thread. */
    bool (*input_allowed)(const struct screen_guard *g, const char *title, const char *app,
                          char **why);
    void *data; /* the gate's, for input_allowed */
};
/* No rules: nothing redacted, input anywhere. */
extern const struct screen_guard screen_guard_none;

/* One operation on a session (read text, type, wait, screenshot, …). The
 * arguments have been validated against the tool's schema. The backend
 * answers exactly once with backend_call_done*() or backend_call_fail(),
 * now or later; after that bc is gone. */
struct backend_call {
    struct session *session;
    const json_t *args; /* borrowed, valid until answered */
    struct app *app;
    /* The policy's decisions for this call; never NULL for a tool call. */
    const struct screen_guard *guard;
    /* Set by a backend whose operation can be stopped early (a wait): the
     * client cancelled. The backend must still answer (it is not sent). */
    void (*cancel)(struct backend_call *bc);
    void *backend_data; /* the backend's, for cancel */
    /* Who asked (a tool call, a resource read) and how it takes the answer;
     * set by the caller, which also frees bc in finish. */
    void *owner;
    void (*finish)(struct backend_call *bc, struct backend_result *r);
    /* Who asked, as a key (tool_call_owner: an MCP session, a stdio
     * connection); NULL: a stateless request or no client. Borrowed. */
    const char *caller;
    /* Record a fact about the call for the audit log ("redacted": the text
     * went into a password field); NULL when nobody records. value stolen. */
    void (*note)(struct backend_call *bc, const char *key, json_t *value);
    /* Keep the call's audit record open after the answer, to add notes
     * learnt later (mcp/tool.h tool_call_hold); NULL when nobody records.
     * Use backend_call_hold. */
    struct backend_hold *(*hold)(struct backend_call *bc, json_t *fallback);
    /* Tell the caller how far a long operation got (done of total, a short
     * message); NULL when nobody listens. Loop thread. */
    void (*progress)(struct backend_call *bc, double done, double total, const char *message);
};

/* An open audit record (backend_call_hold); released exactly once. */
struct backend_hold {
    void (*release)(struct backend_hold *h, json_t *notes);
};

/* Holds bc's audit record open past its answer, to be completed with
 * backend_hold_release (from the loop thread, any time, even after bc is
 * gone). fallback (stolen, an object) is what gets noted if the server
 * shuts down first: the cautious answer. NULL (fallback freed) when nobody
 * records the call: nothing needs finding out. Call before answering bc. */
struct backend_hold *backend_call_hold(struct backend_call *bc, json_t *fallback);
/* Adds notes (stolen, an object; NULL: none) to the record and releases the
 * hold (freed). NULL h: notes freed. Loop thread. */
void backend_hold_release(struct backend_hold *h, json_t *notes);

/* What an answer carries besides its data; the caller presents each kind its
 * own way (text; an inline image; a link the client fetches). */
enum backend_result_kind {
    BACKEND_RESULT_TEXT,  /* data and text */
    BACKEND_RESULT_IMAGE, /* plus an encoded image: bytes, len, mime */
    BACKEND_RESULT_LINK,  /* plus a resource to fetch: uri, name, mime */
};

/* An operation's answer, handed to finish (which owns its contents). */
struct backend_result {
    enum backend_result_kind kind;
    char *error;          /* failure: the message for the user; else NULL */
    enum error_code code; /* of a failure */
    json_t *data;         /* structured result; may be NULL */
    char *text;           /* short readable summary */
    uint8_t *bytes;       /* IMAGE: the encoded image */
    size_t len;           /* bytes */
    const char *mime;     /* IMAGE, LINK: "image/png", … */
    char *uri;            /* LINK: "glovebox://…" */
    const char *name;     /* LINK: a short name for the resource */
    /* TEXT: the answer's content blocks made already (borrowed; may be
     * NULL): [{"type": "text", "text": text}], kept by a backend that
     * gives the same answer again. Owners that build their own from text
     * may ignore it. */
    json_t *content;
};

void backend_call_done(struct backend_call *bc, json_t *data, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* As backend_call_done with the text of content, which
 * backend_text_content made (borrowed, never changed): a backend that
 * keeps its answer while nothing changes gives it again this way. */
void backend_call_done_content(struct backend_call *bc, json_t *data, json_t *content);
/* [{"type": "text", "text": text}]: the content blocks backend_call_done's
 * text becomes (invalid UTF-8 replaced). New reference. */
json_t *backend_text_content(const char *text, size_t len);
/* An encoded image (bytes stolen) with a caption. */
void backend_call_done_image(struct backend_call *bc, json_t *data, uint8_t *bytes, size_t len,
                             const char *mime, const char *caption);
/* A resource the client fetches (a recording, the screen): data (stolen),
 * its uri, a short name and its MIME type, with a caption. */
void backend_call_done_link(struct backend_call *bc, json_t *data, const char *uri,
                            const char *name, const char *mime, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* wait_for's answer for every kind of screen: {session, matched,
 * elapsed_ms, source (what was looked at: "ocr", "page", …), line (null
 * when NULL), reason (when given: "timed out", "cancelled")}, captioned
 * "matched after N ms" or "not matched after N ms: reason". */
void backend_call_done_wait(struct backend_call *bc, bool matched, uint64_t elapsed_ms,
                            const char *source, const char *line, const char *reason);
/* wait_for's regex (NULL: none, *re NULL) compiled into *re (caller
 * destroys); false when it does not compile: bc answered invalid_argument. */
struct pattern;
bool backend_wait_regex(struct backend_call *bc, const char *regex, struct pattern **re);
/* Failure with code ERROR_TOOL_FAILED. */
void backend_call_fail(struct backend_call *bc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Failure with a code from core/error_code.h (invalid_argument, not_found, …). */
void backend_call_fail_code(struct backend_call *bc, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

typedef void (*backend_op)(struct backend_call *bc);

/* One listener to a screen's changes (backend_impl.watch_changes): changed
 * runs on the loop thread after each change of the screen that happened
 * after the listener was added. It must not add or remove listeners. */
struct backend_change_watch {
    void (*changed)(struct backend_change_watch *w);
    struct backend_change_watch *next; /* the backend's list */
    uint64_t since;                    /* the backend's: where this listener began */
};

/* The list a backend keeps its listeners in (loop thread). */
static inline void backend_changes_add(struct backend_change_watch **list,
                                       struct backend_change_watch *w)
{
    w->next = *list;
    *list = w;
}
static inline void backend_changes_remove(struct backend_change_watch **list,
                                          struct backend_change_watch *w)
{
    for (struct backend_change_watch **p = list; *p; p = &(*p)->next) {
        if (*p == w) {
            *p = w->next;
            return;
        }
    }
}
static inline bool backend_changes_has(const struct backend_change_watch *list,
                                       const struct backend_change_watch *w)
{
    for (; list; list = list->next)
        if (list == w)
            return true;
    return false;
}
static inline void backend_changes_notify(struct backend_change_watch *list)
{
    for (struct backend_change_watch *w = list; w; w = w->next)
        w->changed(w);
}

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

    /* Perceive and act: NULL where this kind cannot. */
    backend_op read_text;
    backend_op snapshot;
    backend_op screenshot;
    backend_op type_text;
    backend_op press_key;
    backend_op click;  /* {x, y | ref | text; button; count; hold_ms; scale} */
    backend_op drag;   /* {from, to, button, duration_ms, scale} */
    backend_op scroll; /* {direction, amount, x?, y?, scale} */
    backend_op window_list;
    backend_op window_manage; /* {window, action, x?, y?, width?, height?, force?} */
    backend_op wait_for;
    /* A shell command typed at the prompt, answered with its output and
     * exit status: {command, timeout_ms?} (terminals). */
    backend_op run;
    backend_op find;       /* elements by text/role (desktops) */
    backend_op element_at; /* {x, y}: the element at a point (desktops) */
    backend_op inspect;    /* {ref}: everything known about one element */
    backend_op set_value;  /* {ref, value}: a slider's or spin button's value */
    backend_op scroll_to;  /* {text | ref | role, direction?, max_scrolls?} */
    backend_op hover;      /* {x, y | ref}: the pointer moved there, nothing pressed */
    backend_op resize;
    backend_op record_start;
    backend_op record_stop;
    backend_op clipboard_get; /* {selection} */
    backend_op clipboard_set; /* {selection, text} */
    backend_op open_url;      /* {url}: checked by the tool (scheme, policy hosts) */
    backend_op browser_logs;  /* {level}: console and failed requests since the last call */
    backend_op storage_save;  /* {name}: cookies and localStorage to the data folder */
    backend_op storage_load;  /* {name}: put them back into a page of the same site */
    backend_op upload_file;   /* {ref, path}: the path the policy allowed */
    /* The pointer alone (computer's mouse_move, left_mouse_down/up,
     * cursor_position): {action: "move" | "down" | "up" | "where", x?, y?
     * (screen pixels; down and up move there first when given), button?}
     * answers data {x, y}: where the pointer is afterwards. */
    backend_op pointer;
    /* A key or modifiers held or let go (computer's hold_key, modifiers
     * held around a click): {key: a chord ("shift", "ctrl+shift", "a"),
     * state: "down" | "up"}. The caller lets go of whatever it holds down. */
    backend_op key_hold;
    /* Adds (on) or removes w, a listener to the screen's changes, for
     * computer's wait for the first frame after an action (desktops: X
     * DAMAGE; VNC: framebuffer updates; terminals: output that changed the
     * screen). Adding answers false when the screen cannot tell now (the
     * caller then waits a fixed time); removing always works, also after
     * the session stopped. Adding w again tells it the changes that have
     * happened but not been read yet (it is not added twice), and answers
     * whether it is still listening. NULL: the kind never tells. Loop
     * thread. */
    bool (*watch_changes)(struct session *s, struct backend_change_watch *w, bool on);
    /* Render the current screen (for the screen resource); NULL if none. */
    backend_op capture;
    /* The backend calls session_changed itself when its screen changes
     * (terminals, desktops); otherwise, while a client is subscribed to
     * the session's screen or text, capture is sampled to find out. */
    bool reports_changes;
    /* What that sampler calls instead of capture, when capture's images of
     * one screen can differ from look to look (phones: a screencap or a
     * lossy stream picture); NULL: capture. */
    backend_op sample;
    /* Phones (and anything else with apps and hardware buttons). */
    backend_op press_button; /* {button} */
    backend_op app_list;     /* {all?} */
    backend_op app_launch;   /* {app} */
    backend_op app_stop;     /* {app} */
    backend_op app_reset;    /* {app}: clear its data */
    backend_op app_install;  /* {path}: a local file */
    backend_op orientation;  /* {set?} */
    backend_op set_network;  /* {wifi?, data?, airplane?} */
    /* {app, keep_data?}: remove it */
    backend_op app_uninstall;

    /* The live viewer (src/viewer/). A terminal: the screen as bytes a fresh
     * terminal emulator replays to show it as it is now (text, colours,
     * cursor, modes), malloc'd, with its size; its output then reaches
     * viewer_session_output as it is read. Loop thread. */
    char *(*view_replay)(struct session *s, size_t *len, int *cols, int *rows);
    /* A frame source of the viewer's own: produce runs on the worker pool
     * and never touches the session (its own connection), so it may outlive
     * it; release frees it (loop thread). False with *err. */
    bool (*view_frames)(struct session *s, struct frame_source *out, char **err);
    /* Input from a person who took control in the viewer: a terminal's
     * bytes, as a terminal emulator sends them for keys. NULL: none. */
    void (*view_input)(struct session *s, const char *bytes, size_t len);
    /* Pointer and keys from a person who took control in the viewer (a
     * desktop), sent after the input already queued. NULL: none. */
    void (*view_event)(struct session *s, const struct backend_view_event *ev);
    /* A person took control in the viewer (person) or handed it back: every
     * key and button glovebox's input holds down is let go, after the input
     * already queued; while a person has control, agent input that still
     * reaches the backend (queued, or admitted just before) is refused.
     * NULL: nothing is ever held (terminals; refused by the tools). */
    void (*input_control)(struct session *s, bool person);
};

/* One input event from the viewer's page (backend_impl.view_event). */
struct backend_view_event {
    enum { BACKEND_VIEW_POINTER, BACKEND_VIEW_KEY } kind;
    int x, y;        /* pointer: screen pixels (clamped by the backend) */
    int button;      /* pointer: 0 a move; 1 left, 2 middle, 3 right; 4-7 a wheel click */
    bool down;       /* button or key pressed (else released) */
    uint32_t keysym; /* key: an X11 keysym */
    bool is_char;    /* key: it types a character (tapped on down, with Shift as it needs) */
};

/* The backend operation a tool maps to, by the vtable field's offset. */
#define BACKEND_OP(field) offsetof(struct backend_impl, field)

/* One requirement a backend has of this machine. */
struct backend_requirement {
    const char *what;    /* "Xvfb", "DejaVu Sans Mono font", … */
    const char *package; /* Debian package that provides it */
    bool (*present)(void);
};

struct tool;

/* One kind of screen: an entry of the one list (backend/kinds.c). A kind
 * built into this build has a module, glovebox-<module>.so, holding its
 * code and heavy libraries, loaded when its first session starts; the tools
 * that start its sessions live in its folder too and are compiled into the
 * executable. */
struct backend_kind {
    const char *kind;
    const char *summary;
    const struct backend_requirement *requirements; /* NULL-terminated by what==NULL */
    bool has_option;    /* glovebox has the kind; meson -D<kind>= says whether it is built */
    const char *module; /* NULL: not in this build */
    const struct tool *const *tools; /* NULL-terminated; NULL: none */
    /* The names of its start tools, in every build (NULL-terminated; NULL:
     * none): a policy naming one on a build without the kind is told why it
     * has no effect. Equal to the names of tools when the kind is built. */
    const char *const *tool_names;
    /* Deletes remote things (a farm's sessions) that sessions of a server
     * which died left behind: rows of the session table
     * (store/session_table.h) of this kind. NULL: the kind leaves none. */
    void (*sweep_orphans)(struct app *app, const json_t *rows);
    /* Resources of its own (NULL-terminated; NULL: none), added with the
     * tools when the kind is built. */
    const struct resource_provider *const *resources;
};

/* Free what backends share for the life of the process (fonts, caches).
 * Call once at exit, after every session is gone. */
void backends_finish(void);

/* Hands each kind its orphans (session_table_orphans); logs those of kinds
 * this build lacks. */
void backend_sweep_orphans(struct app *app, const json_t *orphans);

/* Every kind glovebox knows, in a fixed order; *count is set. */
const struct backend_kind *backend_kinds(int *count);
/* The api of kind's module (its header says the type), loading it on first
 * use; NULL with *err (malloc'd, for the user: the kind is not in this
 * build, or the module file and the loader's reason). Loop thread. */
const void *backend_load(const char *kind, char **err);
/* For each kind: {kind, summary, implemented, available, missing:[{what,
 * package}], not_built?}. implemented: built into this build (its module may
 * not be loaded yet); available: implemented and nothing missing; not_built:
 * why a kind glovebox has is not in this build. */
json_t *backend_check_all(void);
