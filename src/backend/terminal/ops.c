/* Reading the terminal and typing into it. */
#include "backend/terminal/internal.h"
#include "backend/terminal/term_keys.h"
#include "backend/terminal/term_pty.h"
#include "backend/terminal/term_screen.h"
#include "core/args.h"
#include "core/json_out.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "viewer/viewer.h"

#include <string.h>

/* s[0..n) as a JSON string: prev itself when it holds exactly that (a
 * stored string is valid UTF-8, so utf8_json_string would make its twin). */
static json_t *same_or_new(json_t *prev, const char *s, size_t n)
{
    if (prev && json_string_length(prev) == n && memcmp(json_string_value(prev), s, n) == 0)
        return json_incref(prev);
    return utf8_json_string(s, n);
}

/* The screen's rows; the rows that read as they did at the previous read
 * are that read's strings again (a shell prompt moves a line or two per
 * command: most rows stay, and making each a string anew, then freeing
 * it, was a third of read_text). */
static json_t *screen_lines(struct terminal *t, struct strbuf *all)
{
    int cols, rows;
    term_screen_size(t->screen, &cols, &rows);
    json_t *lines = json_array();
    struct strbuf line;
    strbuf_init(&line);
    for (int r = 0; r < rows; r++) {
        strbuf_clear(&line);
        term_screen_append_line(t->screen, r, &line);
        json_array_append_new(lines, same_or_new(json_array_get(t->read_lines, (size_t)r),
                                                 line.data ? line.data : "", line.len));
    }
    strbuf_finish(&line);
    json_decref(t->read_lines);
    t->read_lines = json_incref(lines);
    /* The joined text drops trailing empty rows, as a person would copy it. */
    char *text = term_screen_text(t->screen);
    strbuf_puts(all, text);
    free(text);
    return lines;
}

static json_t *cursor_json(struct terminal *t)
{
    int row, col;
    bool visible;
    term_screen_cursor(t->screen, &row, &col, &visible);
    return json_pack("{s:i, s:i, s:b}", "row", row, "col", col, "visible", visible);
}

static void add_exit(struct terminal *t, json_t *o)
{
    json_object_set_new(o, "exited", json_boolean(t->exited));
    json_object_set_new(o, "exit_status",
                        t->exited && !t->exit_signal ? json_integer(t->exit_status) : json_null());
    json_object_set_new(o, "signal",
                        t->exit_signal ? json_sprintf("SIG%s", sigabbrev_np(t->exit_signal))
                                       : json_null());
}

void terminal_answer_drop(struct terminal *t)
{
    json_out_forget(t->answer.structured);
    json_decref(t->answer.structured);
    json_out_forget(t->answer.content);
    json_decref(t->answer.content);
    free(t->answer.title);
    memset(&t->answer, 0, sizeof t->answer);
}

/* Whether the kept answer reads as the screen does now. Rows change only
 * with term_screen_changes(); the rest is compared as it is, cheaply. */
static bool answer_current(const struct terminal *t)
{
    if (!t->answer.structured || t->answer.changes != term_screen_changes(t->screen))
        return false;
    int cols, rows, row, col;
    bool visible;
    term_screen_size(t->screen, &cols, &rows);
    term_screen_cursor(t->screen, &row, &col, &visible);
    return t->answer.cols == cols && t->answer.rows == rows && t->answer.cursor_row == row &&
           t->answer.cursor_col == col && t->answer.cursor_visible == visible &&
           t->answer.exited == t->exited && t->answer.exit_status == t->exit_status &&
           t->answer.exit_signal == t->exit_signal &&
           strcmp(t->answer.title, term_screen_title(t->screen)) == 0;
}

/* Keeps o (stolen) and the content of text as the answer for the screen
 * as it is now. */
static void answer_keep(struct terminal *t, json_t *o, const char *text, size_t len)
{
    terminal_answer_drop(t);
    t->answer.structured = o;
    t->answer.content = backend_text_content(text, len);
    json_out_freeze(o);
    json_out_freeze(t->answer.content);
    t->answer.changes = term_screen_changes(t->screen);
    term_screen_size(t->screen, &t->answer.cols, &t->answer.rows);
    term_screen_cursor(t->screen, &t->answer.cursor_row, &t->answer.cursor_col,
                       &t->answer.cursor_visible);
    t->answer.exited = t->exited;
    t->answer.exit_status = t->exit_status;
    t->answer.exit_signal = t->exit_signal;
    t->answer.title = xstrdup(term_screen_title(t->screen));
}

