/* The computer tool (computer.c): the actions of a model's computer-use tool
 * (Anthropic's computer_20251124, OpenAI's computer-use shapes) run as a
 * short plan of backend operations, each action under the policy of the
 * named tool that does the same (docs/computer.md). */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct backend_impl;
struct tool;

/* The model's coordinate space: screenshots scaled so the long side is at
 * most COMPUTER_MAX_SIDE and the area at most COMPUTER_MAX_PIXELS (what
 * computer-use models are trained on and clients accept). */
#define COMPUTER_MAX_SIDE   1568
#define COMPUTER_MAX_PIXELS 1150000
/* Limits on what a call may ask. */
#define COMPUTER_MAX_WAIT_S    300
#define COMPUTER_MAX_SETTLE_MS 5000
#define COMPUTER_MAX_PATH      64

struct computer_space {
    int width, height;             /* the screen, in its pixels */
    int model_width, model_height; /* what the model sees */
    double scale;                  /* model pixels per screen pixel (<= 1) */
};

/* The model space of a width × height screen. */
void computer_space_of(int width, int height, struct computer_space *sp);
/* Model coordinates to screen pixels; false when x,y is outside the model
 * space (an error for the caller, never clamped). */
bool computer_to_screen(const struct computer_space *sp, double x, double y, int *sx, int *sy);
/* Screen pixels to model coordinates. */
void computer_to_model(const struct computer_space *sp, int sx, int sy, int *x, int *y);

/* One step of a plan: a backend operation or a pause. */
struct computer_step {
    size_t op;       /* BACKEND_OP(field); 0 with wait_ms: a pause */
    json_t *args;    /* owned: the operation's arguments, screen pixels */
    int wait_ms;     /* a pause (hold_key, wait, settling) */
    bool cleanup;    /* runs even after a failed step or a cancel (letting keys go) */
    bool at_pointer; /* a click where the pointer is: x,y filled in when it runs */
    bool main;       /* the action's own step: its answer is the action's */
    bool settle;     /* a pause: the wait for the screen after the action */
};

/* After a change the screen must be still this long before the
 * screenshot: a program draws one frame in several requests. */
#define COMPUTER_SETTLE_GAP_MS 10

struct computer_plan {
    const char *action;    /* the computer_20251124 name of what is done */
    const char *asked;     /* the action or type as the caller wrote it */
    const struct tool *as; /* the named tool whose policy applies */
    struct computer_step *steps;
    size_t n, cap;
    int settle_ms; /* the longest wait before the screenshot; 0: none */
    int quiet_ms;  /* the wait when the screen does not change (<= settle_ms) */
    bool zoom;     /* screenshot of region at full resolution */
    int region[4]; /* zoom: x, y, width, height in screen pixels */
    bool position; /* cursor_position: say where the pointer is */
};

/* The tool a call's action passes the policy as (tool.h acts_as); NULL
 * for an action that is not one (the call then fails as invalid). */
const struct tool *computer_policy_as(const json_t *args);
/* The plan for args on a screen of space sp (NULL: no pixel size known, as
 * on terminals) and kind impl. False with *err (malloc'd) and *code: bad
 * input (invalid_argument) or an action the kind cannot do (not_supported). */
bool computer_plan_make(const json_t *args, const struct computer_space *sp,
                        const struct backend_impl *impl, struct computer_plan *plan, int *code,
                        char **err);
void computer_plan_finish(struct computer_plan *plan);
/* Runs plan (stolen) for the call on session s and answers it. */
struct tool_call;
struct session;
void computer_run(struct tool_call *call, struct session *s, struct computer_plan *plan,
                  const struct computer_space *sp);

/* The last screenshot of a session, answered again while its screen has
 * not changed (computer_cache.c). NULL: the session's kind cannot tell
 * changes. Lives until the session ends. Loop thread. */
struct computer_cache;
struct screen_guard;
struct computer_cache *computer_cache_of(struct session *s);
/* What identifies a screenshot: its arguments, the screen's size (0 x 0:
 * unknown) and the areas painted over (malloc'd). */
char *computer_cache_key(const json_t *shot_args, int width, int height,
                         const struct screen_guard *g);
/* A copy of the last screenshot made for key, when the screen has not
 * changed since its capture began: bytes malloc'd, data a new reference. */
bool computer_cache_take(struct computer_cache *c, const char *key, uint8_t **bytes, size_t *len,
                         const char **mime, json_t **data);
/* A capture begins: the copy is dropped, changes count from now. */
void computer_cache_begin(struct computer_cache *c);
/* The capture's result (copied), kept unless the screen changed since
 * computer_cache_begin. */
void computer_cache_store(struct computer_cache *c, const char *key, const uint8_t *bytes,
                          size_t len, const char *mime, json_t *data);
