#include "mcp/framing.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Header blocks are small; anything longer is not a header. */
#define MAX_HEADER_BLOCK 8192

void framing_init(struct framing *f, size_t max_message)
{
    memset(f, 0, sizeof *f);
    f->mode = FRAMING_UNKNOWN;
    f->max_message = max_message;
    strbuf_init(&f->buf);
}

void framing_finish(struct framing *f)
{
    strbuf_finish(&f->buf);
}

void framing_push(struct framing *f, const char *data, size_t len)
{
    if (f->consumed) {
        strbuf_consume(&f->buf, f->consumed);
        f->scan = f->scan > f->consumed ? f->scan - f->consumed : 0;
        f->consumed = 0;
    }
    /* A body being skipped is dropped as it arrives, never buffered. */
    if (f->skipping) {
        size_t drop = len < f->skipping ? len : f->skipping;
        f->skipping -= drop;
        f->discarded += drop;
        data += drop;
        len -= drop;
    }
    if (f->mode == FRAMING_UNKNOWN && len > 0)
        f->mode = data[0] == 'C' ? FRAMING_CONTENT_LENGTH : FRAMING_NDJSON;
    strbuf_append(&f->buf, data, len);
}

static enum framing_event next_ndjson(struct framing *f, const char **msg, size_t *len)
{
    for (;;) {
        const char *start = f->buf.data ? f->buf.data + f->consumed : NULL;
        size_t avail = f->buf.len - f->consumed;
        if (avail == 0)
            return FRAMING_NEED_MORE;
        size_t from = f->scan > f->consumed ? f->scan - f->consumed : 0;
        const char *nl = memchr(start + from, '\n', avail - from);
        if (!nl) {
            f->scan = f->buf.len;
            if (avail > f->max_message) {
                /* Drop what we have and keep dropping until the newline. */
                f->discarding_line = true;
                f->discarded += avail;
                f->consumed += avail;
                f->scan = f->consumed;
            }
            return FRAMING_NEED_MORE;
        }
        size_t line_len = (size_t)(nl - start);
        f->consumed += line_len + 1;
        f->scan = f->consumed;
        if (f->discarding_line) {
            f->discarding_line = false;
            *len = f->discarded + line_len;
            f->discarded = 0;
            *msg = NULL;
            return FRAMING_TOO_LARGE;
        }
        if (line_len > 0 && start[line_len - 1] == '\r')
            line_len--;
        bool blank = true;
        for (size_t i = 0; i < line_len && blank; i++)
            blank = isspace((unsigned char)start[i]);
        if (blank)
            continue;
        if (line_len > f->max_message) {
            *msg = NULL;
            *len = line_len;
            return FRAMING_TOO_LARGE;
        }
        *msg = start;
        *len = line_len;
        return FRAMING_MESSAGE;
    }
}

/* Parses "Content-Length: N" out of a header block; other headers (such as
 * Content-Type) are allowed and ignored. */
static bool parse_content_length(const char *block, size_t n, size_t *out)
{
    bool found = false;
    const char *p = block, *end = block + n;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        size_t ll = (size_t)(eol - p);
        if (ll && p[ll - 1] == '\r')
            ll--;
        static const char key[] = "content-length:";
        if (ll > sizeof key - 1 && strncasecmp(p, key, sizeof key - 1) == 0) {
            const char *v = p + sizeof key - 1;
            const char *vend = p + ll;
            while (v < vend && (*v == ' ' || *v == '\t'))
                v++;
            if (v == vend || !isdigit((unsigned char)*v))
                return false;
            size_t value = 0;
            for (; v < vend && isdigit((unsigned char)*v); v++) {
                if (value > (SIZE_MAX - 9) / 10)
                    return false;
                value = value * 10 + (size_t)(*v - '0');
            }
            while (v < vend && (*v == ' ' || *v == '\t'))
                v++;
            if (v != vend)
                return false;
            *out = value;
            found = true;
        }
        p = eol + 1;
    }
    return found;
}

static enum framing_event next_content_length(struct framing *f, const char **msg, size_t *len)
{
    if (f->skipping)
        return FRAMING_NEED_MORE;
    if (f->discarded) {
        /* The skipped body has fully gone by: report it once. */
        *msg = NULL;
        *len = f->discarded;
        f->discarded = 0;
        return FRAMING_TOO_LARGE;
    }
    for (;;) {
        const char *start = f->buf.data ? f->buf.data + f->consumed : NULL;
        size_t avail = f->buf.len - f->consumed;
        /* Tolerate stray newlines between messages. */
        while (avail && (*start == '\r' || *start == '\n')) {
            start++;
            avail--;
            f->consumed++;
        }
        if (avail == 0)
            return FRAMING_NEED_MORE;
        const char *sep = memmem(start, avail, "\r\n\r\n", 4);
        size_t sep_len = 4;
        const char *lf = memmem(start, avail, "\n\n", 2);
        if (lf && (!sep || lf < sep)) {
            sep = lf;
            sep_len = 2;
        }
        if (!sep) {
            if (avail > MAX_HEADER_BLOCK) {
                f->consumed += avail;
                return FRAMING_BAD_HEADER;
            }
            return FRAMING_NEED_MORE;
        }
        size_t header_len = (size_t)(sep - start);
        size_t body_len;
        if (!parse_content_length(start, header_len, &body_len)) {
            f->consumed += header_len + sep_len;
            return FRAMING_BAD_HEADER;
        }
        size_t body_avail = avail - header_len - sep_len;
        if (body_len > f->max_message) {
            size_t have = body_avail < body_len ? body_avail : body_len;
            f->consumed += header_len + sep_len + have;
            f->skipping = body_len - have;
            if (f->skipping) {
                f->discarded = have;
                return FRAMING_NEED_MORE;
            }
            *msg = NULL;
            *len = body_len;
            return FRAMING_TOO_LARGE;
        }
        if (body_avail < body_len)
            return FRAMING_NEED_MORE;
        *msg = sep + sep_len;
        *len = body_len;
        f->consumed += header_len + sep_len + body_len;
        return FRAMING_MESSAGE;
    }
}

enum framing_event framing_next(struct framing *f, const char **msg, size_t *len)
{
    *msg = NULL;
    *len = 0;
    switch (f->mode) {
    case FRAMING_UNKNOWN:
        return FRAMING_NEED_MORE;
    case FRAMING_NDJSON:
        return next_ndjson(f, msg, len);
    case FRAMING_CONTENT_LENGTH:
        return next_content_length(f, msg, len);
    }
    return FRAMING_NEED_MORE;
}

size_t framing_pending(const struct framing *f)
{
    return f->buf.len - f->consumed;
}

void framing_encode(enum framing_mode mode, const char *body, size_t len, struct strbuf *out)
{
    if (mode == FRAMING_CONTENT_LENGTH)
        strbuf_printf(out, "Content-Length: %zu\r\n\r\n", len);
    strbuf_append(out, body, len);
    if (mode != FRAMING_CONTENT_LENGTH)
        strbuf_putc(out, '\n');
}
