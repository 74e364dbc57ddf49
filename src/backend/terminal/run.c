/* terminal_run: type a command into the shell at the prompt and answer its
 * output and exit status.
 *
 * The command goes in through the terminal's own input, as a person would
 * type it, wrapped between two marks the shell itself prints in OSC 133's
 * shape (the shell-integration marks terminals understand): C when the
 * command starts, D;<status> when it ends, each tagged with a random nonce.
 * The echo of the typed line shows the marks as the text `\033]133;…`, never
 * as the escape itself, so the echo cannot be mistaken for them; everything
 * the program printed between the two marks is the output. The command is
 * grouped on a line of its own ({ …\n}) so a trailing `&`, a comment or a
 * here-document in it still parse. Needs a POSIX shell (sh, bash, dash,
 * zsh, ksh) at the prompt. */
#include "backend/terminal/internal.h"
#include "backend/terminal/term_screen.h"
#include "core/app.h"
#include "core/args.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define DEFAULT_TIMEOUT_MS 30000
/* Output kept per run; more is counted, not kept. */
#define OUTPUT_MAX (1024 * 1024)
/* Bytes held back between reads: a mark split across two reads is found
 * whole in the next one. Longer than any mark. */
#define CARRY 96
/* Output shown in the text mirror. */
#define MIRROR_MAX 8000

struct term_run {
    struct backend_call *bc;
    struct terminal *t;
    char nonce[17];
    char start_mark[48]; /* ESC ] 133;C;<nonce> BEL */
    char end_tail[24];   /* ;<nonce> BEL, after D;<status> */
    bool started;
    struct strbuf carry;  /* unscanned bytes from the previous read */
    struct strbuf output; /* raw bytes between the marks, up to OUTPUT_MAX */
    uint64_t dropped;     /* bytes past OUTPUT_MAX */
    uint64_t started_ms;
    uv_timer_t timeout;
};

static void run_free(uv_handle_t *h)
{
    struct term_run *r = h->data;
    strbuf_finish(&r->carry);
    strbuf_finish(&r->output);
    free(r);
}

static void keep(struct term_run *r, const char *s, size_t n)
{
    size_t room = r->output.len < OUTPUT_MAX ? OUTPUT_MAX - r->output.len : 0;
    size_t take = n < room ? n : room;
    strbuf_append(&r->output, s, take);
    r->dropped += n - take;
}

static void answer(struct term_run *r, const char *how, bool timed_out, json_t *status)
{
    struct terminal *t = r->t;
    t->run = NULL;
    uv_timer_stop(&r->timeout);
    uint64_t elapsed = uv_now(t->app->loop) - r->started_ms;
    struct strbuf text;
    strbuf_init(&text);
    terminal_output_clean(r->output.data ? r->output.data : "", r->output.len, &text);
    const char *out = text.data ? text.data : "";
    json_t *o = json_pack("{s:s, s:o, s:o, s:b, s:b, s:I, s:b}", "session", t->session->id,
                          "output", utf8_json_string(out, text.len), "exit_status", status,
                          "timed_out", timed_out, "exited", t->exited, "elapsed_ms",
                          (json_int_t)elapsed, "truncated", r->dropped > 0);
    int shown = text.len > MIRROR_MAX ? MIRROR_MAX : (int)text.len;
    backend_call_done(r->bc, o, "%s after %llu ms%s\n%.*s%s", how, (unsigned long long)elapsed,
                      r->dropped ? " (output truncated)" : "", shown, out,
                      text.len > MIRROR_MAX ? "\n[…]" : "");
    strbuf_finish(&text);
    /* At exit after a failed shutdown the server may have closed the timer
     * already; closing twice would abort. */
    if (!uv_is_closing((uv_handle_t *)&r->timeout))
        uv_close((uv_handle_t *)&r->timeout, run_free);
}

/* Where the end mark starts in s (its ";<nonce>" BEL at tail), with the
 * status; -1 if not a whole end mark. */
static long end_mark_at(const char *s, size_t tail, int *status)
{
    size_t d = tail;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9' && tail - d < 4)
        d--;
    static const char prefix[] = "\x1b]133;D;";
    size_t plen = sizeof prefix - 1;
    if (d == tail || d < plen || memcmp(s + d - plen, prefix, plen) != 0)
        return -1;
    *status = atoi(s + d);
    return (long)(d - plen);
}

