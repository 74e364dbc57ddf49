/* Finished recordings, by id, so clients can fetch them as resources
 * (glovebox://recording/{id}); where they are written; and pruning of the
 * recordings folder by age and total size. Loop thread only. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app;

/* What a recording is written as (the `format` argument of record_start). */
enum rec_format { REC_GIF, REC_WEBP, REC_WEBM };

/* "gif", "webp", "webm" → *out; false for anything else. */
bool rec_format_parse(const char *name, enum rec_format *out);
const char *rec_format_name(enum rec_format f);
const char *rec_format_mime(enum rec_format f); /* "image/gif", "image/webp", "video/webm" */

struct recording_info {
    char id[32];
    char *path;
    const char *mime; /* static string */
    uint64_t bytes;
    int frames;
    uint64_t duration_ms;
    char *session; /* the session it recorded; may be NULL */
};

/* Pruning of <data dir>/recordings, after every recording and on first use:
 * files older than max_age_s go, then the oldest until the rest fit
 * max_total_bytes; the newest recording always stays. Read from the
 * environment (GLOVEBOX_RECORDINGS_MAX_BYTES, GLOVEBOX_RECORDINGS_MAX_AGE_S)
 * when set, else these defaults. */
#define RECORDINGS_DEFAULT_MAX_TOTAL (1024ull * 1024 * 1024) /* 1 GiB */
#define RECORDINGS_DEFAULT_MAX_AGE_S (30ull * 24 * 3600)     /* 30 days */

/* A new id, "recording-N", with N above every recording already in the
 * folder, and the path its file gets (<data dir>/recordings/<id>.<ext>,
 * malloc'd). NULL with *err when the folder cannot be made. */
char *recordings_new(struct app *app, enum rec_format format, char id[32], char **err);
/* A written recording joins the index (info copied) and the folder is
 * pruned. */
void recordings_add(struct app *app, const struct recording_info *info);
const struct recording_info *recordings_find(const char *id);
size_t recordings_count(void);
const struct recording_info *recordings_at(size_t i);
void recordings_clear(void);

/* record_stop's answer for a written recording: {session, recording, frames,
 * duration_ms, path, bytes, uri, mime_type, format, truncated,
 * stopped_reason}. stopped_reason may be NULL. */
json_t *recordings_result(const struct recording_info *info, const char *stopped_reason);
