/* What the policy decides for screens, as one immutable snapshot: the
 * windows and applications input must keep away from, and the rectangles
 * painted over in images of the screen. The gate (tools/screen_guard.c)
 * hands it to each screen call; backends never see the policy. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

struct policy;

/* A screen rectangle of the policy's "redact", in screen pixels. */
struct policy_rect {
    int x, y, width, height;
};

/* Immutable once made: readable from any thread while a reference is held.
 * References are taken and dropped on any thread. */
struct policy_screen;

/* A new reference to p's snapshot (made on first use and kept with p, so
 * every later call costs one increment), or NULL when p restricts nothing
 * on screens (or p is NULL). It outlives p for as long as it is held, so a
 * reload while a call is in flight leaves that call what it was given.
 * Loop thread (the one that installs and destroys policies). */
struct policy_screen *policy_screen_get(struct policy *p);
/* Another reference to s (NULL ok: NULL). */
struct policy_screen *policy_screen_ref(struct policy_screen *s);
void policy_screen_unref(struct policy_screen *s); /* NULL ok */

/* The rectangles to paint over; *n is set (0: none). Lives as long as s. */
const struct policy_rect *policy_screen_redact(const struct policy_screen *s, size_t *n);
/* Whether any window or application is kept from input. */
bool policy_screen_blocks_input(const struct policy_screen *s);
/* Whether input may reach the window with this title and application
 * (either NULL or "" when unknown: matches nothing); false with *why
 * (malloc'd, "Denied by policy: input to the window …") when a pattern of
 * rules.input.blocked_windows or blocked_apps matches. Any thread. */
bool policy_screen_input_allowed(const struct policy_screen *s, const char *title, const char *app,
                                 char **why);

/* For policy.c: the snapshot of p's decisions, built from scratch (a new
 * reference, or NULL when nothing is restricted). */
struct policy_screen *policy_screen_build(const struct policy *p);
