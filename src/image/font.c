#include "image/font.h"

#include "core/xmalloc.h"
#include "image/cellgrid.h"

#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_BITMAP_H
#include FT_SYNTHESIS_H
#include FT_TRUETYPE_TABLES_H

#include <stdlib.h>
#include <string.h>

#define STYLES    4 /* CELL_BOLD | CELL_ITALIC combinations */
#define MAX_CODEP 0x10ffff

/* One loaded font file; face is NULL when it cannot be used at our size. */
struct face_entry {
    char *path;
    int index;
    FT_Face face;
};

struct font_set {
    FT_Library ft;
    char *family;
    int pixel_size;
    struct font_metrics m;
    struct face_entry *faces;
    int nfaces;
    FT_Face primary[STYLES];
    FcFontSet *fallbacks; /* sorted by fontconfig, built on the first miss */
    struct glyph **slots; /* open addressing on glyph key */
    uint32_t nslots, nglyphs;
};

static FT_Face load_face(struct font_set *fs, const char *path, int index)
{
    for (int i = 0; i < fs->nfaces; i++)
        if (fs->faces[i].index == index && strcmp(fs->faces[i].path, path) == 0)
            return fs->faces[i].face;
    FT_Face face = NULL;
    if (FT_New_Face(fs->ft, path, index, &face) != 0)
        face = NULL;
    /* Bitmap-only faces (colour emoji) come in fixed sizes we cannot scale. */
    if (face && (!FT_IS_SCALABLE(face) || FT_Set_Pixel_Sizes(face, 0, fs->pixel_size) != 0)) {
        FT_Done_Face(face);
        face = NULL;
    }
    fs->faces = xrealloc(fs->faces, sizeof(*fs->faces) * (size_t)(fs->nfaces + 1));
    fs->faces[fs->nfaces++] = (struct face_entry){xstrdup(path), index, face};
    return face;
}

static FcPattern *family_pattern(const char *family, unsigned style)
{
    FcPattern *p = FcNameParse((const FcChar8 *)family);
    if (!p)
        return NULL;
    FcPatternDel(p, FC_WEIGHT);
    FcPatternDel(p, FC_SLANT);
    FcPatternAddInteger(p, FC_WEIGHT, style & CELL_BOLD ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR);
    FcPatternAddInteger(p, FC_SLANT, style & CELL_ITALIC ? FC_SLANT_ITALIC : FC_SLANT_ROMAN);
    FcConfigSubstitute(NULL, p, FcMatchPattern);
    FcDefaultSubstitute(p);
    return p;
}

static FT_Face match_face(struct font_set *fs, unsigned style)
{
    FcPattern *p = family_pattern(fs->family, style);
    if (!p)
        return NULL;
    FcResult res;
    FcPattern *m = FcFontMatch(NULL, p, &res);
    FcPatternDestroy(p);
    if (!m)
        return NULL;
    FcChar8 *file = NULL;
    int index = 0;
    FT_Face face = NULL;
    if (FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch) {
        FcPatternGetInteger(m, FC_INDEX, 0, &index);
        face = load_face(fs, (const char *)file, index);
    }
    FcPatternDestroy(m);
    return face;
}

static int round26(FT_Pos v)
{
    return (int)((v + 32) >> 6);
}

