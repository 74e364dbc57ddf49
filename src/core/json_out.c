#include "core/json_out.h"

#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes jansson escapes without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH:
 * control characters, the quote and the backslash. Everything else,
 * UTF-8 included, is copied as it is. */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* One value through jansson itself: the rare cases (escapes, reals) come
 * out exactly as json_dumps writes them. */
static bool by_jansson(struct strbuf *sb, const json_t *v)
{
    size_t n = json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
    if (n == 0)
        return false;
    strbuf_reserve(sb, n + 1);
    if (json_dumpb(v, sb->data + sb->len, n, JSON_COMPACT | JSON_ENCODE_ANY) != n)
        return false;
    sb->len += n;
    sb->data[sb->len] = '\0';
    return true;
}

/* Whether any of the eight bytes in w needs an escape: a byte under 0x20,
 * a quote or a backslash (the classic "has a zero byte" bit trick, on w
 * and on w with the quote and the backslash turned to zero). */
static bool word_needs_escape(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t below = (w - ones * 0x20) & ~w;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    uint64_t quote = (q - ones) & ~q, backslash = (b - ones) & ~b;
    return ((below | quote | backslash) & highs) != 0;
}

static bool has_escape(const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (word_needs_escape(w))
            return true;
    }
    for (; i < n; i++)
        if (needs_escape(p[i]))
            return true;
    return false;
}

/* A string with escapes, written as jansson writes it: the seven short
 * escapes, \u00XX (upper-case hex) for the other control characters, the
 * rest as it is. Text from terminals has a newline per row, so this is
 * the common case, not the rare one. Invalid UTF-8 goes to jansson, which
 * refuses it as json_dumps would. */
static bool put_escaped(struct strbuf *sb, const unsigned char *s, size_t n)
{
    size_t start = sb->len;
    strbuf_reserve(sb, n + n / 8 + 8);
    strbuf_putc(sb, '"');
    size_t run = 0; /* start of the bytes not yet copied */
    for (size_t i = 0; i < n;) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!word_needs_escape(w) && !(w & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = s[i];
        if (c >= 0x80) {
            uint32_t cp;
            size_t len = utf8_decode(s + i, n - i, &cp);
            if (!len) {
                sb->len = start;
                json_t *tmp = json_stringn_nocheck((const char *)s, n);
                bool ok = tmp && by_jansson(sb, tmp);
                json_decref(tmp);
                return ok;
            }
            i += len;
            continue;
        }
        if (!needs_escape(c)) {
            i++;
            continue;
        }
        strbuf_append(sb, (const char *)s + run, i - run);
        static const char short_escape[] = {['\\'] = '\\', ['"'] = '"',  ['\b'] = 'b', ['\f'] = 'f',
                                            ['\n'] = 'n',  ['\r'] = 'r', ['\t'] = 't'};
        if (c < sizeof short_escape && short_escape[c]) {
            char e[2] = {'\\', short_escape[c]};
            strbuf_append(sb, e, 2);
        } else {
            static const char hex[] = "0123456789ABCDEF";
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            strbuf_append(sb, e, 6);
        }
        run = ++i;
    }
    strbuf_append(sb, (const char *)s + run, n - run);
    strbuf_putc(sb, '"');
    return true;
}

static bool put_string(struct strbuf *sb, const char *s, size_t n)
{
    if (has_escape((const unsigned char *)s, n))
        return put_escaped(sb, (const unsigned char *)s, n);
    strbuf_reserve(sb, n + 2);
    sb->data[sb->len++] = '"';
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len++] = '"';
    sb->data[sb->len] = '\0';
    return true;
}

/* The memo: a value's slot is one of MEMO_WAYS after a hash of its
 * address, so a lookup is a few comparisons; a value that finds them all
 * taken evicts the first. The reference held keeps the address from being
 * reused by another value. (One slot per value made a terminal's answer
 * and its content, frozen together, evict each other now and then.) */
#define MEMO_SLOTS 64
#define MEMO_WAYS  4
struct memo {
    json_t *v; /* a reference; NULL: the slot is free */
    char *text;
    size_t len;
};
static _Thread_local struct memo memo[MEMO_SLOTS];
static _Thread_local unsigned memo_used;

