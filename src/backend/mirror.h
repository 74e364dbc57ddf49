/* Text mirrors of structured results. Many clients hand the model only a
 * result's text content, so the text carries the items, values and states
 * of structuredContent too — compactly, one line per item — not a count. */
#pragma once
#include <jansson.h>

struct strbuf;

/* One item: the values of the lead keys (strings bare when they are one
 * plain word, else quoted; NULL-terminated list), then every other field as
 * key=value. true booleans are the key alone, false and null are left out,
 * {x, y, width, height} reads (x,y WxH), an array of strings [a, b], other
 * objects and the keys in skip (NULL-terminated, or NULL) are left out. */
void mirror_item(struct strbuf *sb, const json_t *item, const char *const *lead,
                 const char *const *skip);
/* An element of snapshot or find: ref role "name" value="…" [states that
 * are not the norm] (x,y WxH). */
void mirror_element(struct strbuf *sb, const json_t *element);
