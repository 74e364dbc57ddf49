/* wait_for {exit, pid?} on desktops (exit_wait.c). */
#pragma once
#include <sys/types.h>

struct backend_call;
struct desktop;

/* Answers when the program ends (matched, exit_status), at timeout_ms
 * (matched false), or at once when it already has. Loop thread. */
void desktop_wait_exit_op(struct backend_call *bc);
/* A program of d ended with wait status: remembered, and its waiters answered. */
void desktop_exit_note(struct desktop *d, pid_t pid, int status);
/* The session is ending: every waiter answered (matched false). */
void desktop_exit_waits_end(struct desktop *d);