static void compute_metrics(struct font_set *fs)
{
    FT_Face f = fs->primary[0];
    struct font_metrics *m = &fs->m;
    int asc = (int)((f->size->metrics.ascender + 63) >> 6);
    int desc = (int)((-f->size->metrics.descender + 63) >> 6);
    m->baseline = asc;
    m->cell_h = asc + desc > 0 ? asc + desc : fs->pixel_size;
    m->cell_w = 0;
    if (FT_Load_Char(f, 'M', FT_LOAD_TARGET_LIGHT) == 0)
        m->cell_w = round26(f->glyph->advance.x);
    if (m->cell_w <= 0)
        m->cell_w = round26(f->size->metrics.max_advance);
    if (m->cell_w <= 0)
        m->cell_w = (fs->pixel_size + 1) / 2;

    FT_Fixed ys = f->size->metrics.y_scale;
    m->underline_h = round26(FT_MulFix(f->underline_thickness, ys));
    if (m->underline_h < 1)
        m->underline_h = 1;
    m->underline_y = m->baseline - round26(FT_MulFix(f->underline_position, ys));
    if (m->underline_y <= m->baseline)
        m->underline_y = m->baseline + 1;

    const TT_OS2 *os2 = FT_Get_Sfnt_Table(f, FT_SFNT_OS2);
    if (os2 && os2->yStrikeoutSize > 0) {
        m->strike_h = round26(FT_MulFix(os2->yStrikeoutSize, ys));
        m->strike_y = m->baseline - round26(FT_MulFix(os2->yStrikeoutPosition, ys));
    } else {
        m->strike_h = m->underline_h;
        m->strike_y = m->baseline - asc / 3;
    }
    if (m->strike_h < 1)
        m->strike_h = 1;

    /* Lines must stay inside the cell or neighbouring rows would paint over them. */
    if (m->underline_h > m->cell_h / 4 + 1)
        m->underline_h = m->cell_h / 4 + 1;
    if (m->underline_y + m->underline_h > m->cell_h)
        m->underline_y = m->cell_h - m->underline_h;
    if (m->strike_y < 0 || m->strike_y + m->strike_h > m->cell_h)
        m->strike_y = m->cell_h / 2;
}

struct font_set *font_set_create(const char *family, int pixel_size, char **err)
{
    if (!family || !*family)
        family = "DejaVu Sans Mono";
    if (pixel_size < 4 || pixel_size > 512) {
        *err = xasprintf("font size %d px is out of range (4..512)", pixel_size);
        return NULL;
    }
    if (!FcInit()) {
        *err = xstrdup("fontconfig failed to initialise");
        return NULL;
    }
    struct font_set *fs = xcalloc(1, sizeof(*fs));
    fs->family = xstrdup(family);
    fs->pixel_size = pixel_size;
    if (FT_Init_FreeType(&fs->ft) != 0) {
        free(fs->family);
        free(fs);
        *err = xstrdup("FreeType failed to initialise");
        return NULL;
    }
    for (unsigned s = 0; s < STYLES; s++)
        fs->primary[s] = match_face(fs, s);
    if (!fs->primary[0]) {
        *err =
            xasprintf("no usable scalable font matches \"%s\" (install fonts-dejavu-core)", family);
        font_set_destroy(fs);
        return NULL;
    }
    for (unsigned s = 1; s < STYLES; s++)
        if (!fs->primary[s])
            fs->primary[s] = fs->primary[0];
    compute_metrics(fs);
    fs->nslots = 512;
    fs->slots = xcalloc(fs->nslots, sizeof(*fs->slots));
    return fs;
}

void font_set_destroy(struct font_set *fs)
{
    if (!fs)
        return;
    for (uint32_t i = 0; i < fs->nslots; i++)
        free(fs->slots[i]);
    free(fs->slots);
    for (int i = 0; i < fs->nfaces; i++) {
        if (fs->faces[i].face)
            FT_Done_Face(fs->faces[i].face);
        free(fs->faces[i].path);
    }
    free(fs->faces);
    if (fs->fallbacks)
        FcFontSetDestroy(fs->fallbacks);
    FT_Done_FreeType(fs->ft);
    free(fs->family);
    free(fs);
}

const struct font_metrics *font_set_metrics(const struct font_set *fs)
{
    return &fs->m;
}

/* A face other than the primary that has cp, in fontconfig's order of
 * preference for our family; NULL when no installed font has it. */
