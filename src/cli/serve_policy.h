/* glovebox serve's policy options (--policy, --mode, --allow-all) and the
 * policy the server runs under. Kept apart from serve.c so the transport
 * options and the safety options grow without stepping on each other. */
#pragma once
#include "policy/pause.h"
#include "policy/policy.h"

#include <stdbool.h>
#include <stdio.h>
#include <uv.h>

struct app;

struct serve_policy {
    char *path;
    bool allow_all;
    bool have_mode;
    enum policy_mode mode;
    struct policy *policy;
    struct mcp_gate gate;
    struct pause_gate pause; /* installed: the pause first, then gate */
    /* Re-reading the file (policy_watch.c). */
    struct app *app;
    char *file;                   /* the person's policy file, or NULL (built-in default) */
    char *project;                /* the project's file narrowing it, or NULL */
    enum policy_mode loaded_mode; /* as loaded (file, then --mode) */
    uv_fs_event_t event[2];       /* the directories of file and project */
    uv_fs_poll_t poll[2];         /* when events cannot be had */
    uv_timer_t settle;            /* editors write in steps: wait for quiet */
    uv_signal_t apply;            /* SIGHUP: glovebox policy apply */
};

#define SERVE_POLICY_USAGE                                                                         \
    "  --policy PATH        the permission policy (default: $XDG_CONFIG_HOME/glovebox/\n"          \
    "                       policy.json, else read-only; ./.glovebox/policy.json only narrows)\n"  \
    "  --mode MODE          passive, assist or autopilot (overrides the policy's mode)\n"          \
    "  --allow-all          allow every tool (development and sandboxes only;\n"                   \
    "                       also GLOVEBOX_ALLOW_ALL=1)\n"

/* 0: not a policy option; 1: a flag; 2: an option that took v; -1: bad
 * value (already reported on stderr). */
int serve_policy_option(struct serve_policy *sp, const char *a, const char *v);
/* Load the policy and install the gate; false (reported) when the file given
 * with --policy cannot be used. */
bool serve_policy_start(struct serve_policy *sp, struct app *app);
void serve_policy_finish(struct serve_policy *sp);
/* Each of policy_warnings(p) as a line on to, after prefix. */
void serve_policy_warn(const struct policy *p, FILE *to, const char *prefix);
