/* What glovebox keeps to itself when it starts a program: its own secrets
 * (the HTTP token) and settings (allow-all) are for glovebox, not for the
 * programs an agent runs, which could otherwise read the token and call
 * glovebox — or another server — with it. */
#pragma once
#include <stdbool.h>

/* Whether entry ("NAME=value", or a bare NAME) must not reach a child:
 * every GLOVEBOX_* variable. */
bool child_env_withheld(const char *entry);
/* Remove those entries from env (NULL-terminated) in place, by moving
 * pointers only: safe between fork and exec. */
void child_env_scrub(char **env);
