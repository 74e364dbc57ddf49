#include "core/child_env.h"

#include <string.h>

bool child_env_withheld(const char *entry)
{
    /* GLOVEBOX_TOKEN is the secret; the rest (GLOVEBOX_ALLOW_ALL, …) would
     * make a glovebox started inside a session as trusting as this one. */
    return strncmp(entry, "GLOVEBOX_", 9) == 0;
}

void child_env_scrub(char **env)
{
    char **to = env;
    for (char **from = env; from && *from; from++)
        if (!child_env_withheld(*from))
            *to++ = *from;
    if (to)
        *to = NULL;
}
