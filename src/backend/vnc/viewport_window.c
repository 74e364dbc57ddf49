/* vnc_connect's viewport {window: "<title>"}: once the handshake is done,
 * the window is looked for by OCR of the whole remote screen — its title's
 * text on a title bar — and its content below the bar becomes the
 * session's viewport, as a numeric viewport would (window_region.c draws
 * the rectangle). Found once: the viewport does not follow the window.
 * Runs on the worker pool, reading again whenever the screen changed (a
 * window drawn after connecting), for up to the connect's timeout_ms. */
#define LOG_MODULE "vnc"
#include "backend/vnc/internal.h"
#include "backend/vnc/window_region.h"

#include "core/app.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "ocr/ocr.h"
#include "session/session.h"

#include <ctype.h>
#include <string.h>
#include <time.h>

/* How often the screen is looked at again while the window is not there. */
#define LOOK_EVERY_MS 250
/* Title lines named in a not_found error, and each one's most bytes. */
#define TITLES_SHOWN    8
#define TITLE_SHOWN_MAX 60
/* Bars read one by one in a look. */
#define BARS_MAX 24

struct search {
    uv_work_t work;
    struct vnc *v;
    char *title;
    int timeout_ms;
    /* The answer. */
    bool found;
    struct vnc_rect at;
    char *err;
    enum error_code code;
};

/* Is a better than b? A window narrower than the screen beats one as wide
 * (a panel along the top listing window titles reads as a bar over the
 * whole desktop), then the larger: text repeating the title inside the
 * window sits within the window. */
static bool better(const struct vnc_rect *a, const struct vnc_rect *b, int screen_w)
{
    bool a_full = a->w >= screen_w, b_full = b->w >= screen_w;
    if (a_full != b_full)
        return !a_full;
    return (long long)a->w * a->h > (long long)b->w * b->h;
}

/* Edit distance between a and b, letters compared without case. */
static int distance(const char *a, size_t na, const char *b, size_t nb)
{
    int *row = xmalloc((nb + 1) * sizeof *row);
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    int d = row[nb];
    free(row);
    return d;
}

/* The union of words first..last of r. */
static struct vnc_rect words_box(const struct ocr_result *r, int first, int last)
{
    int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
    for (int i = first; i <= last; i++) {
        const struct ocr_word *w = &r->words[i];
        x0 = w->x < x0 ? w->x : x0;
        y0 = w->y < y0 ? w->y : y0;
        x1 = w->x + w->w > x1 ? w->x + w->w : x1;
        y1 = w->y + w->h > y1 ? w->y + w->h : y1;
    }
    return (struct vnc_rect){x0, y0, x1 - x0, y1 - y0};
}

struct pick {
    const struct frame *f;
    bool any;
    struct vnc_rect best;
};

/* Text at t is a candidate title: keep the window under it if better. */
static void consider(struct pick *p, const struct vnc_rect *t)
{
    struct vnc_rect region;
    if (vnc_window_region(p->f, t, &region) &&
        (!p->any || better(&region, &p->best, (int)p->f->width))) {
        p->best = region;
        p->any = true;
    }
}

/* The windows whose title bars show title among r's lines, into p. A line holds it when it
 * contains it (case aside), or when a run of its words is within one edit
 * in five characters of it: OCR misreads a letter or two of light text on
 * a coloured bar ("Window TesE"). */
