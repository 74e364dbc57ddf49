#include "core/args.h"

#include <math.h>

const char *args_string(const json_t *args, const char *key, const char *fallback)
{
    const char *s = json_string_value(json_object_get(args, key));
    return s ? s : fallback;
}

long long args_int(const json_t *args, const char *key, long long fallback)
{
    const json_t *v = json_object_get(args, key);
    if (json_is_integer(v))
        return json_integer_value(v);
    /* The schema accepts 3.0 as an integer. */
    if (json_is_real(v))
        return (long long)llround(json_real_value(v));
    return fallback;
}

double args_number(const json_t *args, const char *key, double fallback)
{
    const json_t *v = json_object_get(args, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

bool args_bool(const json_t *args, const char *key, bool fallback)
{
    const json_t *v = json_object_get(args, key);
    return json_is_boolean(v) ? json_is_true(v) : fallback;
}
