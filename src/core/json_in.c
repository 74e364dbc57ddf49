#include "core/json_in.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting goes to jansson (whose own limit is 2048). */
#define MAX_DEPTH 64
/* More digits might not fit a json_int_t: jansson says whether they do. */
#define MAX_DIGITS 18

struct parser {
    const unsigned char *p, *end;
    size_t flags;
    int depth;
};

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

/* A string's bytes, its opening quote just read: *s and *n point into the
 * input when it has no escape, else into *owned (malloc'd). *high: it has
 * bytes over 0x7F, whose UTF-8 jansson checks. False to give up: an
 * unterminated string, a control character, a \u or unknown escape. */
static bool string_at(struct parser *ps, const char **s, size_t *n, char **owned, bool *high)
{
    const unsigned char *start = ps->p, *q = start, *end = ps->end;
    unsigned char seen = 0;
    *owned = NULL;
    while (q < end && *q != '"' && *q != '\\' && *q >= 0x20)
        seen |= *q++;
    if (q < end && *q == '"') {
        *s = (const char *)start;
        *n = (size_t)(q - start);
        *high = seen & 0x80;
        ps->p = q + 1;
        return true;
    }
    if (q >= end || *q != '\\')
        return false;
    char *buf = malloc((size_t)(end - start));
    if (!buf)
        return false;
    size_t len = (size_t)(q - start);
    memcpy(buf, start, len);
    while (q < end) {
        unsigned char c = *q;
        if (c == '"') {
            *owned = buf;
            *s = buf;
            *n = len;
            *high = seen & 0x80;
            ps->p = q + 1;
            return true;
        }
        if (c < 0x20)
            break;
        if (c != '\\') {
            seen |= c;
            buf[len++] = (char)c;
            q++;
            continue;
        }
        if (q + 1 >= end)
            break;
        char e;
        switch (q[1]) {
        case '"':
        case '\\':
        case '/':
            e = (char)q[1];
            break;
        case 'b':
            e = '\b';
            break;
        case 'f':
            e = '\f';
            break;
        case 'n':
            e = '\n';
            break;
        case 'r':
            e = '\r';
            break;
        case 't':
            e = '\t';
            break;
        default: /* \u (surrogates, NUL) and malformed escapes: jansson's */
            free(buf);
            return false;
        }
        buf[len++] = e;
        q += 2;
    }
    free(buf);
    return false;
}

static json_t *value(struct parser *ps);

static json_t *object(struct parser *ps)
{
    json_t *o = json_object();
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return o;
    }
    for (;;) {
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != '"')
            break;
        ps->p++;
        const char *key;
        size_t klen;
        char *owned;
        bool high;
        if (!string_at(ps, &key, &klen, &owned, &high))
            break;
        skip_space(ps);
        json_t *v = NULL;
        if (ps->p < ps->end && *ps->p == ':') {
            ps->p++;
            skip_space(ps);
            v = value(ps);
        }
        bool ok = v && !((ps->flags & JSON_REJECT_DUPLICATES) && json_object_getn(o, key, klen));
        if (ok)
            ok = (high ? json_object_setn_new(o, key, klen, v)
                       : json_object_setn_new_nocheck(o, key, klen, v)) == 0;
        else
            json_decref(v);
        free(owned);
        if (!ok)
            break;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return o;
        }
        break;
    }
    json_decref(o);
    return NULL;
}

static json_t *array(struct parser *ps)
{
    json_t *a = json_array();
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return a;
    }
    for (;;) {
        skip_space(ps);
        json_t *v = value(ps);
        if (!v || json_array_append_new(a, v) != 0)
            break;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return a;
        }
        break;
    }
    json_decref(a);
    return NULL;
}

/* -?(0|[1-9][0-9]*) of at most MAX_DIGITS digits, not followed by a
 * fraction or exponent: what jansson reads as a json_int_t for sure. */
static json_t *integer(struct parser *ps)
{
    const unsigned char *q = ps->p, *end = ps->end;
    bool neg = *q == '-';
    if (neg)
        q++;
    const unsigned char *digits = q;
    if (q >= end || *q < '0' || *q > '9')
        return NULL;
    if (*q == '0') {
        q++;
    } else {
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E'))
        return NULL;
    if (q - digits > MAX_DIGITS)
        return NULL;
    json_int_t v = 0;
    for (const unsigned char *d = digits; d < q; d++)
        v = v * 10 + (*d - '0');
    ps->p = q;
    return json_integer(neg ? -v : v);
}

static json_t *literal(struct parser *ps, const char *word, size_t n, json_t *v)
{
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return NULL;
    ps->p += n;
    return v;
}

static json_t *value(struct parser *ps)
{
    if (ps->p >= ps->end)
        return NULL;
    switch (*ps->p) {
    case '{':
    case '[': {
        if (++ps->depth > MAX_DEPTH)
            return NULL;
        bool obj = *ps->p++ == '{';
        json_t *v = obj ? object(ps) : array(ps);
        ps->depth--;
        return v;
    }
    case '"': {
        ps->p++;
        const char *s;
        size_t n;
        char *owned;
        bool high;
        if (!string_at(ps, &s, &n, &owned, &high))
            return NULL;
        /* json_stringn checks the UTF-8 as jansson's parser does. */
        json_t *v = high ? json_stringn(s, n) : json_stringn_nocheck(s, n);
        free(owned);
        return v;
    }
    case 't':
        return literal(ps, "true", 4, json_true());
    case 'f':
        return literal(ps, "false", 5, json_false());
    case 'n':
        return literal(ps, "null", 4, json_null());
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return integer(ps);
    default:
        return NULL;
    }
}

json_t *json_in_fast(const char *data, size_t len, size_t flags)
{
    if (!data || (flags & ~(size_t)(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL)))
        return NULL;
    struct parser ps = {
        .p = (const unsigned char *)data, .end = (const unsigned char *)data + len, .flags = flags};
    skip_space(&ps);
    /* Without JSON_DECODE_ANY only an object or an array may be the text. */
    if (!(flags & JSON_DECODE_ANY) && (ps.p >= ps.end || (*ps.p != '{' && *ps.p != '[')))
        return NULL;
    json_t *v = value(&ps);
    if (!v)
        return NULL;
    skip_space(&ps);
    if (ps.p != ps.end) {
        json_decref(v);
        return NULL;
    }
    return v;
}

json_t *json_in_loadb(const char *data, size_t len, size_t flags, json_error_t *err)
{
    json_t *v = json_in_fast(data, len, flags);
    return v ? v : json_loadb(data, len, flags, err);
}
