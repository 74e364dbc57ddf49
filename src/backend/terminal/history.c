/* The program's output as text: what read_text {since: "last"} answers.
 * The raw bytes are kept (up to HISTORY_MAX; the oldest go first), with
 * each reader's place in them, and turned into text when read. */
#include "backend/terminal/internal.h"
#include "core/args.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <string.h>

#define HISTORY_MAX (1024 * 1024)
/* How far back from the end an unfinished escape sequence is looked for. */
#define ESCAPE_MAX 256

void terminal_output_clean(const char *s, size_t n, struct strbuf *out)
{
    size_t line_start = out->len;
    bool cr = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b && i + 1 < n) {
            unsigned char k = (unsigned char)s[++i];
            if (k == '[') {
                while (i + 1 < n &&
                       !((unsigned char)s[i + 1] >= 0x40 && (unsigned char)s[i + 1] <= 0x7e))
                    i++;
                i++;
            } else if (k == ']' || k == 'P' || k == 'X' || k == '^' || k == '_') {
                /* A string to BEL or ST (ESC \). */
                while (i + 1 < n && s[i + 1] != '\a' &&
                       !(s[i + 1] == 0x1b && i + 2 < n && s[i + 2] == '\\'))
                    i++;
                i += i + 1 < n && s[i + 1] == 0x1b ? 2 : 1;
            } else {
                /* ESC, intermediates (ESC ( B picks a character set), a final. */
                while (k >= 0x20 && k <= 0x2f && i + 1 < n)
                    k = (unsigned char)s[++i];
            }
            continue;
        }
        if (c == '\r') {
            cr = true;
            continue;
        }
        if (c == '\n') {
            strbuf_putc(out, '\n');
            line_start = out->len;
            cr = false;
            continue;
        }
        if (c < 0x20 && c != '\t')
            continue;
        if (cr) {
            /* A line drawn again after a lone CR (a progress bar): its last
             * drawing is what a person sees. */
            out->len = line_start;
            cr = false;
        }
        strbuf_putc(out, (char)c);
    }
    if (out->data)
        out->data[out->len] = '\0';
}

void terminal_history_feed(struct terminal *t, const char *data, size_t len)
{
    strbuf_append(&t->history, data, len);
    t->history_end += len;
    if (t->history.len > HISTORY_MAX) {
        size_t drop = t->history.len - HISTORY_MAX / 2;
        strbuf_consume(&t->history, drop);
    }
}

/* Where complete output ends: before an escape sequence still arriving, so
 * the next read starts with all of it. */
static uint64_t complete_end(const struct terminal *t)
{
    const char *s = t->history.data;
    size_t n = t->history.len;
    size_t from = n > ESCAPE_MAX ? n - ESCAPE_MAX : 0;
    for (size_t i = n; i > from; i--) {
        if (s[i - 1] != 0x1b)
            continue;
        size_t e = i - 1; /* the last ESC */
        bool done = false;
        if (e + 1 < n && s[e + 1] == '[') {
            for (size_t k = e + 2; k < n && !done; k++)
                done = (unsigned char)s[k] >= 0x40 && (unsigned char)s[k] <= 0x7e;
        } else if (e + 1 < n && strchr("]PX^_", s[e + 1])) {
            for (size_t k = e + 2; k < n && !done; k++)
                done = s[k] == '\a' || (s[k] == '\\' && s[k - 1] == 0x1b);
        } else {
            size_t k = e + 1;
            while (k < n && (unsigned char)s[k] >= 0x20 && (unsigned char)s[k] <= 0x2f)
                k++;
            done = k < n;
        }
        return done ? t->history_end : t->history_end - (n - e);
    }
    return t->history_end;
}

static const char *reader_key(const struct backend_call *bc)
{
    return bc->caller ? bc->caller : "";
}

void terminal_history_mark(struct terminal *t, const struct backend_call *bc)
{
    if (!t->readers)
        t->readers = json_object();
    json_object_set_new(t->readers, reader_key(bc), json_integer((json_int_t)complete_end(t)));
}

void terminal_read_since_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    uint64_t start = t->history_end - t->history.len;
    const json_t *mark = json_object_get(t->readers, reader_key(bc));
    uint64_t from = mark ? (uint64_t)json_integer_value(mark) : 0;
    uint64_t dropped = from < start ? start - from : 0;
    if (from < start)
        from = start;
    uint64_t end = complete_end(t);
    if (from > end)
        from = end;
    struct strbuf text;
    strbuf_init(&text);
    terminal_output_clean(t->history.data + (from - start), (size_t)(end - from), &text);
    terminal_history_mark(t, bc);
    const char *s = text.data ? text.data : "";
    json_t *lines = json_array();
    for (const char *p = s; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        json_array_append_new(lines, utf8_json_string(p, n));
        p += n + (nl ? 1 : 0);
    }
    json_t *o = json_pack("{s:s, s:o, s:o, s:s, s:I, s:b}", "session", bc->session->id, "text",
                          utf8_json_string(s, text.len), "lines", lines, "since", "last",
                          "dropped_bytes", (json_int_t)dropped, "exited", t->exited);
    if (text.len == 0)
        backend_call_done(bc, o, "no new output in %s since the last read%s", bc->session->id,
                          t->exited ? " (the program has exited)" : "");
    else
        backend_call_done(bc, o, "%s%s", dropped ? "[earlier output dropped]\n" : "", s);
    strbuf_finish(&text);
}
