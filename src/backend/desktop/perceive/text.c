/* read_text on desktops, and matching text among OCR words. */
#include "backend/desktop/perceive/internal.h"

#include "core/utf8.h"

#include "backend/backend.h"
#include "backend/desktop/perceive/tree.h"
#include "core/args.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

json_t *perceive_ocr_matches(const struct ocr_result *r, const char *text, bool exact, int limit)
{
    return ocr_matches(r, text, exact, limit);
}

static json_t *words_json(const struct ocr_result *r)
{
    json_t *a = json_array();
    for (int i = 0; i < r->count; i++) {
        const struct ocr_word *w = &r->words[i];
        json_t *o = json_pack("{s:s, s:i, s:f}", "text", w->text, "line", w->line, "confidence",
                              (double)w->confidence);
        json_object_set_new(o, "bounds", perceive_bounds_json(w->x, w->y, w->w, w->h));
        json_array_append_new(a, o);
    }
    return a;
}

/* Lines of accessible text of element i and everything inside it (all
 * elements when i < 0). */
static void tree_text(const struct atspi_tree *t, int i, json_t *lines)
{
    int end = t->count;
    if (i >= 0)
        for (end = i + 1; end < t->count && t->nodes[end].depth > t->nodes[i].depth; end++)
            ;
    for (int k = i < 0 ? 0 : i; k < end; k++) {
        const struct atspi_node *n = &t->nodes[k];
        if (strcmp(n->role, "application") == 0)
            continue;
        const char *s = n->value && *n->value ? n->value : n->name;
        if (!*s)
            continue;
        size_t len = json_array_size(lines);
        /* A dialog's title repeats in its frame: say it once in a row. */
        if (len && strcmp(json_string_value(json_array_get(lines, len - 1)), s) == 0)
            continue;
        json_array_append_new(lines, json_string(s));
    }
}

static char *join_lines(json_t *lines)
{
    struct strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < json_array_size(lines); i++) {
        if (i)
            strbuf_putc(&sb, '\n');
        strbuf_puts(&sb, json_string_value(json_array_get(lines, i)));
    }
    return strbuf_steal(&sb);
}

static json_t *split_lines(const char *text)
{
    json_t *lines = json_array();
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        json_array_append_new(lines, json_stringn(p, n));
        p += n + (p[n] == '\n');
    }
    return lines;
}

/* The text of a snapshot element and everything inside it as it is now,
 * not as the snapshot saw it: whatever has a Text interface (fields, labels)
 * is read again; only names come from the snapshot. An editable field is
 * its contents alone (not its icons' names); *editable says so. false with
 * j->error when the element itself cannot be read. */
static bool ref_text_now(struct job *j, const struct atspi_node *n, json_t *lines, bool *editable)
{
    const struct atspi_tree *t = &j->p->last;
    int i = (int)(n - t->nodes), end = i + 1;
    *editable = n->has_text && n->has_editable;
    if (!*editable)
        while (end < t->count && t->nodes[end].depth > n->depth)
            end++;
    bool any_text = false;
    for (int k = i; k < end && !any_text; k++)
        any_text = t->nodes[k].has_text;
    struct atspi *a = any_text ? perceive_atspi(j) : NULL;
    if (any_text && !a)
        return false;
    uint64_t until = uv_hrtime() / 1000000 + WALK_DEADLINE_MS;
    for (int k = i; k < end; k++) {
        const struct atspi_node *m = &t->nodes[k];
        if (strcmp(m->role, "application") == 0)
            continue;
        char *live = NULL, *err = NULL;
        const char *s = m->name;
        if (m->has_text) {
            if (uv_hrtime() / 1000000 >= until) {
                job_fail_code(j, ERROR_TIMEOUT,
                              "reading the %d elements inside %s took too long; read_text a "
                              "smaller part (a ref inside it) or a region",
                              end - i, args_string(j->args, "ref", ""));
                return false;
            }
            if (!atspi_read_text(a, m->bus_name, m->path, &live, &err)) {
                if (k == i) {
                    job_fail_code(j, ERROR_NOT_FOUND,
                                  "cannot read %s now (has it gone? take a new snapshot): %s",
                                  args_string(j->args, "ref", ""), err);
                    free(err);
                    return false;
                }
                free(err); /* a part that went away says nothing */
                continue;
            }
            if (*live || m->has_editable)
                s = live;
        }
        size_t len = json_array_size(lines);
        if (*editable) {
            for (const char *q = s; *q;) {
                size_t ln = strcspn(q, "\n");
                json_array_append_new(lines, utf8_json_string(q, ln));
                q += ln + (q[ln] == '\n');
            }
        } else if (*s &&
                   !(len && strcmp(json_string_value(json_array_get(lines, len - 1)), s) == 0)) {
            json_array_append_new(lines, utf8_json_string(s, strlen(s)));
        }
        free(live);
    }
    return true;
}

static void read_text_run(struct job *j)
{
    const char *ref = args_string(j->args, "ref", NULL);
    const char *lang = args_string(j->args, "lang", "eng");
    bool force_ocr = args_bool(j->args, "ocr", false);
    json_t *region = json_object_get(j->args, "region");
    char *err = NULL;
    if (!ocr_lang_check(lang, &err)) {
        job_fail_code(j, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    int x = 0, y = 0, w = 0, h = 0;
    json_t *lines = json_array();
    if (ref) {
        const struct atspi_node *n = perceive_ref(j, ref);
        if (!n) {
            json_decref(lines);
            return;
        }
        bool editable = false;
        if (!force_ocr && !ref_text_now(j, n, lines, &editable)) {
            json_decref(lines);
            return;
        }
        if (editable) { /* an empty field is an answer, not a reason for OCR */
            j->text = join_lines(lines);
            j->data = json_pack("{s:s, s:s, s:s, s:o}", "session", j->session, "source",
                                "accessibility", "text", j->text, "lines", lines);
            return;
        }
        x = n->x, y = n->y, w = n->w, h = n->h;
        if (json_array_size(lines) == 0 && w <= 0) {
            job_fail(j, "element %s has no accessible text and no known bounds to read with OCR",
                     ref);
            json_decref(lines);
            return;
        }
    } else if (region) {
        x = (int)args_int(region, "x", 0), y = (int)args_int(region, "y", 0);
        w = (int)args_int(region, "width", 0), h = (int)args_int(region, "height", 0);
    } else if (!force_ocr) {
        struct atspi_walk_opts o = perceive_walk_opts(j->args);
        struct atspi_tree t;
        if (perceive_walk(j, &o, &t)) {
            tree_text(&t, -1, lines);
            atspi_tree_finish(&t);
        }
        free(j->error); /* no tree: OCR instead */
        j->error = NULL;
    }
    if (json_array_size(lines) > 0) {
        j->text = join_lines(lines);
        j->data = json_pack("{s:s, s:s, s:s, s:o}", "session", j->session, "source",
                            "accessibility", "text", j->text, "lines", lines);
        return;
    }
    json_decref(lines);
    struct ocr_result r;
    if (!perceive_ocr(j, x, y, w, h, lang, 0, &r))
        return;
    j->data = json_pack("{s:s, s:s, s:s, s:o, s:o}", "session", j->session, "source", "ocr", "text",
                        r.text, "lines", split_lines(r.text), "words", words_json(&r));
    j->text = xstrdup(*r.text ? r.text : "(no text recognised)");
    ocr_result_finish(&r);
}

void perceive_read_text(struct perceive *p, struct backend_call *bc)
{
    job_start(p, bc, read_text_run, NULL);
}