static void locate(struct pick *p, const struct ocr_result *r, const char *title)
{
    json_t *matches = ocr_matches(r, title, false, 32);
    size_t i;
    json_t *m;
    json_array_foreach(matches, i, m)
    {
        const json_t *b = json_object_get(m, "bounds");
        struct vnc_rect t = {(int)json_integer_value(json_object_get(b, "x")),
                             (int)json_integer_value(json_object_get(b, "y")),
                             (int)json_integer_value(json_object_get(b, "width")),
                             (int)json_integer_value(json_object_get(b, "height"))};
        consider(p, &t);
    }
    json_decref(matches);
    size_t tlen = strlen(title);
    int words = 1, allowed = (int)(tlen / 5);
    for (const char *c = title; *c; c++)
        words += *c == ' ';
    for (int first = 0; allowed > 0 && first < r->count;) {
        int last = first;
        while (last + 1 < r->count && r->words[last + 1].line == r->words[first].line)
            last++;
        for (int a = first; a <= last; a++)
            for (int n = words > 1 ? words - 1 : 1; n <= words + 1 && a + n - 1 <= last; n++) {
                struct strbuf run;
                strbuf_init(&run);
                for (int k = a; k < a + n; k++)
                    strbuf_printf(&run, "%s%s", k > a ? " " : "", r->words[k].text);
                if (distance(run.data, run.len, title, tlen) <= allowed) {
                    struct vnc_rect t = words_box(r, a, a + n - 1);
                    consider(p, &t);
                }
                strbuf_finish(&run);
            }
        first = last + 1;
    }
}

/* The lines OCR read that sit on a title bar, quoted and short: what the
 * user may have meant. malloc'd; "" when none. */
static char *title_lines(const struct frame *f, const struct ocr_result *r)
{
    struct strbuf sb;
    strbuf_init(&sb);
    int shown = 0;
    for (int first = 0; first < r->count && shown < TITLES_SHOWN;) {
        int last = first;
        while (last + 1 < r->count && r->words[last + 1].line == r->words[first].line)
            last++;
        struct vnc_rect t = words_box(r, first, last);
        struct vnc_rect region;
        if (vnc_window_region(f, &t, &region)) {
            struct strbuf line;
            strbuf_init(&line);
            for (int i = first; i <= last; i++)
                strbuf_printf(&line, "%s%s", i > first ? " " : "", r->words[i].text);
            size_t n = utf8_truncate(line.data, line.len, TITLE_SHOWN_MAX);
            strbuf_printf(&sb, "%s\"%.*s%s\"", shown ? ", " : "", (int)n, line.data,
                          n < line.len ? "…" : "");
            strbuf_finish(&line);
            shown++;
        }
        first = last + 1;
    }
    return sb.data ? strbuf_steal(&sb) : xstrdup("");
}

/* The bars read one by one (window_region.c finds them), each with its
 * own contrast: Tesseract reading the whole screen at once thresholds it
 * as one, and light title text on a light bar (openbox's Clearlooks, an
 * inactive window) is lost. Their text, quoted, goes to *seen. */
static bool look_at_bars(struct search *s, struct pick *p, const struct frame *f,
                         struct strbuf *seen)
{
    struct vnc_rect bars[BARS_MAX];
    int n = vnc_title_bars(f, bars, BARS_MAX), shown = 0;
    for (int i = 0; i < n && !p->any && !atomic_load(&s->v->find_stop); i++) {
        struct frame c;
        struct ocr_result r;
        char *err = NULL;
        vnc_bar_contrast(f, &bars[i], &c);
        bool ok = ocr_recognize(&c, 0, 0, 0, 0, "eng", 0, &r, &err);
        frame_finish(&c);
        if (!ok) {
            s->err = xasprintf("cannot read the screen to find the window: %s", err);
            free(err);
            return false;
        }
        for (int k = 0; k < r.count; k++) {
            r.words[k].x += bars[i].x;
            r.words[k].y += bars[i].y;
        }
        locate(p, &r, s->title);
        if (r.count && shown < TITLES_SHOWN) {
            size_t len = strlen(r.text), n_kept = utf8_truncate(r.text, len, TITLE_SHOWN_MAX);
            strbuf_printf(seen, "%s\"", shown++ ? ", " : "");
            for (size_t k = 0; k < n_kept; k++)
                strbuf_putc(seen, r.text[k] == '\n' ? ' ' : r.text[k]);
            strbuf_printf(seen, "%s\"", n_kept < len ? "…" : "");
        }
        ocr_result_finish(&r);
    }
    return true;
}

