/* The OCR module (glovebox-ocr.so): Tesseract, loaded on the first
 * recognition so nothing else maps it. src/ocr/ocr.c checks the arguments. */
#include "ocr/ocr.h"

#include "core/module.h"

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

/* The engine for lang, started on first use. Under lock. */
static TessBaseAPI *engine_for(const char *lang, char **err)
{
    for (struct engine *e = engines; e; e = e->next)
        if (strcmp(e->lang, lang) == 0)
            return e->api;
    TessBaseAPI *api = TessBaseAPICreate();
    if (TessBaseAPIInit3(api, ocr_tessdata_dir(), lang) != 0) {
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

/* Region and language already checked by ocr_recognize (ocr.c). */
static bool recognize(const struct frame *f, int x, int y, int w, int h, const char *lang,
                      int deadline_ms, struct ocr_result *out, char **err)
{
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

static void shutdown_engines(void)
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

static const struct ocr_api api = {.recognize = recognize};
MODULE_EXPORT(ocr, &api, shutdown_engines);
