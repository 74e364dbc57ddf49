/* The session's long-lived shell for input: one `shell,v2,raw:` service
 * with no command (the device's sh reading stdin), opened by the first
 * input and kept, so a tap is one line written to it instead of a new adb
 * connection, a transport switch and a new sh on the device. Each command
 * is written as `CMD; echo "@@glovebox-done:$?@@"`: sh runs the lines in
 * order, so the markers answer the commands in the order they were sent;
 * what came before a marker is that command's output, $? its status.
 * Commands with a newline (typed text) take a step of their own; commands
 * sent here must not read stdin (it holds the next lines): `input` and
 * `am` do not. A device
 * or server that will not keep a shell open (the service refused) gets
 * one step per command for the rest of the session. */
#include "backend/android/internal.h"
#include "core/app.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

#define MARK     "@@glovebox-done:"
#define MARK_LEN (sizeof MARK - 1)

struct shell_cmd {
    struct shell_cmd *next;
    struct backend_call *bc;
    android_step_fn step;
    char *cmd;
    struct strbuf out, err;
};

struct android_shell {
    struct android *a;
    struct adb_stream *stream; /* until its done */
    struct shell_cmd *head;    /* written, not answered: in order */
    struct shell_cmd **tail;
    struct strbuf buf; /* stdout not yet matched to a marker */
    uv_timer_t timer;  /* the head's deadline */
    bool ending;       /* close-stdin sent: no more commands */
};

static void cmd_free(struct shell_cmd *c)
{
    free(c->cmd);
    strbuf_finish(&c->out);
    strbuf_finish(&c->err);
    free(c);
}

static struct shell_cmd *pop(struct android_shell *s)
{
    struct shell_cmd *c = s->head;
    s->head = c->next;
    if (!s->head)
        s->tail = &s->head;
    return c;
}

static void on_timeout(uv_timer_t *t)
{
    struct android_shell *s = t->data;
    char *why = xasprintf("%s did not answer \"%.60s\" within %d ms", s->a->serial, s->head->cmd,
                          ANDROID_TIMEOUT_MS);
    s->ending = true; /* later commands take a new shell */
    adb_stream_close(s->stream, ERROR_DEVICE_UNAVAILABLE, why);
    free(why);
}

static void arm(struct android_shell *s)
{
    if (s->head)
        uv_timer_start(&s->timer, on_timeout, ANDROID_TIMEOUT_MS, 0);
    else
        uv_timer_stop(&s->timer);
}

/* The head command's answer, as a step of its own would have given it. */
static void answer_head(struct android_shell *s, int status)
{
    struct shell_cmd *c = pop(s);
    struct adb_reply r = {
        .ok = true,
        .out = (const uint8_t *)(c->out.data ? c->out.data : ""),
        .out_len = c->out.len,
        .err = (const uint8_t *)(c->err.data ? c->err.data : ""),
        .err_len = c->err.len,
        .exit_code = status,
        .opened = true,
    };
    struct android *a = s->a;
    android_stream_acted(a);
    c->step(c->bc, &r);
    cmd_free(c);
    arm(s);
    android_release(a); /* the shell's own hold keeps a */
}

/* A marker at p (MARK already matched): its status and the bytes it
 * takes (through the newline), or 0 while it is incomplete. */
static size_t marker(const char *p, size_t n, int *status)
{
    size_t i = MARK_LEN;
    int v = 0;
    while (i < n && p[i] >= '0' && p[i] <= '9' && i < MARK_LEN + 3)
        v = v * 10 + (p[i++] - '0');
    if (i + 3 > n)
        return 0;
    *status = v;
    return memcmp(p + i, "@@\n", 3) == 0 ? i + 3 : (size_t)-1;
}

static void on_packet(void *ud, int id, const uint8_t *data, size_t len)
{
    struct android_shell *s = ud;
    if (id == 2) {
        if (s->head)
            strbuf_append(&s->head->err, (const char *)data, len);
        return;
    }
    strbuf_append(&s->buf, (const char *)data, len);
    for (;;) {
        char *m = memmem(s->buf.data, s->buf.len, MARK, MARK_LEN);
        if (!m)
            break;
        size_t before = (size_t)(m - s->buf.data);
        int status = 0;
        size_t took = marker(m, s->buf.len - before, &status);
        if (took == 0)
            break;
        if (took == (size_t)-1) { /* not ours after all: output */
            took = MARK_LEN;
            if (s->head)
                strbuf_append(&s->head->out, s->buf.data, before + took);
            strbuf_consume(&s->buf, before + took);
            continue;
        }
        if (s->head)
            strbuf_append(&s->head->out, s->buf.data, before);
        strbuf_consume(&s->buf, before + took);
        if (s->head)
            answer_head(s, status);
    }
    if (s->buf.len > ANDROID_MAX_TEXT) {
        s->ending = true;
        adb_stream_close(s->stream, ERROR_TOOL_FAILED,
                         "the device's shell printed more than 8 MB without finishing a command");
        strbuf_consume(&s->buf, s->buf.len);
    }
}

