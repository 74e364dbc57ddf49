/* Child processes: glovebox reaps every child itself. It becomes a "child
 * subreaper", so processes orphaned by a session's program (a shell's
 * background job) are re-parented to glovebox and reaped too: no zombies, and
 * nothing escapes unnoticed. Because SIGCHLD is handled here with
 * waitpid(-1), glovebox never uses uv_spawn (libuv would race us for exit
 * statuses); backends fork through their own helpers and register the pid. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>
#include <uv.h>

/* Install the SIGCHLD watcher on loop. Call once at start-up. */
void children_init(uv_loop_t *loop);
void children_finish(void);
/* Call exited(pid, wait_status, ud) on the loop when pid ends. */
void children_watch(pid_t pid, void (*exited)(pid_t pid, int status, void *ud), void *ud);
/* Stop caring about pid (its status will still be reaped). */
void children_forget(pid_t pid);
/* Processes being watched. */
int children_count(void);
