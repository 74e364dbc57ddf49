/* recipe_save {from}: steps built from this server's audit log. */
#pragma once
#include <jansson.h>

struct tool_call;

/* Reads the caller's own successful, non-read-only calls that match from
 * ({session, since, until, last}) and finishes call through
 * recipe_save_finish. */
void recipe_from_audit_start(struct tool_call *call, const json_t *from);

/* recipe_save.c: check, store and answer (steps and params stolen; params
 * may be NULL; from says where the steps came from, or NULL). */
void recipe_save_finish(struct tool_call *call, json_t *steps, json_t *params, const char *from);
