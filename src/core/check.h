/* CHECK(cond): an invariant the code relies on. When it does not hold,
 * glovebox prints the condition and where it is, then aborts.
 *
 * Why not <assert.h>: assert() is compiled out by NDEBUG, and whether a build
 * defines NDEBUG depends on meson's b_ndebug (default false, but "if-release"
 * is a common choice for packagers). The invariants checked here guard
 * lifetimes (a counter below zero means a double completion, i.e. a
 * use-after-free one step later; a session that leaves "ended" is freed
 * while in use). For a program that mediates what an agent may do, stopping
 * at once is safer than continuing with corrupted state, and every check is
 * an integer comparison on a path that is far from hot. So CHECK is on in
 * every build, tests and releases alike, and a failing one crashes the test
 * that reached it (with the line in the message and a core or ASan stack).
 *
 * Use it for facts about glovebox's own state only, never for input from a
 * client, a program or the system: those get errors, not aborts. */
#pragma once
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond) ((cond) ? (void)0 : check_failed(#cond, __FILE__, __LINE__, __func__))

static inline _Noreturn void check_failed(const char *cond, const char *file, int line,
                                          const char *func)
{
    /* Straight to stderr: the logger may be what is broken, and stdout
     * belongs to the stdio transport. */
    fprintf(stderr, "glovebox: internal invariant broken at %s:%d (%s): %s\n", file, line, func,
            cond);
    fflush(stderr);
    abort();
}
