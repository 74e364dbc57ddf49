/* The prompt registry: registration order is list order. */
#include "mcp/prompt.h"

#include "core/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct prompt **prompts;
static size_t count, cap;
static const struct prompt_source *source;

void prompts_add(const struct prompt *p)
{
    if (prompts_find(p->name)) {
        fprintf(stderr, "glovebox: prompt %s registered twice\n", p->name);
        abort();
    }
    if (count == cap) {
        cap = cap ? cap * 2 : 16;
        prompts = xrealloc(prompts, cap * sizeof *prompts);
    }
    prompts[count++] = p;
}

void prompts_clear(void)
{
    free(prompts);
    prompts = NULL;
    count = cap = 0;
    source = NULL;
}

size_t prompts_count(void)
{
    return count;
}

const struct prompt *prompts_at(size_t index)
{
    return index < count ? prompts[index] : NULL;
}

const struct prompt *prompts_find(const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(prompts[i]->name, name) == 0)
            return prompts[i];
    return NULL;
}

bool prompts_complete(void)
{
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < PROMPT_MAX_ARGUMENTS && prompts[i]->arguments[j].name; j++)
            if (prompts[i]->arguments[j].complete)
                return true;
    return false;
}

void prompts_set_source(const struct prompt_source *s)
{
    source = s;
}

const struct prompt_source *prompts_source(void)
{
    return source;
}

bool prompts_any(void)
{
    return count > 0 || source;
}