void terminal_read_text_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    if (args_string(bc->args, "since", NULL)) {
        terminal_read_since_op(bc);
        return;
    }
    /* Whatever is on screen now counts as read for a later since "last". */
    terminal_history_mark(t, bc);
    int want = (int)args_int(bc->args, "scrollback", 0);
    /* An agent polling a screen that did not change gets the same answer:
     * nothing to build, and its JSON is written from the memo. */
    if (want <= 0 && answer_current(t)) {
        backend_call_done_content(bc, json_incref(t->answer.structured), t->answer.content);
        return;
    }
    struct strbuf text;
    strbuf_init(&text);
    json_t *lines = screen_lines(t, &text);
    json_t *o = json_pack("{s:s, s:o, s:o}", "session", bc->session->id, "lines", lines, "cursor",
                          cursor_json(t));
    json_t *history = NULL;
    if (want > 0) {
        int count = term_screen_scrollback_count(t->screen);
        int first = count > want ? count - want : 0;
        history = json_array();
        struct strbuf line;
        strbuf_init(&line);
        for (int i = first; i < count; i++) {
            strbuf_clear(&line);
            term_screen_append_scrollback_line(t->screen, i, &line);
            json_array_append_new(history, utf8_json_string(line.data ? line.data : "", line.len));
        }
        strbuf_finish(&line);
        json_object_set_new(o, "scrollback", history);
    }
    const char *title = term_screen_title(t->screen);
    json_object_set_new(o, "title", utf8_json_string(title, strlen(title)));
    add_exit(t, o);
    /* The text mirror: scrollback first, then the screen, as it reads. */
    struct strbuf mirror;
    strbuf_init(&mirror);
    if (history) {
        size_t i;
        json_t *l;
        json_array_foreach(history, i, l)
        {
            strbuf_puts(&mirror, json_string_value(l));
            strbuf_putc(&mirror, '\n');
        }
    }
    strbuf_append(&mirror, text.data ? text.data : "", text.len);
    json_t *joined = same_or_new(t->read_text, mirror.data ? mirror.data : "", mirror.len);
    json_decref(t->read_text);
    t->read_text = json_incref(joined);
    json_object_set_new(o, "text", joined);
    if (t->exited) {
        char *why = terminal_exit_text(t);
        strbuf_printf(&mirror, "\n[program %s]", why);
        free(why);
    }
    strbuf_append(&mirror, "", 0); /* allocate when empty */
    if (want <= 0) {
        answer_keep(t, o, mirror.data, strlen(mirror.data));
        backend_call_done_content(bc, json_incref(t->answer.structured), t->answer.content);
    } else {
        backend_call_done(bc, o, "%s", mirror.data);
    }
    strbuf_finish(&mirror);
    strbuf_finish(&text);
}

void terminal_snapshot_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    if (json_object_get(bc->args, "scope")) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "cannot take a snapshot: \"scope\" is for browser sessions; a "
                               "terminal's snapshot is its lines");
        return;
    }
    struct strbuf text;
    strbuf_init(&text);
    json_t *lines = screen_lines(t, &text);
    int cols, rows;
    term_screen_size(t->screen, &cols, &rows);
    const char *title = term_screen_title(t->screen);
    bool alt = term_screen_altscreen(t->screen);
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:b, s:i, s:i}", "session", bc->session->id,
                          "kind", "terminal", "lines", lines, "cursor", cursor_json(t), "title",
                          utf8_json_string(title, strlen(title)), "alternate_screen", alt, "cols",
                          cols, "rows", rows);
    add_exit(t, o);
    int crow, ccol;
    bool cvis;
    term_screen_cursor(t->screen, &crow, &ccol, &cvis);
    char *state = terminal_exit_text(t);
    backend_call_done(bc, o, "%s %dx%d%s, cursor %d,%d, title \"%s\", %s\n%s", bc->session->id,
                      cols, rows, alt ? " (alternate screen)" : "", crow, ccol, title, state,
                      text.data ? text.data : "");
    free(state);
    strbuf_finish(&text);
}

