/* Compact JSON text of a jansson value, as json_dumps(v, JSON_COMPACT)
 * writes it, but fast on long strings: a screenshot's reply carries a
 * few hundred KB of base64, which jansson's dump walks a code point at a
 * time (about 1.8 ms on the loop thread for a 120×40 terminal's PNG);
 * here a string with nothing to escape is one scan and one copy. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* Appends v's JSON text to sb; false (sb as it was, or partly written) if
 * v cannot be dumped — the same values json_dumps refuses (a NaN, a
 * string that is not UTF-8 when jansson would check it). */
bool json_out_append(struct strbuf *sb, const json_t *v);
/* v's JSON text, malloc'd and NUL-terminated, its length in *len (may be
 * NULL); NULL if v cannot be dumped. */
char *json_out_dump(const json_t *v, size_t *len);

/* Values whose text is kept once written: answers that repeat as they
 * were (a terminal's screen that did not change between reads) are then
 * a copy, not a walk of their tree with every string scanned again.
 * v must not change from now on; the memo holds a reference to it until
 * json_out_forget(v), or until a later value takes its slot (then it is
 * simply written again). Per thread: a value frozen on one thread is
 * written anew by the others. Objects and arrays only. */
void json_out_freeze(json_t *v);
/* Drops v's memo and the memo's reference (nothing if v has none). */
void json_out_forget(const json_t *v);
