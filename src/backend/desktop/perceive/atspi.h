/* The accessibility tree of one desktop, read over the AT-SPI D-Bus protocol
 * with GDBus. libatspi is not used: it keeps one global connection per
 * process, and every glovebox desktop has its own session and a11y bus.
 * Every call has a timeout and a walk has an overall deadline, so a frozen
 * application costs at most that long. All functions block: call them from a
 * worker thread, one at a time per connection. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct atspi;

/* State bits of an element (AT-SPI state numbers, see atspi-constants.h). */
enum atspi_state {
    ATSPI_STATE_ACTIVE = 1,
    ATSPI_STATE_CHECKED = 4,
    ATSPI_STATE_EDITABLE = 7,
    ATSPI_STATE_ENABLED = 8,
    ATSPI_STATE_EXPANDED = 10,
    ATSPI_STATE_FOCUSABLE = 11,
    ATSPI_STATE_FOCUSED = 12,
    ATSPI_STATE_MODAL = 16,
    ATSPI_STATE_PRESSED = 20,
    ATSPI_STATE_SELECTED = 23,
    ATSPI_STATE_SENSITIVE = 24,
    ATSPI_STATE_SHOWING = 25,
    ATSPI_STATE_VISIBLE = 30,
    ATSPI_STATE_CHECKABLE = 41,
};
#define ATSPI_HAS(states, bit) (((states) >> (bit)) & 1u)

/* One meaningful element; structural filler has been folded away. */
struct atspi_node {
    char *bus_name; /* owner on the a11y bus, ":1.5" */
    char *path;     /* object path */
    char *role;     /* AT-SPI role name: "push button", "text", … */
    char *name;     /* accessible name, "" if none */
    char *value;    /* text contents or current value; NULL if none */
    uint64_t states;
    int32_t x, y, w, h; /* screen pixels; w == 0 when unknown */
    int parent;         /* index in the list, -1 for top level */
    int depth;          /* meaningful ancestors */
    bool has_action;    /* Action interface with at least one action */
    bool has_text;      /* Text interface */
    bool has_editable;  /* EditableText interface */
};

struct atspi_tree {
    struct atspi_node *nodes; /* depth-first order */
    int count;
    bool truncated;   /* a limit (depth, node cap, deadline) left some out */
    bool unanswered;  /* of those, some for lack of time or of an answer */
    char *truncation; /* why, or NULL */
};

struct atspi_walk_opts {
    const char *app;     /* only applications whose name contains this, or NULL */
    const char *window;  /* only top-level windows whose name contains this, or NULL */
    int max_depth;       /* meaningful levels below the top, e.g. 30 */
    int max_nodes;       /* cap on returned elements */
    int deadline_ms;     /* the whole walk */
    bool include_hidden; /* keep elements that are not showing */
};

/* Connect through the desktop's session bus: ask it for the accessibility
 * bus (org.a11y.Bus, started on demand) and connect to that. NULL with *err
 * (caller frees) when either bus does not answer within timeout_ms. */
struct atspi *atspi_connect(const char *session_bus_address, int timeout_ms, char **err);
void atspi_destroy(struct atspi *a);
/* The connection to the accessibility bus (a GDBusConnection), for the
 * other atspi_*.c files. */
struct _GDBusConnection *atspi_bus(struct atspi *a);

/* Walk the tree. false with *err when the registry does not answer; an
 * application that stops answering midway is skipped and noted in
 * truncation. */
bool atspi_walk(struct atspi *a, const struct atspi_walk_opts *o, struct atspi_tree *out,
                char **err);
void atspi_tree_finish(struct atspi_tree *t);

/* Press an element the way assistive technology does: its first action
 * ("click", "press", "activate"). false with *err when it has none or the
 * call fails. */
bool atspi_do_action(struct atspi *a, const char *bus_name, const char *path, char **err);
/* An element's text as it is now (Text interface); *out malloc'd. */
bool atspi_read_text(struct atspi *a, const char *bus_name, const char *path, char **out,
                     char **err);
/* Give an element keyboard focus. */
bool atspi_grab_focus(struct atspi *a, const char *bus_name, const char *path, char **err);
/* Whether the element with the keyboard focus is a password field (role
 * "password text"), asked of every application at once through its
 * Collection interface: 1 yes, 0 no (or no application exposes anything),
 * -1 with *err (NULL on entry) when an application could not say, or not
 * within timeout_ms (for the whole question). */
int atspi_focused_secret(struct atspi *a, int timeout_ms, char **err);
