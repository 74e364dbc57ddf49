/* What a desktop's programs print — the applications, the session bus and
 * Xvfb, on stdout and stderr — goes to a log file of the session's own, not
 * to glovebox's stderr: there it would mix with the server's log, and a
 * client that does not read glovebox's stderr would freeze every program
 * that writes to it once the pipe is full. glovebox drains a pipe into the
 * file, keeping the first DESKTOP_OUTPUT_MAX bytes. */
#pragma once
#include <uv.h>

#define DESKTOP_OUTPUT_MAX (4u << 20)

struct desktop_output;

/* <data_dir>/logs/<session_id>-<glovebox pid>.log, truncated. NULL with
 * *err when the folder or the file cannot be made. */
struct desktop_output *desktop_output_open(uv_loop_t *loop, const char *data_dir,
                                           const char *session_id, char **err);
/* The pipe's write end, for the programs' stdout and stderr. */
int desktop_output_fd(const struct desktop_output *o);
/* Take what the pipe holds now into the file; the bytes the file holds. */
size_t desktop_output_sync(struct desktop_output *o);
/* The file's bytes [from, to), at most max of them (the last), malloc'd
 * with *len; NULL when there are none. */
char *desktop_output_read(const struct desktop_output *o, size_t from, size_t to, size_t max,
                          size_t *len);
/* The log file's path (owned by o). */
const char *desktop_output_path(const struct desktop_output *o);
/* The programs have ended: take what they left in the pipe, close the file
 * (removed if nothing was written) and free o once its handle has closed.
 * NULL ok. */
void desktop_output_close(struct desktop_output *o);
