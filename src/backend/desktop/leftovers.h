/* What a desktop started, on disk, so that processes outlive nothing: if
 * glovebox is killed (SIGKILL, a crash) its Xvfb, bus and programs are
 * ended by the next glovebox that starts a desktop with the same data
 * directory. Children also get a parent-death signal, so most of them end at
 * once; this catches what they started in turn. Process ids are recorded
 * with their start times, so a recycled pid is never killed. */
#pragma once

struct desktop;

/* Write (replace) the record of d's live process groups. Best effort: a
 * failure is logged, never fatal. */
void leftovers_record(const struct desktop *d);
/* The session ended cleanly: remove its record. */
void leftovers_forget(const struct desktop *d);
/* End the process groups of records whose glovebox is gone, and remove
 * those records. Returns how many groups were signalled. */
int leftovers_sweep(const char *data_dir);
