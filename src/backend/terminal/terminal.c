/* A terminal session's life: spawn, output, input, exit, stop. */
#include "backend/terminal/terminal.h"

#define LOG_MODULE "terminal"
#include "backend/terminal/internal.h"
#include "backend/terminal/term_pty.h"
#include "backend/terminal/term_screen.h"
#include "core/app.h"
#include "core/children.h"
#include "core/log.h"
#include "core/pidns.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "viewer/viewer.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A program that ignores SIGTERM/SIGHUP gets SIGKILL after this. */
#define STOP_GRACE_MS 2000
/* Output read per wake-up before other work gets a turn: 64 KiB keeps a
 * turn of the loop short even for output that is slow to parse (random
 * bytes), while plain floods are still parsed in large runs. */
#define READ_BUDGET (64 * 1024)
/* Unwritten bytes past which the emulator's answers to the program's queries
 * (cursor position, device attributes) are dropped: a program that asks
 * without reading its input would otherwise grow the queue without end. */
#define ANSWER_QUEUE_MAX (64 * 1024)

static const struct backend_impl terminal_impl;

struct terminal *terminal_of(struct session *s)
{
    return s->backend;
}

char *terminal_exit_text(const struct terminal *t)
{
    if (!t->exited)
        return xstrdup("still running");
    if (t->exit_signal) {
        const char *name = sigabbrev_np(t->exit_signal);
        return xasprintf("killed by SIG%s", name ? name : "?");
    }
    return xasprintf("exited with status %d", t->exit_status);
}

static void update_poll(struct terminal *t);