static FT_Face fallback_face(struct font_set *fs, uint32_t cp, FT_UInt *gi)
{
    if (!fs->fallbacks) {
        FcPattern *p = family_pattern(fs->family, 0);
        FcResult res;
        fs->fallbacks = p ? FcFontSort(NULL, p, FcTrue, NULL, &res) : NULL;
        if (p)
            FcPatternDestroy(p);
        if (!fs->fallbacks)
            fs->fallbacks = FcFontSetCreate();
    }
    for (int i = 0; i < fs->fallbacks->nfont; i++) {
        FcPattern *font = fs->fallbacks->fonts[i];
        FcCharSet *cs;
        FcChar8 *file;
        int index = 0;
        if (FcPatternGetCharSet(font, FC_CHARSET, 0, &cs) != FcResultMatch ||
            !FcCharSetHasChar(cs, cp) ||
            FcPatternGetString(font, FC_FILE, 0, &file) != FcResultMatch)
            continue;
        FcPatternGetInteger(font, FC_INDEX, 0, &index);
        FT_Face face = load_face(fs, (const char *)file, index);
        if (face && (*gi = FT_Get_Char_Index(face, cp)) != 0)
            return face;
    }
    return NULL;
}

static struct glyph *glyph_new(uint32_t key, int x, int y, int w, int h)
{
    struct glyph *g = xmalloc(sizeof(*g) + (size_t)w * (size_t)h);
    *g = (struct glyph){key, x, y, w, h, (uint8_t *)(g + 1)};
    memset(g->alpha, 0, (size_t)w * (size_t)h);
    return g;
}

/* What we draw for a code point no installed font has: a hollow box. */
static struct glyph *box_glyph(const struct font_set *fs, uint32_t key, int span)
{
    int w = span * fs->m.cell_w - 2, h = fs->m.cell_h - 2;
    if (w < 2 || h < 2)
        return glyph_new(key, 0, 0, 0, 0);
    struct glyph *g = glyph_new(key, 1, 1, w, h);
    for (int x = 0; x < w; x++)
        g->alpha[x] = g->alpha[(h - 1) * w + x] = 255;
    for (int y = 0; y < h; y++)
        g->alpha[y * w] = g->alpha[y * w + w - 1] = 255;
    return g;
}

/* Copy the rendered bitmap into a glyph placed within the span, clipped. */
static struct glyph *place_bitmap(const struct font_set *fs, uint32_t key, int span,
                                  FT_GlyphSlot slot, const FT_Bitmap *bm)
{
    int span_w = span * fs->m.cell_w;
    int adv = round26(slot->advance.x);
    /* Centre glyphs whose advance differs from the span (fallback fonts);
     * zero-advance marks sit where a following pen would: after the base. */
    int pen = adv > 0 ? (span_w - adv) / 2 : span_w;
    int x0 = pen + slot->bitmap_left, y0 = fs->m.baseline - slot->bitmap_top;
    int cx0 = x0 < 0 ? 0 : x0, cy0 = y0 < 0 ? 0 : y0;
    int cx1 = x0 + (int)bm->width, cy1 = y0 + (int)bm->rows;
    if (cx1 > span_w)
        cx1 = span_w;
    if (cy1 > fs->m.cell_h)
        cy1 = fs->m.cell_h;
    if (cx1 <= cx0 || cy1 <= cy0)
        return glyph_new(key, 0, 0, 0, 0);
    struct glyph *g = glyph_new(key, cx0, cy0, cx1 - cx0, cy1 - cy0);
    /* Mono bitmaps convert to 0/1 levels; stretch every format to 0..255,
     * in 16 steps of coverage: the edges look the same, and a screen of a
     * few colour pairs then has at most 256 colours, which PNG stores as a
     * palette, a byte a pixel (a plain `ls -l --color` screen had 351
     * colours with 255 steps: 141 KB and 9.7 ms of CPU as RGB; 39 KB and
     * 3.9 ms as a palette). */
    int grays = bm->num_grays > 1 ? bm->num_grays : 2;
    for (int y = 0; y < g->h; y++) {
        const uint8_t *src = bm->buffer + (long)(cy0 - y0 + y) * bm->pitch + (cx0 - x0);
        uint8_t *dst = g->alpha + y * g->w;
        for (int x = 0; x < g->w; x++) {
            int a = grays == 256 ? src[x] : src[x] * 255 / (grays - 1);
            dst[x] = (uint8_t)((a + 8) / 17 * 17); /* 0, 17, …, 255 */
        }
    }
    return g;
}

