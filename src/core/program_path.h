/* Which file a program name stands for, decided once: the policy checks
 * this path and exactly this path is executed, so the check and the exec can
 * never disagree about the working directory or PATH (a relative
 * "bin/bash" checked from glovebox's folder but run from the session's). */
#pragma once

/* The absolute, lexically normal path (no ".", ".." or "//") of program as
 * exec would find it: a name with a '/' is taken relative to cwd; one
 * without is searched in path (empty or relative entries are relative to
 * cwd), the first executable regular file wins, as execvp does. cwd NULL:
 * glovebox's working directory; a relative cwd is relative to it. path NULL:
 * glovebox's PATH, else /usr/local/bin:/usr/bin:/bin. Returns a malloc'd
 * path, or NULL with *err (malloc'd) when nothing executable is found. */
char *program_path_resolve(const char *program, const char *cwd, const char *path, char **err);

/* The lexically normal absolute form of path (relative to base, which must be
 * absolute). malloc'd. */
char *program_path_normal(const char *base, const char *path);
