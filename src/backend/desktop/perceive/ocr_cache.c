/* The last OCR result of a desktop, kept while the screen shows the same
 * pixels: hashing a 1280×800 frame takes about a millisecond, Tesseract a
 * few hundred. Keyed by the pixels of the whole frame (what is outside the
 * rectangle may change the layout Tesseract sees at its edge only through
 * the rectangle itself, but the whole is as cheap to hash), the rectangle
 * and the language. */
#include "backend/desktop/perceive/internal.h"

#include "core/xmalloc.h"
#include "image/frame.h"

#include <stdlib.h>
#include <string.h>

static uint64_t frame_hash(const struct frame *f)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)f->width << 32 | f->height);
    for (uint32_t row = 0; row < f->height; row++) {
        const uint8_t *p = f->rgba + (size_t)row * f->stride;
        size_t n = (size_t)f->width * 4, i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            h = (h ^ v) * 0x100000001b3ull;
            h ^= h >> 29;
        }
        for (; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

static void copy_result(struct ocr_result *to, const struct ocr_result *from)
{
    to->count = from->count;
    to->words = from->count ? xcalloc((size_t)from->count, sizeof *to->words) : NULL;
    for (int i = 0; i < from->count; i++) {
        to->words[i] = from->words[i];
        to->words[i].text = xstrdup(from->words[i].text);
    }
    to->text = xstrdup(from->text ? from->text : "");
}

bool ocr_cache_get(struct perceive *p, const struct frame *f, int x, int y, int w, int h,
                   const char *lang, struct ocr_result *out)
{
    if (!p->ocr_cache.valid || p->ocr_cache.x != x || p->ocr_cache.y != y || p->ocr_cache.w != w ||
        p->ocr_cache.h != h || strcmp(p->ocr_cache.lang, lang) != 0 ||
        p->ocr_cache.hash != frame_hash(f))
        return false;
    copy_result(out, &p->ocr_cache.result);
    return true;
}

void ocr_cache_put(struct perceive *p, const struct frame *f, int x, int y, int w, int h,
                   const char *lang, const struct ocr_result *r)
{
    ocr_cache_finish(p);
    if (strlen(lang) >= sizeof p->ocr_cache.lang)
        return;
    p->ocr_cache.hash = frame_hash(f);
    p->ocr_cache.x = x, p->ocr_cache.y = y, p->ocr_cache.w = w, p->ocr_cache.h = h;
    snprintf(p->ocr_cache.lang, sizeof p->ocr_cache.lang, "%s", lang);
    copy_result(&p->ocr_cache.result, r);
    p->ocr_cache.valid = true;
}

void ocr_cache_finish(struct perceive *p)
{
    if (p->ocr_cache.valid)
        ocr_result_finish(&p->ocr_cache.result);
    p->ocr_cache.valid = false;
}