static struct glyph *rasterise(struct font_set *fs, uint32_t key, uint32_t cp, unsigned style,
                               int span)
{
    FT_Face face = fs->primary[style];
    FT_UInt gi = FT_Get_Char_Index(face, cp);
    if (!gi) {
        face = fs->primary[0];
        gi = FT_Get_Char_Index(face, cp);
    }
    if (!gi)
        face = fallback_face(fs, cp, &gi);
    if (!face || FT_Load_Glyph(face, gi, FT_LOAD_TARGET_LIGHT) != 0)
        return box_glyph(fs, key, span);
    FT_GlyphSlot slot = face->glyph;
    /* Faces without a real bold or italic variant get synthetic ones. */
    if ((style & CELL_BOLD) && !(face->style_flags & FT_STYLE_FLAG_BOLD))
        FT_GlyphSlot_Embolden(slot);
    if ((style & CELL_ITALIC) && !(face->style_flags & FT_STYLE_FLAG_ITALIC))
        FT_GlyphSlot_Oblique(slot);
    if (slot->format != FT_GLYPH_FORMAT_BITMAP && FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) != 0)
        return box_glyph(fs, key, span);
    if (slot->bitmap.pixel_mode == FT_PIXEL_MODE_GRAY && slot->bitmap.pitch >= 0)
        return place_bitmap(fs, key, span, slot, &slot->bitmap);
    FT_Bitmap conv;
    FT_Bitmap_Init(&conv);
    struct glyph *g;
    if (FT_Bitmap_Convert(fs->ft, &slot->bitmap, &conv, 1) == 0)
        g = place_bitmap(fs, key, span, slot, &conv);
    else
        g = box_glyph(fs, key, span);
    FT_Bitmap_Done(fs->ft, &conv);
    return g;
}

static uint32_t slot_of(const struct font_set *fs, uint32_t key)
{
    return (key * 2654435761u) & (fs->nslots - 1);
}

static void insert(struct font_set *fs, struct glyph *g)
{
    uint32_t s = slot_of(fs, g->key);
    while (fs->slots[s])
        s = (s + 1) & (fs->nslots - 1);
    fs->slots[s] = g;
}

static void grow(struct font_set *fs)
{
    struct glyph **old = fs->slots;
    uint32_t n = fs->nslots;
    fs->nslots *= 2;
    fs->slots = xcalloc(fs->nslots, sizeof(*fs->slots));
    for (uint32_t i = 0; i < n; i++)
        if (old[i])
            insert(fs, old[i]);
    free(old);
}

const struct glyph *font_set_glyph(struct font_set *fs, uint32_t cp, unsigned style, int span)
{
    if (cp > MAX_CODEP || (cp >= 0xd800 && cp <= 0xdfff))
        cp = 0xfffd;
    style &= STYLES - 1;
    span = span == 2 ? 2 : 1;
    /* 21 bits of code point, 2 of style, 1 of span. */
    uint32_t key = cp | style << 21 | (uint32_t)(span - 1) << 23;
    uint32_t s = slot_of(fs, key);
    for (struct glyph *g; (g = fs->slots[s]); s = (s + 1) & (fs->nslots - 1))
        if (g->key == key)
            return g;
    if (fs->nglyphs * 2 >= fs->nslots)
        grow(fs);
    struct glyph *g = rasterise(fs, key, cp, style, span);
    insert(fs, g);
    fs->nglyphs++;
    return g;
}
