/* Rate limits of a policy: token buckets, one shared by every tool call
 * ("global") and one per tool named. A call takes one token from each
 * bucket it belongs to; an empty bucket refuses the call and says when the
 * next token comes. Time is passed in (milliseconds, monotonic) so tests
 * need not sleep. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct rate_limits;

/* doc: the policy's "rate_limits" object, e.g. {"global": {"per_second":
 * 20, "burst": 40}, "tools": {"<tool>": {"per_minute": 60}}}; NULL: no
 * limits. NULL with *err naming the field when malformed. */
struct rate_limits *rate_limits_parse(const json_t *doc, char **err);
void rate_limits_destroy(struct rate_limits *r);

/* NULL when tool may run now (its tokens are taken), else a malloc'd
 * refusal with *retry_after_ms set. */
char *rate_limits_take(struct rate_limits *r, const char *tool, uint64_t now_ms,
                       uint64_t *retry_after_ms);
/* Keep the fill of buckets whose limits did not change (a policy reload). */
void rate_limits_carry_over(struct rate_limits *to, const struct rate_limits *from);
json_t *rate_limits_describe(const struct rate_limits *r);
