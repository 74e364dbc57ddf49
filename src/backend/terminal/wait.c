/* wait_for on a terminal: conditions are checked whenever output arrives
 * (and on resize and exit), never by polling. All the given conditions must
 * hold together: text/regex (present, or gone), quiet for stable_ms, exited. */
#include "backend/terminal/internal.h"
#include "backend/terminal/term_screen.h"
#include "core/app.h"
#include "core/args.h"
#include "core/pattern.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <string.h>

#define DEFAULT_TIMEOUT_MS 10000
/* Backtracking steps one check of the whole screen may spend on a regex,
 * shared out over its rows: checks run on the loop thread at every output,
 * so their cost must stay small whatever the pattern (~20 ms at most). */
#define CHECK_MATCH_BUDGET 1000000
#define LINE_MATCH_MIN     10000

struct term_wait {
    struct backend_call *bc;
    struct terminal *t;
    char *text;         /* plain text to find, or NULL */
    struct pattern *re; /* the regex, or NULL */
    bool gone;
    int stable_ms; /* 0 = no quiet period needed */
    bool want_exit;
    bool at_cursor; /* the text must end at the cursor, in output after the latest input */
    uint64_t started_ms;
    uv_timer_t timeout, quiet;
    int open_timers; /* freed when both are closed */
    bool answered;
    struct term_wait *next;
};

static void wait_free(struct term_wait *w)
{
    pattern_destroy(w->re);
    free(w->text);
    free(w);
}

static void timer_closed(uv_handle_t *h)
{
    struct term_wait *w = h->data;
    if (--w->open_timers == 0)
        wait_free(w);
}

static void unlink_wait(struct term_wait *w)
{
    for (struct term_wait **pp = &w->t->waits; *pp; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            return;
        }
    }
}

static void close_timers(struct term_wait *w)
{
    uv_close((uv_handle_t *)&w->timeout, timer_closed);
    uv_close((uv_handle_t *)&w->quiet, timer_closed);
}

/* The wait cannot go on (a regex over its match limit): an error. */
static void fail(struct term_wait *w, const char *msg)
{
    if (w->answered)
        return;
    w->answered = true;
    unlink_wait(w);
    backend_call_fail(w->bc, "%s", msg);
    close_timers(w);
}

static void answer(struct term_wait *w, bool matched, const char *reason, const char *line, int row)
{
    if (w->answered)
        return;
    w->answered = true;
    unlink_wait(w);
    struct terminal *t = w->t;
    uint64_t elapsed = uv_now(t->app->loop) - w->started_ms;
    json_t *o = json_pack("{s:s, s:b, s:I, s:s}", "session", t->session->id, "matched", matched,
                          "elapsed_ms", (json_int_t)elapsed, "reason", reason);
    json_object_set_new(o, "line", line ? utf8_json_string(line, strlen(line)) : json_null());
    json_object_set_new(o, "row", line ? json_integer(row) : json_null());
    json_object_set_new(o, "exit_status",
                        t->exited && !t->exit_signal ? json_integer(t->exit_status) : json_null());
    if (matched)
        backend_call_done(w->bc, o, "matched after %llu ms%s%s", (unsigned long long)elapsed,
                          line ? ": " : "", line ? line : "");
    else
        backend_call_done(w->bc, o, "not matched after %llu ms: %s", (unsigned long long)elapsed,
                          reason);
    close_timers(w);
}

/* Whether the text is on the line. Lines come with their trailing blanks
 * trimmed, but text such as the prompt ">>> " ends in the blank cells after
 * the last character: count them as spaces. */
static bool text_on_line(const char *text, const char *line, size_t len, int cols,
                         struct strbuf *padded)
{
    if (strstr(line, text))
        return true;
    size_t tlen = strlen(text);
    if (tlen == 0 || text[tlen - 1] != ' ')
        return false;
    int chars = 0; /* at most the cells used: a wide character is one */
    for (size_t i = 0; i < len; i++)
        chars += ((unsigned char)line[i] & 0xC0) != 0x80;
    strbuf_clear(padded);
    strbuf_append(padded, line, len);
    for (int i = chars; i < cols; i++)
        strbuf_putc(padded, ' ');
    return padded->data && strstr(padded->data, text) != NULL;
}

/* The cursor's row up to the cursor: a prompt waiting for input ends
 * there. Blank cells before the cursor count as spaces (the row comes
 * trimmed); a wide character counts as one cell. */
