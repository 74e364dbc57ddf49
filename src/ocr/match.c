/* Text among OCR words: where a string appears on a recognised screen,
 * line by line, with the bounds of the words it touches. Shared by every
 * kind that finds by OCR (desktops' fallback, vnc sessions). */
#include "ocr/ocr.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

json_t *ocr_matches(const struct ocr_result *r, const char *text, bool exact, int limit)
{
    json_t *out = json_array();
    size_t tlen = strlen(text);
    for (int first = 0; first < r->count && (int)json_array_size(out) < limit;) {
        /* One line: its words joined by single spaces, with where each begins. */
        int last = first;
        while (last + 1 < r->count && r->words[last + 1].line == r->words[first].line)
            last++;
        struct strbuf sb;
        strbuf_init(&sb);
        size_t *starts = xmalloc((size_t)(last - first + 2) * sizeof *starts);
        for (int i = first; i <= last; i++) {
            if (i > first)
                strbuf_putc(&sb, ' ');
            starts[i - first] = sb.len;
            strbuf_puts(&sb, r->words[i].text);
        }
        starts[last - first + 1] = sb.len + 1;
        const char *line = sb.data ? sb.data : "";
        for (size_t at = 0; at + tlen <= sb.len && (int)json_array_size(out) < limit; at++) {
            bool hit = exact ? strncmp(line + at, text, tlen) == 0 &&
                                   (at == 0 || line[at - 1] == ' ') &&
                                   (line[at + tlen] == ' ' || !line[at + tlen])
                             : strncasecmp(line + at, text, tlen) == 0;
            if (!hit)
                continue;
            /* The words the match touches, and their union. */
            int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
            float conf = 100;
            for (int i = first; i <= last; i++) {
                size_t ws = starts[i - first], we = starts[i - first + 1] - 1;
                if (we <= at || ws >= at + tlen)
                    continue;
                const struct ocr_word *w = &r->words[i];
                x0 = w->x < x0 ? w->x : x0;
                y0 = w->y < y0 ? w->y : y0;
                x1 = w->x + w->w > x1 ? w->x + w->w : x1;
                y1 = w->y + w->h > y1 ? w->y + w->h : y1;
                conf = w->confidence < conf ? w->confidence : conf;
            }
            json_array_append_new(out, json_pack("{s:s, s:s%, s:o, s:f, s:s}", "source", "ocr",
                                                 "text", line + at, tlen, "bounds",
                                                 json_pack("{s:i, s:i, s:i, s:i}", "x", x0, "y", y0,
                                                           "width", x1 - x0, "height", y1 - y0),
                                                 "confidence", (double)conf, "line", line));
            at += tlen - 1;
        }
        free(starts);
        strbuf_finish(&sb);
        first = last + 1;
    }
    return out;
}

char *ocr_matches_caption(const json_t *matches)
{
    size_t n = json_array_size(matches);
    struct strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%zu match%s (ocr)", n, n == 1 ? "" : "es");
    for (size_t i = 0; i < n; i++) {
        const json_t *m = json_array_get(matches, i), *b = json_object_get(m, "bounds");
        strbuf_printf(&sb, "\n\"%s\" at %lld,%lld %lldx%lld",
                      json_string_value(json_object_get(m, "text")),
                      json_integer_value(json_object_get(b, "x")),
                      json_integer_value(json_object_get(b, "y")),
                      json_integer_value(json_object_get(b, "width")),
                      json_integer_value(json_object_get(b, "height")));
    }
    return strbuf_steal(&sb);
}