static void flush_writes(struct terminal *t)
{
    while (t->outq.len > 0 && t->master >= 0) {
        ssize_t n = write(t->master, t->outq.data, t->outq.len);
        if (n > 0) {
            strbuf_consume(&t->outq, (size_t)n);
            t->written += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        /* EIO: nothing holds the terminal open any more. */
        log_debug("%s: write: %s", t->session->id, strerror(errno));
        strbuf_clear(&t->outq);
        break;
    }
    /* Answer the calls whose bytes are all out. */
    struct term_write **pp = &t->writes;
    while (*pp) {
        struct term_write *w = *pp;
        if (w->until <= t->written) {
            *pp = w->next;
            backend_call_done(w->bc, w->result, "%s", w->text);
            free(w->text);
            free(w);
        } else if (t->outq.len == 0) {
            /* The queue was dropped (the program closed its terminal). */
            *pp = w->next;
            char *why = terminal_exit_text(t);
            backend_call_fail(w->bc, "the program stopped reading its terminal (%s)", why);
            free(why);
            json_decref(w->result);
            free(w->text);
            free(w);
        } else {
            pp = &w->next;
        }
    }
    update_poll(t);
}

void terminal_write(struct terminal *t, const char *bytes, size_t len)
{
    /* Typed input: a prompt on screen now is the one it was typed at. */
    t->output_since_input = false;
    strbuf_append(&t->outq, bytes, len);
    t->queued += len;
    flush_writes(t);
}

#define PASTE_END "\x1b[201~"

/* Stop typing: the bytes of this call the program has not read yet are
 * taken out of the queue (whole characters; a paste is still closed so the
 * program leaves paste mode). */
static void write_cancel(struct backend_call *bc)
{
    struct terminal *t = terminal_of(bc->session);
    struct term_write **pp = &t->writes;
    while (*pp && (*pp)->bc != bc)
        pp = &(*pp)->next;
    if (!*pp)
        return;
    struct term_write *w = *pp;
    uint64_t from = w->start > t->written ? w->start : t->written;
    /* A cut inside a UTF-8 character or the paste's end marker keeps the
     * rest of it. */
    while (from < w->until && ((unsigned char)t->outq.data[from - t->written] & 0xc0) == 0x80)
        from++;
    if (w->paste_end && from > w->paste_end - strlen(PASTE_END) && from < w->paste_end)
        from = w->paste_end;
    bool close_paste = w->paste_end && from < w->paste_end;
    size_t off = (size_t)(from - t->written);
    size_t len = from < w->until ? (size_t)(w->until - from) : 0;
    if (len > 0) {
        memmove(t->outq.data + off, t->outq.data + off + len, t->outq.len - off - len);
        t->outq.len -= len;
        size_t added = 0;
        if (close_paste) {
            added = strlen(PASTE_END);
            strbuf_reserve(&t->outq, added);
            memmove(t->outq.data + off + added, t->outq.data + off, t->outq.len - off);
            memcpy(t->outq.data + off, PASTE_END, added);
            t->outq.len += added;
        }
        t->outq.data[t->outq.len] = '\0';
        t->queued = t->queued - len + added;
        for (struct term_write *o = w->next; o; o = o->next) {
            o->start = o->start - len + added;
            o->until = o->until - len + added;
            if (o->paste_end)
                o->paste_end = o->paste_end - len + added;
        }
    }
    uint64_t total = w->until - w->start;
    uint64_t typed = w->until - w->start - len;
    *pp = w->next;
    backend_call_fail(bc, "stopped after typing %llu of %llu bytes", (unsigned long long)typed,
                      (unsigned long long)total);
    json_decref(w->result);
    free(w->text);
    free(w);
    flush_writes(t);
}

void terminal_write_then_answer(struct terminal *t, struct backend_call *bc, uint64_t start,
                                uint64_t paste_end, json_t *result, char *text)
{
    struct term_write *w = xcalloc(1, sizeof *w);
    w->bc = bc;
    w->start = start;
    w->paste_end = paste_end;
    w->until = t->queued;
    bc->cancel = write_cancel;
    w->result = result;
    w->text = text;
    struct term_write **pp = &t->writes;
    while (*pp)
        pp = &(*pp)->next;
    *pp = w;
    flush_writes(t);
}

/* The emulator's answers to queries (DA, DSR) and encoded keys go to the program. */
static void screen_output(const char *buf, size_t len, void *ud)
{
    struct terminal *t = ud;
    if (t->feeding && t->outq.len + len > ANSWER_QUEUE_MAX) {
        if (!t->answers_dropped)
            log_warn("session %s: the program does not read its input; its queries "
                     "(e.g. ESC[6n) are no longer answered while %d KiB wait for it",
                     t->session->id, ANSWER_QUEUE_MAX / 1024);
        t->answers_dropped = true;
        return;
    }
    strbuf_append(&t->outq, buf, len);
    t->queued += len;
}

static void finalize(struct terminal *t);

static void read_output(struct terminal *t)
{
    /* A pty hands out at most a few KiB per read; the screen is fed once
     * per wake-up so a flood is parsed in large runs (see term_screen's
     * fast scrolling), up to a budget so other work gets its turn. */
    static char buf[READ_BUDGET];
    size_t total = 0;
    bool closed = false;
    while (total < sizeof buf) {
        ssize_t n = read(t->master, buf + total, sizeof buf - total);
        if (n > 0) {
            total += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        closed = true; /* EIO or EOF: every writer has closed the terminal */
        break;
    }
    if (total > 0) {
        t->feeding = true;
        term_screen_feed(t->screen, buf, total);
        t->feeding = false;
        terminal_run_feed(t, buf, total);
        terminal_history_feed(t, buf, total);
        t->output_since_input = true;
        viewer_session_output(t->session, buf, total);
        t->last_output_ms = uv_now(t->app->loop);
        /* Answers the emulator produced while parsing go out now. */
        if (t->outq.len)
            flush_writes(t);
        terminal_waits_check(t);
        terminal_record_changed(t);
        /* Only output that changed the screen: a still screen tells
         * subscribers nothing. */
        if (t->damaged) {
            session_changed(t->session, SESSION_CHANGED_SCREEN);
            backend_changes_notify(t->change_watchers);
        }
        t->damaged = false;
    }
    if (closed && t->poll_open) {
        uv_poll_stop(&t->poll);
        t->poll_events = 0;
    }
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    struct terminal *t = p->data;
    if (status < 0) {
        log_debug("%s: poll: %s", t->session->id, uv_strerror(status));
        uv_poll_stop(p);
        t->poll_events = 0;
        return;
    }
    if (events & UV_READABLE)
        read_output(t);
    if ((events & UV_WRITABLE) && t->master >= 0)
        flush_writes(t);
}

static void update_poll(struct terminal *t)
{
    if (!t->poll_open || t->master < 0 || t->exited || uv_is_closing((uv_handle_t *)&t->poll))
        return;
    int want = UV_READABLE | (t->outq.len ? UV_WRITABLE : 0);
    if (want != t->poll_events) {
        uv_poll_start(&t->poll, want, on_poll);
        t->poll_events = want;
    }
}

static void handle_closed(struct terminal *t)
{
    if (--t->closing == 0 && t->destroyed)
        free(t);
}

static void poll_closed(uv_handle_t *h)
{
    struct terminal *t = h->data;
    t->poll_open = false;
    if (t->master >= 0) {
        close(t->master);
        t->master = -1;
    }
    handle_closed(t);
}

static void kill_timer_closed(uv_handle_t *h)
{
    struct terminal *t = h->data;
    t->kill_timer_open = false;
    handle_closed(t);
}

/* SIGKILL every process left in the program's session (its terminal):
 * background jobs in process groups of their own that a hangup did not end,
 * such as `cmd & disown` or nohup. The session id cannot be reused while
 * any of them holds it. Several passes, in case one forked meanwhile. */
static void kill_session(pid_t sid)
{
    for (int pass = 0; pass < 5; pass++) {
        DIR *d = opendir("/proc");
        if (!d)
            return;
        int killed = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (*end || pid <= 0 || pid == (long)getpid())
                continue;
            char path[64], buf[512];
            snprintf(path, sizeof path, "/proc/%ld/stat", pid);
            FILE *f = fopen(path, "re");
            if (!f)
                continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = '\0';
            /* pid (comm) state ppid pgrp session ...; comm may hold spaces. */
            const char *p = strrchr(buf, ')');
            int ppid, pgrp, session;
            char state;
            if (p && sscanf(p + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) == 4 &&
                session == sid && state != 'Z' && kill((pid_t)pid, SIGKILL) == 0)
                killed++;
        }
        closedir(d);
        if (!killed)
            return;
        log_debug("killed %d leftover process%s of session %d", killed, killed == 1 ? "" : "es",
                  (int)sid);
    }
}

/* The program has exited: read what it left, make sure nothing of its
 * process group or terminal session lives on, and end the session. */
static void finalize(struct terminal *t)
{
    if (t->master >= 0 && t->poll_open)
        read_output(t);
    kill(-t->pid, SIGKILL);
    kill_session(t->pid);
    /* Whatever escaped the terminal's session (setsid, double forks) is in
     * the namespace: ending its init ends them. */
    pidns_destroy(t->ns);
    t->ns = NULL;
    if (t->poll_open && !uv_is_closing((uv_handle_t *)&t->poll)) {
        t->closing++;
        uv_close((uv_handle_t *)&t->poll, poll_closed);
    }
    if (t->kill_timer_open && !uv_is_closing((uv_handle_t *)&t->kill_timer)) {
        t->closing++;
        uv_close((uv_handle_t *)&t->kill_timer, kill_timer_closed);
    }
    /* Pending input can no longer be delivered. */
    strbuf_clear(&t->outq);
    flush_writes(t);
    char *how = terminal_exit_text(t);
    char *ended = xasprintf("the program %s", how);
    terminal_run_abort(t, ended);
    free(ended);
    free(how);
    terminal_waits_check(t);
    terminal_record_changed(t);
    /* A recording outlives its program, but not glovebox or a session_stop:
     * write and index it now. */
    if (t->app->shutting_down || t->session->state == SESSION_STOPPING)
        terminal_record_end(t);
    char *why = terminal_exit_text(t);
    log_info("%s: program %s", t->session->id, why);
    session_ended(t->session, why);
    free(why);
}

static void child_exited(pid_t pid, int status, void *ud)
{
    struct terminal *t = ud;
    t->exited = true;
    if (WIFSIGNALED(status)) {
        t->exit_signal = WTERMSIG(status);
        t->exit_status = -1;
    } else {
        t->exit_status = WEXITSTATUS(status);
    }
    json_t *detail = json_object();
    json_object_set_new(detail, "exit_status",
                        t->exit_signal ? json_null() : json_integer(t->exit_status));
    if (t->exit_signal) {
        const char *name = sigabbrev_np(t->exit_signal);
        json_object_set_new(detail, "signal", json_sprintf("SIG%s", name ? name : "?"));
    }
    session_event(t->session, "program_exited", detail);
    finalize(t);
}

static void kill_now(uv_timer_t *timer)
{
    struct terminal *t = timer->data;
    if (t->exited)
        return;
    if (uv_timer_get_repeat(timer) == 0) {
        log_info("%s: still running %d ms after SIGTERM; sending SIGKILL", t->session->id,
                 STOP_GRACE_MS);
        /* Look again until SIGCHLD reports the exit: once the terminal has
         * closed, nothing else may keep the loop running (at shutdown the
         * SIGCHLD watcher does not), and the session would never end. The
         * unreaped child keeps its pid, so this cannot hit another process. */
        uv_timer_start(timer, kill_now, 100, 100);
    }
    kill(-t->pid, SIGKILL);
    kill(t->pid, SIGKILL);
}

static void terminal_stop(struct session *s)
{
    struct terminal *t = terminal_of(s);
    if (t->exited) {
        session_ended(s, "stopped");
        return;
    }
    t->stopping = true;
    terminal_waits_abort(t, "the session is being stopped");
    terminal_run_abort(t, "the session is being stopped");
    /* Interactive shells ignore SIGTERM but not SIGHUP, which is what a
     * closing terminal sends. */
    kill(-t->pid, SIGHUP);
    kill(-t->pid, SIGTERM);
    kill(-t->pid, SIGCONT);
    uv_timer_start(&t->kill_timer, kill_now, STOP_GRACE_MS, 0);
}

static void terminal_destroy(struct session *s)
{
    struct terminal *t = terminal_of(s);
    if (!t)
        return;
    if (!t->exited) {
        /* Only at exit after a failed shutdown: never leave it running. */
        children_forget(t->pid);
        kill(-t->pid, SIGKILL);
        kill(t->pid, SIGKILL);
    }
    pidns_destroy(t->ns);
    t->ns = NULL;
    terminal_waits_abort(t, "the session was removed");
    terminal_run_abort(t, "the session was removed");
    terminal_record_destroy(t);
    if (t->master >= 0) {
        close(t->master);
        t->master = -1;
    }
    term_screen_destroy(t->screen);
    t->screen = NULL;
    strbuf_finish(&t->outq);
    strbuf_finish(&t->history);
    json_decref(t->readers);
    t->readers = NULL;
    json_decref(t->command);
    t->command = NULL;
    json_decref(t->read_lines);
    t->read_lines = NULL;
    json_decref(t->read_text);
    t->read_text = NULL;
    terminal_answer_drop(t);
    s->backend = NULL;
    /* A session ended this very turn of the loop can be pruned at once:
     * its handles' close callbacks have yet to run, and they free it. */
    if (t->closing > 0)
        t->destroyed = true;
    else
        free(t);
}

static json_t *terminal_describe(struct session *s)
{
    struct terminal *t = terminal_of(s);
    int cols, rows;
    term_screen_size(t->screen, &cols, &rows);
    json_t *o = json_pack("{s:i, s:i, s:i, s:O, s:b}", "pid", (int)t->pid, "cols", cols, "rows",
                          rows, "command", t->command, "exited", t->exited);
    if (t->exited) {
        json_object_set_new(o, "exit_status",
                            t->exit_signal ? json_null() : json_integer(t->exit_status));
    }
    return o;
}

static void screen_changed(void *ud)
{
    /* read_output reacts once per batch instead of per feed. */
    struct terminal *t = ud;
    t->damaged = true;
}

static bool watch_changes(struct session *s, struct backend_change_watch *w, bool on)
{
    struct terminal *t = s->backend;
    if (!t)
        return !on;
    /* Output is read as it comes: nothing is waiting to be told. */
    if (on && !backend_changes_has(t->change_watchers, w))
        backend_changes_add(&t->change_watchers, w);
    else if (!on)
        backend_changes_remove(&t->change_watchers, w);
    return true;
}

struct session *terminal_start(struct app *app, const struct terminal_options *o, char **err)
{
    struct pidns *ns;
    if (!pidns_create(&ns, err))
        return NULL;
    struct term_pty_options po = {.argv = o->argv,
                                  .program = o->program,
                                  .cwd = o->cwd,
                                  .env = o->env,
                                  .cols = o->cols,
                                  .rows = o->rows,
                                  .ns = ns};
    struct term_pty pty;
    if (!term_pty_spawn(&po, &pty, err)) {
        pidns_destroy(ns);
        return NULL;
    }
    struct terminal *t = xcalloc(1, sizeof *t);
    t->app = app;
    t->ns = ns;
    t->pid = pty.pid;
    t->master = pty.master;
    t->cols = o->cols;
    t->rows = o->rows;
    strbuf_init(&t->outq);
    strbuf_init(&t->history);
    t->screen = term_screen_create(o->cols, o->rows, o->scrollback);
    term_screen_set_output(t->screen, screen_output, t);
    term_screen_set_damage_cb(t->screen, screen_changed, t);
    t->command = json_array();
    if (o->argv) {
        for (const char *const *a = o->argv; *a; a++)
            json_array_append_new(t->command, json_string(*a));
    } else {
        json_array_append_new(t->command, json_string(pty.program));
    }
    t->last_output_ms = uv_now(app->loop);

    struct session *s = session_add(app->sessions, &terminal_impl, o->name, o->client);
    s->backend = t;
    t->session = s;
    uv_poll_init(app->loop, &t->poll, t->master);
    t->poll.data = t;
    t->poll_open = true;
    uv_timer_init(app->loop, &t->kill_timer);
    t->kill_timer.data = t;
    t->kill_timer_open = true;
    update_poll(t);
    /* Live before the exit watch: a program that already ended is reported
     * at once (children_watch), and it ends a session that was live. */
    session_set_live(s);
    children_watch(t->pid, child_exited, t);
    log_info("%s: started pid %d", s->id, (int)t->pid);
    return s;
}

static const struct backend_impl terminal_impl = {
    .kind = "terminal",
    .stop = terminal_stop,
    .destroy = terminal_destroy,
    .describe = terminal_describe,
    .read_text = terminal_read_text_op,
    .snapshot = terminal_snapshot_op,
    .screenshot = terminal_screenshot_op,
    .type_text = terminal_type_text_op,
    .press_key = terminal_press_key_op,
    .wait_for = terminal_wait_op,
    .run = terminal_run_op,
    .resize = terminal_resize_op,
    .record_start = terminal_record_start_op,
    .record_stop = terminal_record_stop_op,
    .capture = terminal_capture_op,
    .reports_changes = true,
    .watch_changes = watch_changes,
    .view_replay = terminal_view_replay,
    .view_input = terminal_view_input,
};