void terminal_run_feed(struct terminal *t, const char *data, size_t len)
{
    struct term_run *r = t->run;
    if (!r)
        return;
    strbuf_append(&r->carry, data, len);
    const char *s = r->carry.data;
    size_t n = r->carry.len, pos = 0;
    if (!r->started) {
        const char *m = memmem(s, n, r->start_mark, strlen(r->start_mark));
        if (!m) {
            if (n > CARRY)
                strbuf_consume(&r->carry, n - CARRY);
            return;
        }
        r->started = true;
        pos = (size_t)(m - s) + strlen(r->start_mark);
    }
    size_t tlen = strlen(r->end_tail);
    const char *from = s + pos;
    const char *m;
    while ((m = memmem(from, n - (size_t)(from - s), r->end_tail, tlen))) {
        int status = 0;
        long at = end_mark_at(s, (size_t)(m - s), &status);
        if (at >= (long)pos) {
            keep(r, s + pos, (size_t)at - pos);
            char how[32];
            snprintf(how, sizeof how, "exit status %d", status);
            answer(r, how, false, json_integer(status));
            return;
        }
        from = m + tlen;
    }
    /* Keep all but what may be the start of a split end mark. */
    size_t safe = n - pos > CARRY ? n - CARRY : pos;
    keep(r, s + pos, safe - pos);
    strbuf_consume(&r->carry, safe);
}

void terminal_run_abort(struct terminal *t, const char *why)
{
    struct term_run *r = t->run;
    if (!r)
        return;
    /* What arrived up to here is the output; the rest never will. */
    if (r->started && r->carry.len)
        keep(r, r->carry.data, r->carry.len);
    json_t *status = t->exited && !t->exit_signal ? json_integer(t->exit_status) : json_null();
    answer(r, why, false, status);
}

static void on_timeout(uv_timer_t *timer)
{
    struct term_run *r = timer->data;
    if (r->started && r->carry.len)
        keep(r, r->carry.data, r->carry.len);
    strbuf_clear(&r->carry);
    answer(r, "still running (press ctrl+c to stop it)", true, json_null());
}

static void on_cancel(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    if (t->run && t->run->bc == bc)
        answer(t->run, "cancelled", false, json_null());
}

static bool make_nonce(char out[17])
{
    uint8_t b[8];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        return false;
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return true;
}

void terminal_run_op(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    const json_t *cmd = json_object_get(bc->args, "command");
    const char *command = json_string_value(cmd) ? json_string_value(cmd) : "";
    if (json_string_length(cmd) != strlen(command) || strpbrk(command, "\x03\x04\x1a\x1b")) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "\"command\" must be a shell command line, without control "
                               "characters such as ctrl+c (use press_key for those)");
        return;
    }
    if (t->run) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "a terminal_run is still running in %s; wait for it (or cancel "
                               "it) first",
                               bc->session->id);
        return;
    }
    if (term_screen_altscreen(t->screen)) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "%s shows a full-screen program, not a shell prompt: "
                               "terminal_run types into a shell; use type_text and press_key",
                               bc->session->id);
        return;
    }
    struct term_run *r = xcalloc(1, sizeof *r);
    if (!make_nonce(r->nonce)) {
        free(r);
        backend_call_fail(bc, "cannot read random bytes for the command's marks");
        return;
    }
    r->bc = bc;
    r->t = t;
    snprintf(r->start_mark, sizeof r->start_mark, "\x1b]133;C;%s\a", r->nonce);
    snprintf(r->end_tail, sizeof r->end_tail, ";%s\a", r->nonce);
    strbuf_init(&r->carry);
    strbuf_init(&r->output);
    r->started_ms = uv_now(t->app->loop);
    uv_timer_init(t->app->loop, &r->timeout);
    r->timeout.data = r;
    /* The line as typed: the shell prints the marks (the echo shows them as
     * backslash text). A trailing newline of the command is not an empty
     * line inside the group. */
    size_t clen = strlen(command);
    while (clen > 0 && (command[clen - 1] == '\n' || command[clen - 1] == '\r'))
        clen--;
    struct strbuf line;
    strbuf_init(&line);
    strbuf_printf(
        &line, "printf '\\033]133;C;%s\\007'; { %.*s\n}; printf '\\033]133;D;%%s;%s\\007' \"$?\"",
        r->nonce, (int)clen, command, r->nonce);
    /* As type_text sends several lines: one bracketed paste when the shell
     * asked for it (it takes them whole), else line by line; then Enter. */
    bool paste = term_screen_bracketed_paste(t->screen);
    struct strbuf bytes;
    strbuf_init(&bytes);
    if (paste)
        strbuf_puts(&bytes, "\x1b[200~");
    for (size_t i = 0; i < line.len; i++)
        strbuf_putc(&bytes, line.data[i] == '\n' && !paste ? '\r' : line.data[i]);
    if (paste)
        strbuf_puts(&bytes, "\x1b[201~");
    strbuf_putc(&bytes, '\r');
    strbuf_finish(&line);
    t->run = r;
    bc->backend_data = r;
    bc->cancel = on_cancel;
    terminal_write(t, bytes.data, bytes.len);
    strbuf_finish(&bytes);
    uint64_t timeout = (uint64_t)args_int(bc->args, "timeout_ms", DEFAULT_TIMEOUT_MS);
    uv_timer_start(&r->timeout, on_timeout, timeout, 0);
}