void terminal_type_text_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    if (json_object_get(bc->args, "delay_ms") || json_object_get(bc->args, "wpm")) {
        backend_call_fail_code(bc, ERROR_NOT_SUPPORTED,
                               "typing pace (delay_ms, wpm) is for desktops: a terminal takes "
                               "the text at once");
        return;
    }
    const char *text = args_string(bc->args, "text", "");
    size_t len = strlen(text);
    /* Newlines that end the text are Enter pressed after the paste: inside
     * a paste, bash, python and vim insert a newline instead of running
     * the line. */
    size_t body = len;
    while (body > 0 && (text[body - 1] == '\n' || text[body - 1] == '\r'))
        body--;
    /* One line is typed key by key, as a person would (":wq" in vim's
     * normal mode is a command, pasted it would be text); several lines
     * go as one paste so editors do not auto-indent them and shells take
     * them whole. */
    bool multiline = memchr(text, '\n', body) || memchr(text, '\r', body);
    bool paste = multiline && term_screen_bracketed_paste(t->screen);
    struct strbuf bytes;
    strbuf_init(&bytes);
    if (paste)
        strbuf_puts(&bytes, "\x1b[200~");
    /* A terminal's Enter key sends CR; programs in raw mode expect it. */
    for (size_t i = 0; i < len; i++) {
        if (paste && i == body)
            strbuf_puts(&bytes, "\x1b[201~");
        char c = text[i];
        if (c == '\n' && !(i > 0 && text[i - 1] == '\r'))
            c = '\r';
        strbuf_putc(&bytes, c);
    }
    if (paste && body == len)
        strbuf_puts(&bytes, "\x1b[201~");
    size_t n = bytes.len;
    uint64_t start = t->queued;
    /* Where the paste's end marker ends, for a cancel that cuts it short. */
    uint64_t paste_end = 0;
    if (paste) {
        const char *end = memmem(bytes.data, bytes.len, "\x1b[201~", 6);
        paste_end = end ? start + (uint64_t)(end - bytes.data) + 6 : 0;
    }
    terminal_write(t, bytes.data, bytes.len);
    strbuf_finish(&bytes);
    json_t *o = json_pack("{s:s, s:I, s:b}", "session", bc->session->id, "bytes", (json_int_t)n,
                          "bracketed_paste", paste);
    terminal_write_then_answer(t, bc, start, paste_end, o,
                               xasprintf("typed %zu bytes into %s%s", len, bc->session->id,
                                         paste ? " (bracketed paste)" : ""));
}

void terminal_press_key_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    const char *spec = args_string(bc->args, "key", "");
    int repeat = (int)args_int(bc->args, "repeat", 1);
    struct input_key key;
    char *err = NULL;
    if (!term_keys_parse("key", spec, &key, &err)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "%s", err);
        free(err);
        return;
    }
    uint64_t before = t->queued;
    for (int i = 0; i < repeat; i++)
        term_keys_send(t->screen, &key);
    /* term_keys wrote the encoded key through the output callback. */
    uint64_t n = t->queued - before;
    terminal_write(t, "", 0);
    json_t *o = json_pack("{s:s, s:s, s:i, s:I}", "session", bc->session->id, "key", spec, "repeat",
                          repeat, "bytes", (json_int_t)n);
    terminal_write_then_answer(
        t, bc, before, 0, o,
        xasprintf("pressed %s%s in %s", spec, repeat > 1 ? " repeatedly" : "", bc->session->id));
}

void terminal_resize_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    int cols = (int)args_int(bc->args, "cols", t->cols);
    int rows = (int)args_int(bc->args, "rows", t->rows);
    term_screen_resize(t->screen, cols, rows);
    int rc = term_pty_resize(t->master, cols, rows);
    if (rc < 0) {
        backend_call_fail(bc, "cannot resize %s: %s", bc->session->id, strerror(-rc));
        return;
    }
    t->cols = cols;
    t->rows = rows;
    terminal_waits_check(t);
    terminal_record_changed(t);
    session_changed(t->session, SESSION_CHANGED_SCREEN);
    viewer_session_resized(bc->session);
    backend_call_done(
        bc, json_pack("{s:s, s:i, s:i}", "session", bc->session->id, "cols", cols, "rows", rows),
        "%s is now %dx%d", bc->session->id, cols, rows);
}
