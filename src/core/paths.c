#include "core/paths.h"

#include "core/xmalloc.h"

#include <stdlib.h>
#include <unistd.h>

char *paths_default_data_dir(void)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && xdg[0] == '/')
        return xasprintf("%s/glovebox", xdg);
    const char *home = getenv("HOME");
    if (home && home[0] == '/')
        return xasprintf("%s/.local/share/glovebox", home);
    return xasprintf("/tmp/glovebox-%u", (unsigned)getuid());
}
