/* glovebox serve re-reads its policy files when they change. A reload that
 * narrows (provably: policy_widening) replaces the policy in force at once;
 * one that widens waits until the person confirms it with glovebox policy
 * apply (SIGHUP) or a restart — an agent with a shell can edit the file. A
 * broken or missing file keeps the last good policy. Each outcome is logged,
 * shown in status and written to the audit log. */
#pragma once
#include <stdbool.h>

struct serve_policy;
struct app;

/* Watch the policy's files (nothing when it has none) and handle SIGHUP.
 * The handles do not keep the loop alive; serve's shutdown closes them with
 * the rest. */
void policy_watch_start(struct serve_policy *sp, struct app *app);
/* Read the files again now (the watcher calls it; tests may too).
 * confirmed: the person asked (policy apply), so a widening applies too. */
void policy_watch_reload(struct serve_policy *sp, bool confirmed);
