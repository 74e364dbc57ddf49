/* Overlays: shapes the agent draws for the person, shown only in the live
 * viewer above the screen (never in a screenshot: nothing on the screen
 * changes). Per session at most OVERLAY_MAX at once and OVERLAY_RATE
 * changes a second; each lives ttl_ms (default OVERLAY_TTL_MS). */
#pragma once
#include "core/error_code.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct app;
struct session;
struct view_client;
struct viewer;

#define OVERLAY_MAX    64
#define OVERLAY_RATE   20
#define OVERLAY_TTL_MS 10000

/* Draws shapes (checked by the tool's schema) on s, then done(ud, s's id,
 * ids (a new array), ...) or done(ud, s's id, NULL, code, err) — maybe
 * before it returns.
 * one_at_a_time: each shape shows for ttl_ms after the one before it. A
 * shape with a ref takes that element's bounds first (anchor.h), and
 * follows it while a page watches (overlay_sweep). */
typedef void (*overlay_drawn_fn)(void *ud, const char *session, json_t *ids, enum error_code code,
                                 const char *err);
void overlay_draw(struct app *app, struct session *s, const json_t *shapes, int64_t ttl_ms,
                  bool one_at_a_time, overlay_drawn_fn done, void *ud);
/* Removes the overlays ids names on s; how many, or -1 with *code, *err. */
int overlay_remove(struct app *app, struct session *s, const json_t *ids, enum error_code *code,
                   char **err);
/* Removes every overlay on s; how many, or -1 with *code, *err. */
int overlay_clear(struct app *app, struct session *s, enum error_code *code, char **err);

/* The viewer's side: send c the overlays of the session it now watches;
 * drop the expired ones and those of ended sessions (once a second). */
void overlay_send_current(struct view_client *c);
void overlay_sweep(struct viewer *v);
void overlay_finish(void);
