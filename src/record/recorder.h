/* The recorder every kind with frames shares: a backend's frame source
 * pushes whole frames (RGBA, already redacted); the recorder drops
 * unchanged frames, stops by itself at its limits (keeping what it has),
 * and writes the file atomically and indexes it as
 * glovebox://recording/{id}. GIF and WebP keep only the rectangle that
 * changed since the previous frame and are encoded on finish, on the worker
 * pool; WebM streams each changed frame to the recording's encoder thread
 * (video_stream.h), so it holds one picture whatever its length and finish
 * only flushes. The terminal keeps its own cell-based store (and streams
 * WebM itself). */
#pragma once
#include "record/recordings.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct app;
struct frame;
struct recorder;

/* A recording stops by itself at the first of: its frames' memory
 * (max_bytes; for WebM the file's size), its length (max_duration_s),
 * RECORDER_MAX_FRAMES (not for WebM, which holds no frames). */
#define RECORDER_DEFAULT_MAX_BYTES    (64ull * 1024 * 1024)
#define RECORDER_DEFAULT_MAX_DURATION 3600 /* s */
#define RECORDER_MAX_FRAMES           36000

struct recorder_options {
    enum rec_format format;
    int fps; /* frames a second at most */
    uint64_t max_bytes;
    uint64_t max_duration_ms;
};

/* record_start's arguments (format, fps, max_bytes, max_duration_s; already
 * checked against the schema) with default_fps when fps is absent. False
 * with *err naming the field. */
bool recorder_options_parse(const json_t *args, int default_fps, struct recorder_options *o,
                            char **err);

/* A new recording of session (its id, copied), with its id and path
 * chosen now. NULL with *err. Loop thread. */
struct recorder *recorder_create(struct app *app, const char *session,
                                 const struct recorder_options *o, char **err);
const char *recorder_id(const struct recorder *r);
const struct recorder_options *recorder_options(const struct recorder *r);
int recorder_frames(const struct recorder *r);

enum recorder_push {
    RECORDER_KEPT,    /* a new frame */
    RECORDER_SAME,    /* identical to the previous frame: nothing kept */
    RECORDER_STOPPED, /* a limit was reached (now or before): nothing kept */
};
/* Offer a frame taken at_ms after the recording began. Any thread, one
 * call at a time and never during recorder_stopped_reason's use. */
enum recorder_push recorder_push(struct recorder *r, const struct frame *f, uint64_t at_ms);
/* Why the recording stopped by itself; NULL while it records. */
const char *recorder_stopped_reason(const struct recorder *r);

/* Called once on the loop thread when the file is written and indexed:
 * result is record_stop's answer (recordings_result; the callee owns it) or
 * NULL with err (a message; the callee does not own it). */
typedef void (*recorder_done_fn)(void *ud, json_t *result, const char *err);
/* Write the file on the worker pool; done (may be NULL) hears the outcome;
 * r is freed after. end_ms: the recording's length (capped at the
 * duration limit). Loop thread. */
void recorder_finish(struct recorder *r, uint64_t end_ms, recorder_done_fn done, void *ud);
/* The same, on this thread, for when the loop will not run again (server
 * shutdown). */
void recorder_finish_now(struct recorder *r, uint64_t end_ms);