static void shell_closed(uv_handle_t *h)
{
    struct android_shell *s = h->data;
    struct android *a = s->a;
    strbuf_finish(&s->buf);
    free(s);
    android_release(a);
}

static void on_done(void *ud, const struct adb_reply *r)
{
    struct android_shell *s = ud;
    struct android *a = s->a;
    s->stream = NULL;
    if (a->shell == s)
        a->shell = NULL;
    uv_timer_stop(&s->timer);
    /* Refused before it opened (a server or device that keeps no shell
     * open): nothing ran; one step per command from now on. */
    bool refused = !r->ok && !r->opened && !r->device_lost &&
                   (r->code == ERROR_NOT_SUPPORTED || r->code == ERROR_TOOL_FAILED);
    if (refused)
        a->shell_off = true;
    char *ended =
        r->ok ? xasprintf("the shell on %s ended (exit status %d)", a->serial, r->exit_code) : NULL;
    if (s->head) /* what they did is not known */
        android_stream_acted(a);
    while (s->head) {
        struct shell_cmd *c = pop(s);
        if (refused) {
            android_run(c->bc, ADB_SHELL_V2, c->cmd, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, c->step);
        } else {
            struct adb_reply fr = {
                .ok = false,
                .code = r->ok ? ERROR_DEVICE_UNAVAILABLE : r->code,
                .error = r->ok ? ended : r->error,
                .device_lost = r->device_lost,
                .out = (const uint8_t *)"",
                .err = (const uint8_t *)"",
            };
            c->step(c->bc, &fr);
        }
        cmd_free(c);
        android_release(a);
    }
    free(ended);
    if (r->device_lost)
        android_device_lost(a, r->error);
    if (!uv_is_closing((uv_handle_t *)&s->timer))
        uv_close((uv_handle_t *)&s->timer, shell_closed);
}

static struct android_shell *shell_open(struct android *a)
{
    struct android_shell *s = xcalloc(1, sizeof *s);
    s->a = a;
    s->tail = &s->head;
    uv_timer_init(a->app->loop, &s->timer);
    s->timer.data = s;
    android_hold(a); /* released once the stream and its timer are gone */
    s->stream = adb_stream_open(a->app->loop, &a->srv, a->serial,
                                "shell,v2,raw:", ANDROID_TIMEOUT_MS, on_packet, on_done, s);
    return s;
}

void android_shell_run(struct backend_call *bc, const char *cmd, android_step_fn step)
{
    struct android *a = android_of(bc->session);
    if (a->shell_off || a->stopping || strchr(cmd, '\n') || (a->shell && a->shell->ending)) {
        android_run(bc, ADB_SHELL_V2, cmd, ANDROID_TIMEOUT_MS, ANDROID_MAX_TEXT, step);
        return;
    }
    if (!a->shell)
        a->shell = shell_open(a);
    struct android_shell *s = a->shell;
    struct shell_cmd *c = xcalloc(1, sizeof *c);
    c->bc = bc;
    c->step = step;
    c->cmd = xstrdup(cmd);
    *s->tail = c;
    s->tail = &c->next;
    android_hold(a);
    char *line = xasprintf("%s; echo \"" MARK "$?@@\"\n", cmd);
    adb_stream_write(s->stream, line, strlen(line));
    free(line);
    if (s->head == c)
        arm(s);
}

void android_shell_end(struct android *a)
{
    struct android_shell *s = a->shell;
    if (!s || !s->stream || s->ending)
        return;
    s->ending = true;
    /* Commands on their way still run (sh reads to the end of its input,
     * then exits); none left: end it now. */
    if (s->head)
        adb_stream_end_input(s->stream);
    else
        adb_stream_close(s->stream, ERROR_SESSION_EXPIRED, "the session ended");
}
