/* Cutting known secret strings (a recipe's secret params) out of text and
 * JSON, wherever they occur: the audit log and a recipe run's results must
 * never show them, even quoted inside an error message. */
#pragma once
#include <jansson.h>

/* The text shown in place of a secret. */
#define SCRUB_REDACTED "[redacted]"

/* text with every occurrence of secret replaced by SCRUB_REDACTED; malloc'd.
 * An empty secret replaces nothing. */
char *scrub_text_one(const char *text, const char *secret);
/* The same for every string of secrets (an array; NULL: none). */
char *scrub_text(const char *text, const json_t *secrets);
/* Every string inside v, at any depth, scrubbed in place. */
void scrub_json(json_t *v, const json_t *secrets);
