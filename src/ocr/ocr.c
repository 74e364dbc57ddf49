/* OCR for any frame source: the arguments are checked here, in the core,
 * and the recognition runs in the OCR module (tesseract.c), loaded on first
 * use so only sessions that read text by OCR map Tesseract. */
#include "ocr/ocr.h"

#include "core/module.h"
#include "core/xmalloc.h"
#include "image/frame.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ocr_tessdata_dir(void)
{
    const char *env = getenv("TESSDATA_PREFIX");
    if (env && *env)
        return env;
    static const char *const dirs[] = {"/usr/share/tesseract-ocr/5/tessdata",
                                       "/usr/share/tesseract-ocr/4.00/tessdata"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (access(dirs[i], R_OK) == 0)
            return dirs[i];
    return dirs[0];
}

/* [a-z_]{3,}(+[a-z_]{3,})*: which also keeps paths out of the file name. */
static bool lang_well_formed(const char *lang)
{
    size_t run = 0;
    if (strlen(lang) > 60)
        return false;
    for (const char *p = lang;; p++) {
        if (*p == '+' || !*p) {
            if (run < 3)
                return false;
            if (!*p)
                return true;
            run = 0;
        } else if ((*p >= 'a' && *p <= 'z') || *p == '_') {
            run++;
        } else {
            return false;
        }
    }
}

bool ocr_lang_check(const char *lang, char **err)
{
    if (!lang_well_formed(lang)) {
        *err = xasprintf("\"lang\" must be Tesseract language codes joined by '+', such as "
                         "\"eng\" or \"eng+deu\"; got \"%s\"",
                         lang);
        return false;
    }
    const char *dir = ocr_tessdata_dir();
    char one[64];
    for (const char *p = lang; *p;) {
        size_t n = strcspn(p, "+");
        snprintf(one, sizeof one, "%.*s", (int)n, p);
        char *file = xasprintf("%s/%s.traineddata", dir, one);
        bool ok = access(file, R_OK) == 0;
        free(file);
        if (!ok) {
            /* Debian names the packages with dashes: chi_sim → chi-sim. */
            for (char *c = one; *c; c++)
                if (*c == '_')
                    *c = '-';
            *err = xasprintf("OCR language \"%.*s\" is not installed (no %.*s.traineddata in %s); "
                             "install the Debian package tesseract-ocr-%s",
                             (int)n, p, (int)n, p, dir, one);
            return false;
        }
        p += n;
        if (*p == '+')
            p++;
    }
    return true;
}

bool ocr_in_build(char **err)
{
#if GLOVEBOX_HAVE_OCR
    (void)err;
    return true;
#else
    *err = xstrdup("OCR is not in this build of glovebox (meson -Docr=disabled, or Tesseract was "
                   "not installed: libtesseract-dev)");
    return false;
#endif
}

bool ocr_recognize(const struct frame *f, int x, int y, int w, int h, const char *lang,
                   int deadline_ms, struct ocr_result *out, char **err)
{
    memset(out, 0, sizeof *out);
    if (w == 0) {
        x = y = 0;
        w = (int)f->width;
        h = (int)f->height;
    }
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || (uint32_t)(x + w) > f->width ||
        (uint32_t)(y + h) > f->height) {
        *err = xasprintf("the region %dx%d at (%d,%d) is not inside the %ux%u screen", w, h, x, y,
                         f->width, f->height);
        return false;
    }
    if (!ocr_lang_check(lang, err))
        return false;
    if (!ocr_in_build(err))
        return false;
    char *why = NULL;
    const struct ocr_api *api = module_get("ocr", &why);
    if (!api) {
        *err = xasprintf("OCR is not available: %s", why);
        free(why);
        return false;
    }
    return api->recognize(f, x, y, w, h, lang, deadline_ms, out, err);
}

void ocr_result_finish(struct ocr_result *r)
{
    for (int i = 0; i < r->count; i++)
        free(r->words[i].text);
    free(r->words);
    free(r->text);
    memset(r, 0, sizeof *r);
}
