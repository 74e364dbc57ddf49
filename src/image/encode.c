#include "image/encode.h"

#include "core/xmalloc.h"
#include "image/png_strips.h"

#include <spng.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <webp/encode.h>

/* Speed over size: screenshots are encoded while an agent waits. Measured on
 * a 1200x760 terminal render: no filtering with deflate level 2 took 8 ms for
 * 177 KB, while adaptive filters or higher levels cost 1.5-2x the time for
 * at most 5% less; Z_RLE was faster but 50% larger. */
#define PNG_LEVEL    2
#define PNG_FILTERS  SPNG_FILTER_CHOICE_NONE
#define PNG_STRATEGY 0 /* Z_DEFAULT_STRATEGY */
/* WebP effort 0..6: 3 and up doubled the time for 2% less on screenshots. */
#define WEBP_METHOD 2

bool image_format_parse(const char *name, enum image_format *out)
{
    if (!name)
        return false;
    if (strcasecmp(name, "png") == 0)
        *out = IMAGE_PNG;
    else if (strcasecmp(name, "jpeg") == 0 || strcasecmp(name, "jpg") == 0)
        *out = IMAGE_JPEG;
    else if (strcasecmp(name, "webp") == 0)
        *out = IMAGE_WEBP;
    else
        return false;
    return true;
}

const char *image_format_mime(enum image_format fmt)
{
    switch (fmt) {
    case IMAGE_JPEG:
        return "image/jpeg";
    case IMAGE_WEBP:
        return "image/webp";
    case IMAGE_PNG:
        break;
    }
    return "image/png";
}

const char *image_format_extension(enum image_format fmt)
{
    switch (fmt) {
    case IMAGE_JPEG:
        return "jpg";
    case IMAGE_WEBP:
        return "webp";
    case IMAGE_PNG:
        break;
    }
    return "png";
}

/* From this many pixels on, PNG is compressed in strips on every core: a
 * 1280×800 screen takes half the time on two. Smaller images are not worth
 * the threads. */
#define PNG_STRIPS_FROM (256 * 1024)
#define PNG_MAX_STRIPS  8

static bool encode_png(const struct frame *f, uint8_t **out, size_t *out_len, char **err)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if ((size_t)f->width * f->height >= PNG_STRIPS_FROM && cores > 1)
        return png_strips_encode(f, PNG_LEVEL, cores < PNG_MAX_STRIPS ? (int)cores : PNG_MAX_STRIPS,
                                 out, out_len, err);
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (!ctx) {
        *err = xstrdup("PNG encoder could not be created");
        return false;
    }
    struct spng_ihdr ihdr = {
        .width = f->width,
        .height = f->height,
        .bit_depth = 8,
        .color_type = SPNG_COLOR_TYPE_TRUECOLOR,
    };
    uint8_t *row = xmalloc((size_t)f->width * 3);
    int rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (!rc)
        rc = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, PNG_LEVEL);
    if (!rc)
        rc = spng_set_option(ctx, SPNG_IMG_COMPRESSION_STRATEGY, PNG_STRATEGY);
    if (!rc)
        rc = spng_set_option(ctx, SPNG_FILTER_CHOICE, PNG_FILTERS);
    if (!rc)
        rc = spng_set_ihdr(ctx, &ihdr);
    if (!rc)
        rc = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG,
                               SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
    /* Alpha is always opaque: send RGB rows and save a quarter of the work. */
    for (uint32_t y = 0; !rc && y < f->height; y++) {
        const uint8_t *src = f->rgba + (size_t)y * f->stride;
        for (uint32_t x = 0; x < f->width; x++) {
            row[x * 3] = src[x * 4];
            row[x * 3 + 1] = src[x * 4 + 1];
            row[x * 3 + 2] = src[x * 4 + 2];
        }
        rc = spng_encode_row(ctx, row, (size_t)f->width * 3);
    }
    free(row);
    if (rc == SPNG_EOI)
        rc = 0;
    void *png = NULL;
    if (!rc)
        png = spng_get_png_buffer(ctx, out_len, &rc);
    spng_ctx_free(ctx);
    if (!png) {
        *err = xasprintf("PNG encoding failed: %s", spng_strerror(rc));
        return false;
    }
    *out = png; /* malloc'd by libspng with the default allocator */
    return true;
}

