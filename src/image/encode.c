#include "image/encode.h"

#include "core/xmalloc.h"
#include "image/png_strips.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <webp/encode.h>

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
 * 1280×800 screen takes about half the time on two. Smaller images are not
 * worth the threads. Speed over size: screenshots are encoded while an
 * agent waits, and png_deflate.h is made for screens. */
#define PNG_STRIPS_FROM (256 * 1024)
#define PNG_MAX_STRIPS  8

static bool encode_png(const struct frame *f, uint8_t **out, size_t *out_len, char **err)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int strips = 1;
    if ((size_t)f->width * f->height >= PNG_STRIPS_FROM && cores > 1)
        strips = cores < PNG_MAX_STRIPS ? (int)cores : PNG_MAX_STRIPS;
    return png_strips_encode(f, strips, out, out_len, err);
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
