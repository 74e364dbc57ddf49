#include "backend/requirements.h"

#include "core/xmalloc.h"

#include <fontconfig/fontconfig.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

bool requirement_program(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = xstrdup(path);
    bool found = false;
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *full = xasprintf("%s/%s", dir, name);
        found = access(full, X_OK) == 0;
        free(full);
    }
    free(copy);
    return found;
}

bool requirement_font(const char *family)
{
    if (!FcInit())
        return false;
    FcPattern *pat = FcNameParse((const FcChar8 *)family);
    if (!pat)
        return false;
    FcConfigSubstitute(NULL, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcResult result;
    FcPattern *match = FcFontMatch(NULL, pat, &result);
    bool ok = false;
    FcChar8 *got = NULL;
    if (match && FcPatternGetString(match, FC_FAMILY, 0, &got) == FcResultMatch)
        ok = strcasecmp((const char *)got, family) == 0;
    if (match)
        FcPatternDestroy(match);
    FcPatternDestroy(pat);
    return ok;
}

bool requirement_file(const char *path)
{
    return access(path, R_OK) == 0;
}
