/* Prompts: message templates a client lists (prompts/list) and fills in
 * (prompts/get) — the user-chosen counterpart of tools. Each prompt names its
 * arguments; the engine checks what a client sends against them before the
 * prompt's get function runs, so get sees only known, string-valued
 * arguments with every required one present. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define PROMPT_MAX_ARGUMENTS 8

struct prompt_argument {
    const char *name; /* NULL ends the list */
    const char *description;
    bool required;
    /* Optional, for completion/complete: append to values (a JSON array)
     * the strings that could complete value. context holds the arguments
     * the client already filled in (an object of strings; never NULL). */
    void (*complete)(const char *value, const json_t *context, json_t *values);
};

struct prompt {
    const char *name;
    const char *title; /* may be NULL */
    const char *description;
    struct prompt_argument arguments[PROMPT_MAX_ARGUMENTS];
    /* Build the prompt's messages from args (an object of strings, borrowed).
     * Returns a new array of {role, content} messages, or NULL with *err set
     * (allocated) to a message for the client. */
    json_t *(*get)(const json_t *args, char **err);
};

/* Add a prompt. Aborts on a duplicate name (a programming error). */
void prompts_add(const struct prompt *p);
void prompts_clear(void);
size_t prompts_count(void);
const struct prompt *prompts_at(size_t index);
const struct prompt *prompts_find(const char *name);
/* Whether any prompt argument offers completions. */
bool prompts_complete(void);

/* Prompts that come and go (recipes saved as files: recipe/NAME), listed
 * after the registered ones. */
struct prompt_source {
    /* The prompts now: a new array of {name, title?, description,
     * arguments: [{name, description, required}]}. */
    json_t *(*list)(void);
    /* The prompt called name filled in with args (the client's arguments,
     * borrowed, an object or NULL): a new {description, messages}. NULL
     * with *err (malloc'd) for the client; *known false (and no err) when
     * the source has no such prompt. */
    json_t *(*get)(const char *name, const json_t *args, bool *known, char **err);
};
/* One source at most (a second replaces the first). */
void prompts_set_source(const struct prompt_source *s);
const struct prompt_source *prompts_source(void);
/* Whether the server offers prompts at all (the capability). */
bool prompts_any(void);
/* Tell connected clients that prompts/list changed (the source's prompts
 * did); the capability says listChanged whenever a source is set. */
void prompts_list_changed(void);