/* One look at the screen: the whole of it read, then its bars one by one.
 * False with s->err on failure; *lines: the title bars' text when the
 * window is not there. */
static bool look(struct search *s, const struct frame *f, char **lines)
{
    struct ocr_result r;
    char *err = NULL;
    if (!ocr_recognize(f, 0, 0, 0, 0, "eng", 0, &r, &err)) {
        s->err = xasprintf("cannot read the screen to find the window: %s", err);
        free(err);
        return false;
    }
    struct pick p = {.f = f};
    locate(&p, &r, s->title);
    struct strbuf seen;
    strbuf_init(&seen);
    bool ok = p.any || look_at_bars(s, &p, f, &seen);
    if (ok && !p.any)
        *lines = seen.len ? strbuf_steal(&seen) : title_lines(f, &r);
    strbuf_finish(&seen);
    ocr_result_finish(&r);
    s->found = p.any;
    s->at = p.best;
    return ok;
}

static void run(uv_work_t *w)
{
    struct search *s = w->data;
    struct vnc *v = s->v;
    uint64_t start = clock_now_ms(), seen = 0;
    bool looked = false;
    char *lines = NULL;
    int sw = 0, sh = 0;
    for (;;) {
        uint64_t spent = clock_now_ms() - start;
        int left = spent < (uint64_t)s->timeout_ms ? s->timeout_ms - (int)spent : 1;
        struct frame f;
        uint64_t serial;
        if (!vnc_copy_frame(v, left, &f, &serial, &s->code, &s->err)) {
            free(lines);
            return;
        }
        sw = (int)f.width, sh = (int)f.height;
        if (!looked || serial != seen) {
            free(lines);
            lines = NULL;
            if (!look(s, &f, &lines)) {
                frame_finish(&f);
                s->code = ERROR_TOOL_FAILED;
                return;
            }
            looked = true;
            seen = serial;
        }
        frame_finish(&f);
        if (s->found || atomic_load(&v->find_stop) ||
            clock_now_ms() - start >= (uint64_t)s->timeout_ms)
            break;
        clock_sleep_ms(LOOK_EVERY_MS);
    }
    if (!s->found) {
        s->code = ERROR_NOT_FOUND;
        s->err = xasprintf("argument \"viewport\": no window titled \"%s\" on the server's %dx%d "
                           "screen within %d ms (%s%s)",
                           s->title, sw, sh, s->timeout_ms,
                           lines && *lines ? "title bars OCR read: " : "OCR read no window title",
                           lines ? lines : "");
    }
    free(lines);
}

static void done(uv_work_t *w, int status)
{
    (void)status;
    struct search *s = w->data;
    struct vnc *v = s->v;
    v->finding = false;
    if (v->stopping || !v->session) {
        /* The end waited for this search, which read v. */
        if (v->end_waits) {
            v->end_waits = false;
            vnc_finish_end(v);
        }
    } else if (s->found) {
        pthread_mutex_lock(&v->mu);
        v->vp_x = s->at.x;
        v->vp_y = s->at.y;
        v->vp_w = s->at.w;
        v->vp_h = s->at.h;
        pthread_mutex_unlock(&v->mu);
        log_info("%s: window \"%s\" found at %d,%d %dx%d", v->session->id, s->title, s->at.x,
                 s->at.y, s->at.w, s->at.h);
        vnc_go_live(v);
    } else {
        pthread_mutex_lock(&v->mu);
        if (!v->close_reason) {
            v->close_reason = xstrdup(s->err);
            v->close_code = s->code;
        }
        pthread_mutex_unlock(&v->mu);
        session_stop(v->session, s->err);
    }
    free(s->title);
    free(s->err);
    free(s);
}

void vnc_window_find(struct vnc *v)
{
    struct search *s = xcalloc(1, sizeof *s);
    s->v = v;
    s->title = xstrdup(v->vp_window);
    s->timeout_ms = v->timeout_ms;
    s->work.data = s;
    v->finding = true;
    uv_queue_work(v->app->loop, &s->work, run, done);
}
