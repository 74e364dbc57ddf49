#include "core/xmalloc.h"
#include "recipe/recipe.h"

#include <string.h>

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

bool recipe_name_valid(const char *name, const char *field, char **err)
{
    size_t n = name ? strlen(name) : 0;
    bool ok = n >= 1 && n <= RECIPE_NAME_MAX && name[0] != '-';
    for (size_t i = 0; ok && i < n; i++)
        ok = word_char(name[i]);
    if (!ok)
        *err = xasprintf("%s: expected a recipe name of 1 to %d letters, digits, '_' or '-' "
                         "(not starting with '-'), got \"%.80s\"",
                         field, RECIPE_NAME_MAX, name ? name : "");
    return ok;
}

bool recipe_param_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n < 1 || n > RECIPE_NAME_MAX || name[0] == '-' || (name[0] >= '0' && name[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!word_char(name[i]) || name[i] == '-')
            return false;
    return true;
}
