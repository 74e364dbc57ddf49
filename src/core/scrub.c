#include "core/scrub.h"

#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <string.h>

char *scrub_text_one(const char *text, const char *secret)
{
    size_t n = strlen(secret);
    struct strbuf sb;
    strbuf_init(&sb);
    const char *p = text, *hit;
    while (n > 0 && (hit = strstr(p, secret))) {
        strbuf_append(&sb, p, (size_t)(hit - p));
        strbuf_puts(&sb, SCRUB_REDACTED);
        p = hit + n;
    }
    strbuf_puts(&sb, p);
    return strbuf_steal(&sb);
}

char *scrub_text(const char *text, const json_t *secrets)
{
    char *out = xstrdup(text);
    size_t k;
    const json_t *s;
    json_array_foreach(secrets, k, s)
    {
        if (!json_is_string(s))
            continue;
        char *clean = scrub_text_one(out, json_string_value(s));
        free(out);
        out = clean;
    }
    return out;
}

/* item without the secrets (a new string), or NULL when it is not a string
 * or holds none of them. */
static json_t *scrubbed(const json_t *item, const json_t *secrets)
{
    if (!json_is_string(item))
        return NULL;
    char *text = scrub_text(json_string_value(item), secrets);
    json_t *out =
        strcmp(text, json_string_value(item)) ? utf8_json_string(text, strlen(text)) : NULL;
    free(text);
    return out;
}

void scrub_json(json_t *v, const json_t *secrets)
{
    if (!secrets || !json_array_size(secrets))
        return;
    const char *key;
    size_t i;
    json_t *item, *clean;
    json_object_foreach(v, key, item)
    {
        if ((clean = scrubbed(item, secrets)))
            json_object_set_new(v, key, clean);
        else
            scrub_json(item, secrets);
    }
    json_array_foreach(v, i, item)
    {
        if ((clean = scrubbed(item, secrets)))
            json_array_set_new(v, i, clean);
        else
            scrub_json(item, secrets);
    }
}
