/* Validates tool arguments against the tool's JSON Schema before the tool
 * runs, so handlers can trust their input. The subset covers what tool
 * schemas use: type (string or list), properties, required,
 * additionalProperties, items, enum, const, minimum/maximum (and exclusive),
 * minLength/maxLength, minItems/maxItems, pattern (POSIX extended), anyOf and
 * oneOf. Error messages name the argument, what was expected and what was
 * received, so a model can correct its call. */
#pragma once
#include <jansson.h>
#include <stdbool.h>

/* Returns true if value satisfies schema; otherwise false with *err set (the
 * caller frees). */
bool schema_validate(const json_t *schema, const json_t *value, char **err);
/* A short human description of what a schema accepts: "integer",
 * "array of strings", "one of \"png\", \"jpeg\"". Caller frees. */
char *schema_describe(const json_t *schema);
