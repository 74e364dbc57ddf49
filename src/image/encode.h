/* Image encoders: PNG (libdeflate, zlib; png_strips.h), JPEG (libturbojpeg), WebP (libwebp). They
 * are CPU-bound; call them from the worker pool, not the loop thread. */
#pragma once
#include "image/frame.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum image_format { IMAGE_PNG, IMAGE_JPEG, IMAGE_WEBP };

/* "png", "jpeg", "webp" -> format; false if unknown. */
bool image_format_parse(const char *name, enum image_format *out);
const char *image_format_mime(enum image_format fmt);
const char *image_format_extension(enum image_format fmt);

/* quality: 1..100 for JPEG and WebP (ignored for PNG). On success *out is a
 * malloc'd buffer of *out_len bytes; on failure returns false and sets *err
 * (caller frees). */
bool image_encode(const struct frame *f, enum image_format fmt, int quality, uint8_t **out,
                  size_t *out_len, char **err);
