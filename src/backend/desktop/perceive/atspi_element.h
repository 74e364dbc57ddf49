/* One element of the accessibility tree looked at closely: the element at
 * a point of the screen (element_at), everything known about one element
 * (inspect), and setting a slider's or spin button's value (set_value).
 * Blocking, like atspi.h: call from a worker thread. */
#pragma once
#include "backend/desktop/perceive/atspi.h"

#include <stdbool.h>

/* What is known of one element. node's parent and depth are left 0. */
struct atspi_element {
    struct atspi_node node;
    char *description; /* "" if none */
    char **actions;    /* action names ("click", "activate") */
    int n_actions;
    bool has_range; /* Value interface: current, minimum, maximum, step */
    double current, minimum, maximum, step;
    /* Only name, role and bounds were asked (an element above the one
     * looked at): states, value and actions are not known. */
    bool partial;
};

/* An element and the elements above it, from its top-level window down to
 * it (chain[n - 1] is the element). app: its application's name. */
struct atspi_hint;

struct atspi_chain {
    struct atspi_element *chain;
    int n;
    char *app;
};
void atspi_chain_finish(struct atspi_chain *c);

/* The deepest element at screen point x,y, in the showing top-level window
 * that holds the point (the active one first, else the one whose
 * application registered last: the one most likely on top). false with
 * *err NULL when no window is there; with *err set when the bus failed. */
bool atspi_element_at(struct atspi *a, struct atspi_hint *hint, int x, int y,
                      struct atspi_chain *out, char **err);
/* What element_at keeps between calls on one connection: the windows it
 * found, asked about again in one round with the registry, whose answers
 * say whether they are still all there is. */
struct atspi_hint *atspi_hint_create(void);
void atspi_hint_destroy(struct atspi_hint *h);
/* The element bus_name/path as it is now, with its window and the path down
 * from it. false with *err (the element is gone, its application does not
 * answer). */
bool atspi_element_chain(struct atspi *a, const char *bus_name, const char *path,
                         struct atspi_chain *out, char **err);
/* Sets the element's Value.CurrentValue. false with *err. */
bool atspi_set_value(struct atspi *a, const char *bus_name, const char *path, double value,
                     char **err);
/* The name of AT-SPI state bit (0..63); NULL when it has none. */
const char *atspi_state_name(int bit);
