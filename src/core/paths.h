/* Where glovebox keeps its files (see DESIGN.md, "Where things live"). */
#pragma once
#include <stdbool.h>

/* $XDG_DATA_HOME/glovebox, else $HOME/.local/share/glovebox, else
 * /tmp/glovebox-<uid>. Caller frees. */
char *paths_default_data_dir(void);
/* mkdir -p; what it creates gets mode 0700. false with *err (malloc'd). */
bool paths_mkdir_p(const char *path, char **err);
/* rm -rf path: a directory with everything in it (symbolic links removed,
 * never followed), or a file. Best effort; a missing path is nothing. */
void paths_remove_tree(const char *path);
