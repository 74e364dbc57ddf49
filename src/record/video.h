/* WebM/VP9 video through libavformat and libavcodec's libvpx-vp9 encoder
 * (BSD-licensed; never libx264, which is GPL). The libraries are dlopen'ed
 * on the first video recording, so a server that never records video never
 * maps them. Same contract as anim_writer.h. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct frame;
struct video_writer;

struct video_writer *video_writer_create(const char *path, int width, int height, char **err);
bool video_writer_add(struct video_writer *v, const struct frame *f, uint64_t at_ms, char **err);
bool video_writer_close(struct video_writer *v, uint64_t end_ms, char **err);
void video_writer_abort(struct video_writer *v);
