/* The person's stop button: `glovebox stop` or SIGUSR1 pauses every input
 * action at once, `glovebox resume` or SIGUSR2 lets them go on. While
 * paused, every tool that changes anything is refused, and calls of such
 * tools already in flight are stopped (backends abort through their cancel
 * hooks) and answer that the person paused them. Read-only tools and
 * set_mode (which only lowers privileges) go on. */
#pragma once
#include "mcp/gate.h"

#include <jansson.h>
#include <stdbool.h>

struct app;

void pause_set(struct app *app, bool paused);
bool pause_active(const struct app *app);
/* NULL when tool may run now; else the malloc'd refusal. */
char *pause_refusal(const struct app *app, const struct tool *tool);
/* For status: {"paused": bool, "paused_since": "2026-11-22T23:50:01Z" or null}. */
json_t *pause_describe(const struct app *app);

/* A gate that refuses while paused and otherwise asks inner (read at each
 * call, so a reloaded policy is seen). */
struct pause_gate {
    struct mcp_gate gate; /* install &gate */
    struct app *app;
    const struct mcp_gate *inner;
};
void pause_gate_init(struct pause_gate *pg, struct app *app, const struct mcp_gate *inner);
