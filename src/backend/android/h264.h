/* An H.264 Annex B byte stream (what `screenrecord --output-format=h264`
 * writes) decoded by libavcodec's H.264 decoder (LGPL; dlopen'ed through
 * record/libav.h), keeping the latest picture. Frame boundaries are not
 * marked in Annex B: a NAL unit is known to be whole only when the next
 * start code arrives, so the last one is held back until then or until
 * h264_decoder_flush_tail says the stream went quiet (a still screen sends
 * nothing more). One thread at a time per decoder; pictures may be read on
 * any thread. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame;
struct h264_decoder;
struct h264_picture;

/* NULL with *err (caller frees) when libavcodec or its H.264 decoder is
 * missing. */
struct h264_decoder *h264_decoder_create(char **err);
void h264_decoder_destroy(struct h264_decoder *d);

/* Takes len bytes of the stream: the whole NAL units among them are
 * decoded. The number of new pictures (0 or more), or -1 with *err when
 * the stream cannot be decoded any more (restart it): H264_CUT_SHORT when
 * the silence flush_tail was told of came in the middle of a picture
 * (wait longer before calling it). */
#define H264_CUT_SHORT (-2)
int h264_decoder_push(struct h264_decoder *d, const uint8_t *data, size_t len, char **err);
/* Whether a NAL unit is held back (see above). */
bool h264_decoder_has_tail(const struct h264_decoder *d);
/* Decodes the held-back NAL unit as whole: new pictures or -1 as push. If
 * more of it comes after all, push fails (the boundary was wrong). */
int h264_decoder_flush_tail(struct h264_decoder *d, char **err);

/* A new reference to the latest picture, or NULL before the first. */
struct h264_picture *h264_decoder_latest(struct h264_decoder *d);
void h264_picture_size(const struct h264_picture *p, int *width, int *height);
/* The picture's brightness (Y) plane, 8 bits a pixel: full range (0-255)
 * when *full, else limited (16-235). false for other pixel formats. */
bool h264_picture_luma(const struct h264_picture *p, const uint8_t **luma, int *stride, int *width,
                       int *height, bool *full);
/* The picture's number in its stream (1, 2, …): the same picture, the same
 * number. */
uint64_t h264_picture_serial(const struct h264_picture *p);
/* The picture as RGBA pixels (out allocated); false with *err for a pixel
 * format other than 8-bit 4:2:0. Any thread. */
bool h264_picture_rgba(const struct h264_picture *p, struct frame *out, char **err);
void h264_picture_free(struct h264_picture *p);
