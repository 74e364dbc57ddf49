/* How `glovebox stop` finds the servers to pause: each glovebox serve keeps
 * DATA_DIR/serve-<pid>.pid (holding its pid) while it runs. A file whose
 * process is gone or is not a glovebox serve of this user is stale: it is
 * ignored and removed. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

/* Writes the file for this process; its malloc'd path, or NULL with *err. */
char *pidfile_write(const char *data_dir, char **err);
/* Removes it and frees path. Accepts NULL. */
void pidfile_remove(char *path);
/* Whether pid is a running `glovebox serve` of this user. */
bool pidfile_is_server(pid_t pid);
/* The live servers recorded in data_dir (malloc'd array in *pids, count
 * returned; -1 with errno when the directory cannot be read). Stale files
 * are removed. */
int pidfile_scan(const char *data_dir, pid_t **pids);
