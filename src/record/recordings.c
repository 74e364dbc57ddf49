#include "record/recordings.h"

#include "core/xmalloc.h"

#include <stdio.h>
#include <string.h>

static struct recording_info *list;
static size_t count, cap;
static unsigned next_id = 1;

void recordings_new_id(char out[32])
{
    snprintf(out, 32, "recording-%u", next_id++);
}

void recordings_add(const struct recording_info *info)
{
    if (count == cap) {
        cap = cap ? cap * 2 : 16;
        list = xrealloc(list, cap * sizeof *list);
    }
    list[count] = *info;
    list[count].path = xstrdup(info->path);
    count++;
}

const struct recording_info *recordings_find(const char *id)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i].id, id) == 0)
            return &list[i];
    return NULL;
}

size_t recordings_count(void)
{
    return count;
}

const struct recording_info *recordings_at(size_t i)
{
    return i < count ? &list[i] : NULL;
}

void recordings_clear(void)
{
    for (size_t i = 0; i < count; i++)
        free(list[i].path);
    free(list);
    list = NULL;
    count = cap = 0;
}
