/* glovebox serve re-reads its policy file when it changes: a good file
 * replaces the policy in force, a broken or missing one keeps the last good
 * policy and reports the error in the log and in status. */
#pragma once
#include <stdbool.h>

struct serve_policy;
struct app;

/* Watch sp->policy's file (nothing when it has none). The handles do not
 * keep the loop alive; serve's shutdown closes them with the rest. */
void policy_watch_start(struct serve_policy *sp, struct app *app);
/* Read the file again now (the watcher calls it; tests may too). */
void policy_watch_reload(struct serve_policy *sp);
