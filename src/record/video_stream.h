/* A WebM recording encoded while it records: one encoder thread per
 * recording takes frames as they come and writes them to the temporary
 * file at once, so memory stays flat however long the recording runs, and
 * stopping only flushes the encoder and writes the index. Frames are
 * offered without waiting: one waits for the encoder at most, and a newer
 * frame replaces it (the older is dropped and counted), so a slow encoder
 * lowers the frame rate instead of queueing without bound. The first frame
 * and the newest are never dropped: a video starts and ends with the screen
 * as it was, even when the encoder starts slowly. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct frame;
struct video_stream;

/* Turns a frame source's data into the picture to encode (out is freed
 * with frame_finish after); false with *err fails the recording. Runs on
 * the encoder thread. */
typedef bool (*video_stream_render_fn)(void *data, struct frame *out, char **err);
/* Frees a frame source's data, encoded or dropped. Any thread. */
typedef void (*video_stream_release_fn)(void *data);

/* Starts the encoder thread for a video written to path (through a
 * temporary file, renamed on finish) of up to max_bytes (0: no limit),
 * sampled at most fps a second (sets the keyframe interval). NULL with
 * *err when video cannot be written here. */
struct video_stream *video_stream_create(const char *path, int fps, uint64_t max_bytes, char **err);

enum video_stream_offer {
    VIDEO_STREAM_QUEUED,  /* waits for the encoder */
    VIDEO_STREAM_DROPPED, /* queued, replacing an older frame the encoder had not reached */
    VIDEO_STREAM_STOPPED, /* the stream takes no more frames (see video_stream_stopped) */
};
/* Hands data (released by the stream in every case) shown from at_ms
 * (rising). Never blocks on the encoder. Any thread, one at a time. */
enum video_stream_offer video_stream_offer(struct video_stream *s, void *data,
                                           video_stream_render_fn render,
                                           video_stream_release_fn release, uint64_t at_ms);
/* Why the stream stopped taking frames (max_bytes, an encoder failure),
 * malloc'd, with the time of the first frame it could not take; NULL while
 * it takes frames. Any thread. */
char *video_stream_stopped(struct video_stream *s, uint64_t *at_ms);

struct video_stream_result {
    uint64_t bytes; /* of the file */
    int frames;     /* encoded */
    int dropped;    /* replaced before the encoder reached them */
};
/* Encodes the frame still waiting, flushes the encoder, writes the index
 * and renames the file into place: bounded by one frame's encoding and the
 * flush. Blocks (worker pool, or the loop thread at exit). Frees s. */
bool video_stream_finish(struct video_stream *s, uint64_t end_ms, struct video_stream_result *res,
                         char **err);
