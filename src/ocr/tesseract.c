#include "perceive/ocr.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "image/frame.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tesseract/capi.h>
#include <unistd.h>

/* Screen text is small (a 13-pixel font); Tesseract reads best when letters
 * are about three times that, so the region is enlarged before reading. */
#define SCALE           3
#define MIN_WORD_HEIGHT 6 /* screen pixels */

struct engine {
    char lang[64];
    TessBaseAPI *api;
    struct engine *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct engine *engines; /* under lock */

static const char *tessdata_dir(void)
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
    const char *dir = tessdata_dir();
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

/* The engine for lang, started on first use. Under lock. */
static TessBaseAPI *engine_for(const char *lang, char **err)
{
    for (struct engine *e = engines; e; e = e->next)
        if (strcmp(e->lang, lang) == 0)
            return e->api;
    TessBaseAPI *api = TessBaseAPICreate();
    if (TessBaseAPIInit3(api, tessdata_dir(), lang) != 0) {
        TessBaseAPIDelete(api);
        *err = xasprintf("Tesseract could not load language \"%s\"", lang);
        return NULL;
    }
    /* Screens hold scattered labels, not paragraphs. */
    TessBaseAPISetPageSegMode(api, PSM_SPARSE_TEXT);
    TessBaseAPISetVariable(api, "user_defined_dpi", "300");
    struct engine *e = xcalloc(1, sizeof *e);
    snprintf(e->lang, sizeof e->lang, "%s", lang);
    e->api = api;
    e->next = engines;
    engines = e;
    return api;
}

/* The rectangle as grey, enlarged SCALE times (nearest neighbour keeps the
 * strokes sharp, which Tesseract prefers to blur). */
static uint8_t *grey_scaled(const struct frame *f, int x, int y, int w, int h)
{
    int sw = w * SCALE, sh = h * SCALE;
    uint8_t *g = xmalloc((size_t)sw * (size_t)sh);
    for (int row = 0; row < h; row++) {
        const uint8_t *src = f->rgba + (size_t)(y + row) * f->stride + (size_t)x * 4;
        uint8_t *dst = g + (size_t)row * SCALE * (size_t)sw;
        for (int col = 0; col < w; col++, src += 4) {
            uint8_t v = (uint8_t)((src[0] * 77 + src[1] * 150 + src[2] * 29) >> 8);
            memset(dst + col * SCALE, v, SCALE);
        }
        for (int k = 1; k < SCALE; k++)
            memcpy(dst + (size_t)k * (size_t)sw, dst, (size_t)sw);
    }
    return g;
}

static void read_words(TessBaseAPI *api, int x, int y, struct ocr_result *out)
{
    TessResultIterator *it = TessBaseAPIGetIterator(api);
    if (!it)
        return;
    const TessPageIterator *pit = TessResultIteratorGetPageIterator(it);
    int cap = 0, line = -1;
    do {
        char *word = TessResultIteratorGetUTF8Text(it, RIL_WORD);
        if (!word)
            continue;
        if (TessPageIteratorIsAtBeginningOf(pit, RIL_TEXTLINE) || line < 0)
            line++;
        int l, t, r, b;
        /* Specks under MIN_WORD_HEIGHT screen pixels are icon and border
         * details that Tesseract reads as "=" or "()", not text. */
        if (*word && TessPageIteratorBoundingBox(pit, RIL_WORD, &l, &t, &r, &b) &&
            (b - t) >= MIN_WORD_HEIGHT * SCALE) {
            if (out->count == cap) {
                cap = cap ? cap * 2 : 32;
                out->words = xrealloc(out->words, (size_t)cap * sizeof *out->words);
            }
            out->words[out->count++] = (struct ocr_word){
                .text = xstrdup(word),
                .x = x + l / SCALE,
                .y = y + t / SCALE,
                .w = (r - l + SCALE - 1) / SCALE,
                .h = (b - t + SCALE - 1) / SCALE,
                .line = line,
                .confidence = TessResultIteratorConfidence(it, RIL_WORD),
            };
        }
        TessDeleteText(word);
    } while (TessResultIteratorNext(it, RIL_WORD));
    TessResultIteratorDelete(it);
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
    uint8_t *grey = grey_scaled(f, x, y, w, h);
    pthread_mutex_lock(&lock);
    TessBaseAPI *api = engine_for(lang, err);
    bool ok = api != NULL;
    if (ok) {
        TessBaseAPISetImage(api, grey, w * SCALE, h * SCALE, 1, w * SCALE);
        ETEXT_DESC *monitor = NULL;
        if (deadline_ms > 0) {
            monitor = TessMonitorCreate();
            TessMonitorSetDeadlineMSecs(monitor, deadline_ms);
        }
        /* Stopped by the deadline, it keeps the words read so far. */
        ok = TessBaseAPIRecognize(api, monitor) == 0 || deadline_ms > 0;
        if (monitor)
            TessMonitorDelete(monitor);
        if (ok)
            read_words(api, x, y, out);
        else
            *err = xstrdup("Tesseract failed to read the image");
        TessBaseAPIClear(api);
    }
    pthread_mutex_unlock(&lock);
    free(grey);
    struct strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < out->count; i++) {
        if (i > 0)
            strbuf_putc(&sb, out->words[i].line != out->words[i - 1].line ? '\n' : ' ');
        strbuf_puts(&sb, out->words[i].text);
    }
    out->text = strbuf_steal(&sb);
    return ok;
}

void ocr_result_finish(struct ocr_result *r)
{
    for (int i = 0; i < r->count; i++)
        free(r->words[i].text);
    free(r->words);
    free(r->text);
    memset(r, 0, sizeof *r);
}

void ocr_shutdown(void)
{
    pthread_mutex_lock(&lock);
    while (engines) {
        struct engine *e = engines;
        engines = e->next;
        TessBaseAPIEnd(e->api);
        TessBaseAPIDelete(e->api);
        free(e);
    }
    pthread_mutex_unlock(&lock);
}
