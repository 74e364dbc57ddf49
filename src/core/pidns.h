/* Containment: each session's processes live in a PID namespace of their
 * own, whose init (PID 1 there) glovebox creates and kills. Killing the init
 * makes the kernel kill everything else in the namespace — double-forked,
 * setsid'd and nohup'd processes included — and the init dies with
 * glovebox (PR_SET_PDEATHSIG), so nothing outlives a session or the server,
 * even after kill -9.
 *
 * Programs are still glovebox's own children (waitpid, exit statuses and
 * the pty code are unchanged): pidns_fork forks straight into the
 * namespace. As root (CAP_SYS_ADMIN) the forking thread joins the namespace
 * for its children only (setns), forks and returns; without privilege the
 * namespace is owned by a new user namespace, and a short-lived helper
 * joins both and forks the program, which glovebox (a child subreaper)
 * inherits. Where neither works, programs run uncontained as before and
 * pidns_mode says why. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

enum pidns_mode {
    PIDNS_NONE,     /* not contained: pidns_reason says why */
    PIDNS_PID,      /* a PID namespace (root or CAP_SYS_ADMIN) */
    PIDNS_USER_PID, /* a PID namespace owned by a user namespace (unprivileged) */
};

struct pidns;

/* The containment this process gets: decided once, on the first call, by
 * making and testing a namespace (GLOVEBOX_CONTAINMENT=none or =user forces
 * the choice, for testing and for machines where it misbehaves). */
enum pidns_mode pidns_mode(void);
/* "pid-namespace", "user+pid-namespace" or "none". */
const char *pidns_mode_name(enum pidns_mode mode);
/* Why containment is off, or NULL when it is on. Static storage. */
const char *pidns_reason(void);

/* A new namespace and its init, in *out; *out = NULL (and true) when
 * containment is off here, which is logged once. False with *err (caller
 * frees) when it is on but this namespace could not be made. Call from the
 * loop thread: the init dies when the thread that created it does. */
bool pidns_create(struct pidns **out, char **err);
/* Like fork(): 0 in the child, which is inside ns (not its PID 1), and the
 * child's pid as glovebox sees it in the parent, or -1 with errno (ESRCH:
 * the namespace is gone). The child is glovebox's own child either way.
 * ns NULL: a plain fork. Only async-signal-safe calls in the child. */
pid_t pidns_fork(struct pidns *ns);
/* SIGKILL the init, so the kernel ends every process in the namespace, and
 * free ns. Accepts NULL. The init is reaped by core/children.c. */
void pidns_destroy(struct pidns *ns);
/* The init's pid as glovebox sees it. Its exit comes only after every other
 * process in the namespace has ended and been reaped, so a children_watch on
 * it made before pidns_destroy says when files they held are closed. */
pid_t pidns_init_pid(const struct pidns *ns);