static bool encode_jpeg(const struct frame *f, int quality, uint8_t **out, size_t *out_len,
                        char **err)
{
    tjhandle tj = tjInitCompress();
    if (!tj) {
        *err = xstrdup("JPEG encoder could not be created");
        return false;
    }
    /* A buffer of the worst-case size, ours, so callers can free() it. */
    unsigned long len = tjBufSize((int)f->width, (int)f->height, TJSAMP_420);
    unsigned char *buf = xmalloc(len);
    int rc = tjCompress2(tj, f->rgba, (int)f->width, (int)f->stride, (int)f->height, TJPF_RGBA,
                         &buf, &len, TJSAMP_420, quality, TJFLAG_NOREALLOC);
    if (rc != 0) {
        *err = xasprintf("JPEG encoding failed: %s", tjGetErrorStr2(tj));
        free(buf);
        tjDestroy(tj);
        return false;
    }
    tjDestroy(tj);
    *out = xrealloc(buf, len);
    *out_len = len;
    return true;
}

static bool encode_webp(const struct frame *f, int quality, uint8_t **out, size_t *out_len,
                        char **err)
{
    if (f->width > WEBP_MAX_DIMENSION || f->height > WEBP_MAX_DIMENSION) {
        *err = xasprintf("WebP images are limited to %dx%d pixels; this one is %ux%u",
                         WEBP_MAX_DIMENSION, WEBP_MAX_DIMENSION, f->width, f->height);
        return false;
    }
    WebPConfig config;
    WebPPicture pic;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, (float)quality) || !WebPPictureInit(&pic)) {
        *err = xstrdup("WebP encoder could not be set up (library version mismatch)");
        return false;
    }
    config.method = WEBP_METHOD;
    /* Quality 100 means "exact": lossless keeps text edges crisp. */
    if (quality == 100)
        WebPConfigLosslessPreset(&config, 1);
    pic.use_argb = config.lossless;
    pic.width = (int)f->width;
    pic.height = (int)f->height;
    WebPMemoryWriter wr;
    WebPMemoryWriterInit(&wr);
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &wr;
    /* RGBX: the alpha byte is ignored, so no alpha plane gets encoded. */
    bool ok = WebPPictureImportRGBX(&pic, f->rgba, (int)f->stride) && WebPEncode(&config, &pic);
    if (!ok)
        *err = xasprintf("WebP encoding failed (error %d)", (int)pic.error_code);
    WebPPictureFree(&pic);
    if (ok) {
        *out = xmalloc(wr.size);
        memcpy(*out, wr.mem, wr.size);
        *out_len = wr.size;
    }
    WebPMemoryWriterClear(&wr);
    return ok;
}

bool image_encode(const struct frame *f, enum image_format fmt, int quality, uint8_t **out,
                  size_t *out_len, char **err)
{
    if (!f->rgba || f->width == 0 || f->height == 0) {
        *err = xstrdup("cannot encode an empty image");
        return false;
    }
    if (fmt != IMAGE_PNG && (quality < 1 || quality > 100)) {
        *err = xasprintf("quality must be between 1 and 100, not %d", quality);
        return false;
    }
    if (f->width > 65535 || f->height > 65535) {
        *err = xasprintf("image of %ux%u pixels is too large to encode", f->width, f->height);
        return false;
    }
    switch (fmt) {
    case IMAGE_PNG:
        return encode_png(f, out, out_len, err);
    case IMAGE_JPEG:
        return encode_jpeg(f, quality, out, out_len, err);
    case IMAGE_WEBP:
        return encode_webp(f, quality, out, out_len, err);
    }
    *err = xasprintf("unknown image format %d", (int)fmt);
    return false;
}