static void line_to_cursor(struct terminal *t, int row, int col, struct strbuf *line)
{
    term_screen_append_line(t->screen, row, line);
    int chars = 0;
    size_t cut = line->len;
    for (size_t i = 0; i < line->len; i++) {
        if (((unsigned char)line->data[i] & 0xC0) == 0x80)
            continue;
        if (chars == col) {
            cut = i;
            break;
        }
        chars++;
    }
    line->len = cut;
    for (int i = chars; i < col; i++)
        strbuf_putc(line, ' ');
    if (line->data)
        line->data[line->len] = '\0';
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* at_cursor: the text/regex on the cursor's row up to the cursor. */
static int find_at_cursor(struct term_wait *w, struct strbuf *line, char **err)
{
    int row, col;
    bool visible;
    term_screen_cursor(w->t->screen, &row, &col, &visible);
    strbuf_clear(line);
    line_to_cursor(w->t, row, col, line);
    const char *s = line->data ? line->data : "";
    if (w->re) {
        int hit = pattern_match(w->re, s, line->len, CHECK_MATCH_BUDGET, err);
        return hit < 0 ? -2 : hit ? row : -1;
    }
    return ends_with(s, line->len, w->text) ? row : -1;
}

/* Finds the text/regex on screen. Returns the row, -1 if absent, or -2
 * with *err (caller frees) when the regex is over its match limit; fills
 * line. */
static int find_on_screen(struct term_wait *w, struct strbuf *line, char **err)
{
    if (w->at_cursor) {
        /* Until the program answers the latest input, what is at the
         * cursor is the prompt that input was typed at. */
        if (!w->t->output_since_input)
            return -1;
        return find_at_cursor(w, line, err);
    }
    int cols, rows;
    term_screen_size(w->t->screen, &cols, &rows);
    uint32_t limit = CHECK_MATCH_BUDGET / (uint32_t)(rows > 0 ? rows : 1);
    if (limit < LINE_MATCH_MIN)
        limit = LINE_MATCH_MIN;
    struct strbuf padded;
    strbuf_init(&padded);
    int found = -1;
    for (int r = 0; r < rows && found == -1; r++) {
        strbuf_clear(line);
        term_screen_append_line(w->t->screen, r, line);
        const char *s = line->data ? line->data : "";
        if (w->re) {
            int hit = pattern_match(w->re, s, line->len, limit, err);
            found = hit < 0 ? -2 : hit ? r : -1;
        } else if (text_on_line(w->text, s, line->len, cols, &padded)) {
            found = r;
        }
    }
    strbuf_finish(&padded);
    return found;
}

static bool quiet_enough(struct term_wait *w)
{
    if (!w->stable_ms)
        return true;
    return uv_now(w->t->app->loop) - w->t->last_output_ms >= (uint64_t)w->stable_ms;
}

static void on_quiet(uv_timer_t *timer);

static void check(struct term_wait *w)
{
    struct terminal *t = w->t;
    struct strbuf line;
    strbuf_init(&line);
    bool text_ok = true;
    int row = -1;
    if (w->text || w->re) {
        char *err = NULL;
        row = find_on_screen(w, &line, &err);
        if (row == -2) {
            fail(w, err);
            free(err);
            strbuf_finish(&line);
            return;
        }
        text_ok = w->gone ? row < 0 : row >= 0;
    }
    bool exit_ok = !w->want_exit || t->exited;
    if (text_ok && exit_ok && quiet_enough(w)) {
        answer(w, true, "matched", row >= 0 ? line.data : NULL, row);
    } else if (t->exited && !text_ok) {
        /* Nothing will change any more. */
        answer(w, false, "the program exited", NULL, -1);
    } else if (text_ok && exit_ok && w->stable_ms) {
        /* Everything else holds: look again once the quiet period is over. */
        uint64_t since = uv_now(t->app->loop) - t->last_output_ms;
        uint64_t left = since >= (uint64_t)w->stable_ms ? 1 : (uint64_t)w->stable_ms - since;
        uv_timer_start(&w->quiet, on_quiet, left, 0);
    }
    strbuf_finish(&line);
}

static void on_quiet(uv_timer_t *timer)
{
    check(timer->data);
}

static void on_timeout(uv_timer_t *timer)
{
    answer(timer->data, false, "timeout", NULL, -1);
}

static void on_cancel(struct backend_call *bc)
{
    answer(bc->backend_data, false, "cancelled", NULL, -1);
}

void terminal_waits_check(struct terminal *t)
{
    /* check() may answer (and unlink) the wait it is looking at. */
    struct term_wait *w = t->waits;
    while (w) {
        struct term_wait *next = w->next;
        check(w);
        w = next;
    }
}

void terminal_waits_abort(struct terminal *t, const char *why)
{
    while (t->waits)
        answer(t->waits, false, why, NULL, -1);
}

void terminal_wait_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    struct term_wait *w = xcalloc(1, sizeof *w);
    w->bc = bc;
    w->t = t;
    const char *regex = args_string(bc->args, "regex", NULL);
    const char *text = args_string(bc->args, "text", NULL);
    if (regex) {
        /* Bounded in length and compiled size, so compiling here on the
         * loop thread takes microseconds whatever the pattern. */
        char *err = NULL;
        w->re = pattern_compile("regex", regex, false, &err);
        if (!w->re) {
            free(w);
            backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
            free(err);
            return;
        }
    }
    w->text = text ? xstrdup(text) : NULL;
    w->gone = args_bool(bc->args, "gone", false);
    w->stable_ms = (int)args_int(bc->args, "stable_ms", 0);
    w->want_exit = args_bool(bc->args, "exit", false);
    w->at_cursor = args_bool(bc->args, "at_cursor", false);
    if (w->at_cursor && !w->text && !w->re) {
        pattern_destroy(w->re);
        free(w);
        backend_call_fail_code(
            bc, ERROR_INVALID_ARGUMENT,
            "\"at_cursor\" needs \"text\" or \"regex\" (the prompt to wait for)");
        return;
    }
    if (t->exited && !w->want_exit && !w->text && !w->re && !w->stable_ms) {
        wait_free(w);
        backend_call_fail_code(bc, ERROR_SESSION_EXPIRED, "session %s has ended", bc->session->id);
        return;
    }
    w->started_ms = uv_now(t->app->loop);
    uv_timer_init(t->app->loop, &w->timeout);
    uv_timer_init(t->app->loop, &w->quiet);
    w->timeout.data = w->quiet.data = w;
    w->open_timers = 2;
    bc->backend_data = w;
    bc->cancel = on_cancel;
    w->next = t->waits;
    t->waits = w;
    uint64_t timeout = (uint64_t)args_int(bc->args, "timeout_ms", DEFAULT_TIMEOUT_MS);
    uv_timer_start(&w->timeout, on_timeout, timeout, 0);
    check(w);
}
