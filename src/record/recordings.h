/* Finished recordings, by id, so clients can fetch them as resources
 * (glovebox://recording/{id}). */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct recording_info {
    char id[32];
    char *path;
    const char *mime; /* static string */
    uint64_t bytes;
    int frames;
    uint64_t duration_ms;
};

/* A new id, "recording-N". */
void recordings_new_id(char out[32]);
void recordings_add(const struct recording_info *info); /* copies */
const struct recording_info *recordings_find(const char *id);
size_t recordings_count(void);
const struct recording_info *recordings_at(size_t i);
void recordings_clear(void);
