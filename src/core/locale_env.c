#include "core/locale_env.h"

#include <string.h>

bool locale_env_chosen(char *const *env)
{
    static const char *const keys[] = {"LC_ALL=", "LC_CTYPE=", "LANG="};
    for (; env && *env; env++) {
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            size_t n = strlen(keys[i]);
            if (strncmp(*env, keys[i], n) == 0 && (*env)[n] != '\0')
                return true;
        }
    }
    return false;
}
