/* WebM/VP9 video through libavformat and libavcodec's libvpx-vp9 encoder
 * (BSD-licensed; never libx264, which is GPL). The libraries are dlopen'ed
 * on the first video recording, so a server that never records video never
 * maps them. Same contract as anim_writer.h, plus a size limit. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct frame;
struct video_writer;

/* Loads the libraries and checks for the VP9 encoder; false with *err
 * saying what is missing. Any thread. */
bool video_available(char **err);
/* fps: the most frames a second (sets the keyframe interval; 0: 5).
 * max_bytes: the file's limit (0: none), see video_writer_full. */
struct video_writer *video_writer_create(const char *path, int width, int height, int fps,
                                         uint64_t max_bytes, char **err);
bool video_writer_add(struct video_writer *v, const struct frame *f, uint64_t at_ms, char **err);
/* True once a frame did not fit in max_bytes: it and every later one are
 * left out, and the file ends at the frame before (within max_bytes). The
 * first frame is always written, even alone over max_bytes. */
bool video_writer_full(const struct video_writer *v);
/* Bytes the file will have so far (written and reserved for its index). */
uint64_t video_writer_bytes(const struct video_writer *v);
bool video_writer_close(struct video_writer *v, uint64_t end_ms, char **err);
void video_writer_abort(struct video_writer *v);
