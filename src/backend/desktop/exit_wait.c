/* wait_for {exit} on desktops: until a program started in the desktop
 * (desktop_start's command, launch_app) ends, with its exit status. The
 * most recent one unless "pid" names another. */
#include "backend/desktop/exit_wait.h"

#include "backend/desktop/internal.h"
#include "backend/desktop/output.h"
#include "core/app.h"
#include "core/args.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Output a wait_for {exit} answer carries at most: the last of it. */
#define EXIT_OUTPUT_MAX (64u * 1024)

struct exit_waiter {
    struct exit_waiter *next;
    struct desktop *d;
    struct backend_call *bc;
    pid_t pid;
    uv_timer_t timer;
    uint64_t start_ms;
};

static void closed(uv_handle_t *h)
{
    free(h->data);
}

static void unlink_waiter(struct exit_waiter *w)
{
    for (struct exit_waiter **p = &w->d->exit_waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
}

/* Answers w (exited: with r's status) and lets it go. */
static void answer(struct exit_waiter *w, const struct desktop_exited *r, const char *reason)
{
    struct backend_call *bc = w->bc;
    struct desktop *d = w->d;
    bc->cancel = NULL;
    bc->backend_data = NULL;
    unlink_waiter(w);
    uv_timer_stop(&w->timer);
    uv_close((uv_handle_t *)&w->timer, closed);
    json_int_t elapsed = (json_int_t)(uv_now(bc->app->loop) - w->start_ms);
    json_t *data = json_pack("{s:s, s:b, s:I, s:i}", "session", bc->session->id, "matched",
                             r != NULL, "elapsed_ms", elapsed, "pid", (int)w->pid);
    const char *log = d->output ? desktop_output_path(d->output) : NULL;
    if (log)
        json_object_set_new(data, "log", json_string(log));
    if (!r) {
        json_object_set_new(data, "exit_status", json_null());
        json_object_set_new(data, "reason", json_string(reason));
        backend_call_done(bc, data, "pid %d still running after %lld ms (%s)", (int)w->pid,
                          (long long)elapsed, reason);
        return;
    }
    /* What the session's programs printed while it ran: its own output, and
     * others' too when several ran at once (they share one log). */
    size_t len = 0;
    char *out = d->output
                    ? desktop_output_read(d->output, r->log_from, r->log_to, EXIT_OUTPUT_MAX, &len)
                    : NULL;
    json_object_set_new(data, "output", out ? utf8_json_string(out, len) : json_string(""));
    if (out && r->log_to - r->log_from > len)
        json_object_set_new(data, "output_cut", json_true());
    free(out);
    bool code = WIFEXITED(r->status);
    json_object_set_new(data, "exit_status",
                        code ? json_integer(WEXITSTATUS(r->status)) : json_null());
    if (!code && WIFSIGNALED(r->status))
        json_object_set_new(data, "signal", json_integer(WTERMSIG(r->status)));
    /* The text mirror carries the output too (its last 2 KB). */
    const char *o = json_string_value(json_object_get(data, "output"));
    size_t olen = o ? strlen(o) : 0;
    const char *tail = olen > 2048 ? o + utf8_truncate(o, olen, olen - 2048) : o;
    if (code)
        backend_call_done(bc, data, "pid %d exited with status %d%s%s%s%s", (int)w->pid,
                          WEXITSTATUS(r->status), log ? "; its output is in " : "", log ? log : "",
                          olen ? ":\n" : "", olen ? tail : "");
    else
        backend_call_done(bc, data, "pid %d was killed by signal %d%s%s%s%s", (int)w->pid,
                          WTERMSIG(r->status), log ? "; its output is in " : "", log ? log : "",
                          olen ? ":\n" : "", olen ? tail : "");
}

static void timed_out(uv_timer_t *t)
{
    answer(t->data, NULL, "timeout");
}

static void cancel(struct backend_call *bc)
{
    answer(bc->backend_data, NULL, "cancelled");
}

static const struct desktop_exited *exited_of(const struct desktop *d, pid_t pid)
{
    for (int i = 0; i < DESKTOP_EXITED_KEPT; i++)
        if (d->exited[i].pid == pid)
            return &d->exited[i];
    return NULL;
}

static bool running(const struct desktop *d, pid_t pid)
{
    for (int i = 0; i < d->n_children; i++)
        if (d->children[i].pid == pid && d->children[i].alive && d->children[i].kind == CHILD_APP)
            return true;
    return false;
}

void desktop_wait_exit_op(struct backend_call *bc)
{
    struct desktop *d = desktop_of(bc->session);
    pid_t pid = (pid_t)args_int(bc->args, "pid", d->last_app_pid);
    if (pid <= 0) {
        backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT,
                               "no program has been started in %s to wait for (desktop_start "
                               "with command, or launch_app)",
                               bc->session->id);
        return;
    }
    struct exit_waiter *w = xcalloc(1, sizeof *w);
    w->d = d;
    w->bc = bc;
    w->pid = pid;
    w->start_ms = uv_now(bc->app->loop);
    uv_timer_init(bc->app->loop, &w->timer);
    w->timer.data = w;
    const struct desktop_exited *r = exited_of(d, pid);
    if (r || !running(d, pid)) {
        if (!r && pid != d->wm_pid) {
            uv_close((uv_handle_t *)&w->timer, closed);
            backend_call_fail_code(bc, ERROR_NOT_FOUND,
                                   "pid %d is not a program of %s (its launch_app or "
                                   "desktop_start pids; the last %d that ended are remembered)",
                                   (int)pid, bc->session->id, DESKTOP_EXITED_KEPT);
            return;
        }
        if (r) {
            w->next = d->exit_waiters;
            d->exit_waiters = w;
            answer(w, r, "exited");
            return;
        }
    }
    w->next = d->exit_waiters;
    d->exit_waiters = w;
    bc->cancel = cancel;
    bc->backend_data = w;
    uv_timer_start(&w->timer, timed_out, (uint64_t)args_int(bc->args, "timeout_ms", 10000), 0);
}

void desktop_exit_note(struct desktop *d, pid_t pid, int status)
{
    size_t from = 0;
    for (int i = 0; i < d->n_children; i++)
        if (d->children[i].pid == pid)
            from = d->children[i].log_from;
    struct desktop_exited *slot = &d->exited[d->next_exited++ % DESKTOP_EXITED_KEPT];
    *slot =
        (struct desktop_exited){pid, status, from, d->output ? desktop_output_sync(d->output) : 0};
    /* Choose, then act: answering unlinks the waiter. */
    for (;;) {
        struct exit_waiter *w = d->exit_waiters;
        while (w && w->pid != pid)
            w = w->next;
        if (!w)
            break;
        answer(w, slot, "exited");
    }
}

void desktop_exit_waits_end(struct desktop *d)
{
    while (d->exit_waiters)
        answer(d->exit_waiters, NULL, "the session ended");
}