static size_t memo_home(const json_t *v)
{
    uint64_t h = (uint64_t)(uintptr_t)v * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 58); /* the top 6 bits: 64 slots */
}

/* v's slot, or NULL when it has none. */
static struct memo *memo_find(const json_t *v)
{
    size_t home = memo_home(v);
    for (size_t i = 0; i < MEMO_WAYS; i++) {
        struct memo *m = &memo[(home + i) % MEMO_SLOTS];
        if (m->v == v)
            return m;
    }
    return NULL;
}

static void memo_clear(struct memo *m)
{
    if (!m->v)
        return;
    json_decref(m->v);
    free(m->text);
    *m = (struct memo){0};
    memo_used--;
}

void json_out_freeze(json_t *v)
{
    if ((!json_is_object(v) && !json_is_array(v)) || memo_find(v))
        return;
    size_t home = memo_home(v);
    struct memo *m = &memo[home];
    for (size_t i = 0; i < MEMO_WAYS; i++)
        if (!memo[(home + i) % MEMO_SLOTS].v) {
            m = &memo[(home + i) % MEMO_SLOTS];
            break;
        }
    memo_clear(m);
    m->v = json_incref(v);
    memo_used++;
}

void json_out_forget(const json_t *v)
{
    struct memo *m = v ? memo_find(v) : NULL;
    if (m)
        memo_clear(m);
}

static bool append_tree(struct strbuf *sb, const json_t *v);

/* v's text from the memo, or written and kept there. */
static bool append_memo(struct strbuf *sb, struct memo *m, const json_t *v)
{
    if (m->text) {
        strbuf_append(sb, m->text, m->len);
        return true;
    }
    size_t start = sb->len;
    if (!append_tree(sb, v))
        return false;
    m->len = sb->len - start;
    m->text = xmalloc(m->len ? m->len : 1);
    memcpy(m->text, sb->data + start, m->len);
    return true;
}

bool json_out_append(struct strbuf *sb, const json_t *v)
{
    if (memo_used && (json_is_object(v) || json_is_array(v))) {
        struct memo *m = memo_find(v);
        if (m)
            return append_memo(sb, m, v);
    }
    return append_tree(sb, v);
}

static bool append_tree(struct strbuf *sb, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        strbuf_putc(sb, '{');
        const char *key;
        size_t key_len;
        json_t *item;
        bool first = true;
        /* Insertion order, as json_dumps without JSON_SORT_KEYS. */
        void *iter = json_object_iter((json_t *)v);
        for (; iter; iter = json_object_iter_next((json_t *)v, iter)) {
            key = json_object_iter_key(iter);
            key_len = json_object_iter_key_len(iter);
            item = json_object_iter_value(iter);
            if (!first)
                strbuf_putc(sb, ',');
            first = false;
            if (!put_string(sb, key, key_len))
                return false;
            strbuf_putc(sb, ':');
            if (!json_out_append(sb, item))
                return false;
        }
        strbuf_putc(sb, '}');
        return true;
    }
    case JSON_ARRAY: {
        strbuf_putc(sb, '[');
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n; i++) {
            if (i)
                strbuf_putc(sb, ',');
            if (!json_out_append(sb, json_array_get(v, i)))
                return false;
        }
        strbuf_putc(sb, ']');
        return true;
    }
    case JSON_STRING:
        return put_string(sb, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: {
        /* Not printf: every answer has an id, most a count or two. */
        json_int_t i = json_integer_value(v);
        if (i < 0)
            strbuf_putc(sb, '-');
        strbuf_put_size(sb, i < 0 ? (size_t)0 - (size_t)i : (size_t)i);
        return true;
    }
    case JSON_TRUE:
        strbuf_append(sb, "true", 4);
        return true;
    case JSON_FALSE:
        strbuf_append(sb, "false", 5);
        return true;
    case JSON_NULL:
        strbuf_append(sb, "null", 4);
        return true;
    case JSON_REAL:
        break;
    }
    return by_jansson(sb, v);
}

char *json_out_dump(const json_t *v, size_t *len)
{
    struct strbuf sb;
    strbuf_init(&sb);
    if (!v || !json_out_append(&sb, v)) {
        strbuf_finish(&sb);
        return NULL;
    }
    if (len)
        *len = sb.len;
    return strbuf_steal(&sb);
}
