/* Where glovebox keeps its files (see DESIGN.md, "Where things live"). */
#pragma once

/* $XDG_DATA_HOME/glovebox, else $HOME/.local/share/glovebox, else
 * /tmp/glovebox-<uid>. Caller frees. */
char *paths_default_data_dir(void);
