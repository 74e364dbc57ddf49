/* Reading validated tool arguments. The schema has already checked types,
 * so these only supply defaults. */
#pragma once
#include <jansson.h>
#include <stdbool.h>

const char *args_string(const json_t *args, const char *key, const char *fallback);
long long args_int(const json_t *args, const char *key, long long fallback);
double args_number(const json_t *args, const char *key, double fallback);
bool args_bool(const json_t *args, const char *key, bool fallback);
