/* Writing a recording's frames as a file of one format: animated GIF (cgif,
 * 256 fixed colours), animated WebP (libwebpmux's WebPAnimEncoder, lossy) or
 * WebM/VP9 video (libavformat + libavcodec's libvpx-vp9, loaded only when a
 * video is written: video.h). Each writes to a temporary file beside path and
 * renames it into place on close, so path never holds half a file. One
 * thread at a time; blocking (run it on the worker pool). */
#pragma once
#include "record/recordings.h"

#include <stdbool.h>
#include <stdint.h>

struct frame;
struct anim_writer;

/* NULL with *err on failure (a format this machine cannot write, no room). */
struct anim_writer *anim_writer_create(enum rec_format format, const char *path, int width,
                                       int height, char **err);
/* f (width×height) is shown from at_ms (since the recording began, rising)
 * until the next frame's at_ms or the end. False with *err; then abort. */
bool anim_writer_add(struct anim_writer *w, const struct frame *f, uint64_t at_ms, char **err);
/* Finish (the last frame shown until end_ms), sync and rename into place.
 * Always frees w. */
bool anim_writer_close(struct anim_writer *w, uint64_t end_ms, char **err);
/* Abandon: the temporary file is deleted. Accepts NULL. */
void anim_writer_abort(struct anim_writer *w);

/* For the writers: a temporary file beside path (path.tmp-XXXXXX, *tmp
 * malloc'd), opened for writing; -1 with *err. */
int anim_tmp_open(const char *path, char **tmp, char **err);
/* fsync fd, close it and rename tmp over path; on failure tmp is removed.
 * Closes fd either way. */
bool anim_tmp_commit(int fd, const char *tmp, const char *path, char **err);
