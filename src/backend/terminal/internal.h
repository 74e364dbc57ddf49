/* The terminal backend's shared state; private to src/backend/terminal/. */
#pragma once
#include "backend/backend.h"
#include "core/strbuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

struct pidns;
struct app;
struct session;
struct term_screen;
struct term_wait;
struct term_recording;

/* A type_text/press_key call waiting for its bytes to reach the program. */
struct term_write {
    struct backend_call *bc;
    uint64_t start;     /* its bytes are [start, until) of everything queued */
    uint64_t until;     /* done when this many bytes in total have been written */
    uint64_t paste_end; /* just after its bracketed-paste end marker; 0: no paste */
    json_t *result;
    char *text;
    struct term_write *next;
};

struct terminal {
    struct session *session;
    struct app *app;
    pid_t pid;
    struct pidns *ns; /* every process of the session lives here; NULL: uncontained */
    int master;       /* pty master fd; -1 once closed */
    uv_poll_t poll;
    bool poll_open;
    int poll_events;
    struct term_screen *screen;
    json_t *command; /* argv as given, for describe */
    int cols, rows;

    /* Bytes for the program, written as the pty accepts them. */
    struct strbuf outq;
    uint64_t queued, written;
    bool feeding;         /* the emulator parses output: what it sends are answers */
    bool answers_dropped; /* answers were dropped (logged once) */
    struct term_write *writes;

    uint64_t last_output_ms;                      /* uv_now() of the latest output */
    bool damaged;                                 /* the screen changed during the current read */
    struct backend_change_watch *change_watchers; /* computer's settling (watch_changes) */
    bool output_since_input;                      /* output arrived after the latest typed input */
    struct term_wait *waits;
    struct term_run *run; /* the terminal_run in progress; NULL: none */
    /* The program's raw output, newest HISTORY_MAX bytes at most
     * (history.c); history_end counts every byte ever read. readers:
     * {caller: offset of its last read}, for read_text since "last". */
    struct strbuf history;
    uint64_t history_end;
    json_t *readers;
    struct term_recording *rec;
    /* The screen as the latest read_text or snapshot gave it: its rows
     * (JSON strings) and joined text, handed out again for rows that did
     * not change (JSON strings are never changed once made). NULL: none. */
    json_t *read_lines, *read_text;
    /* read_text's whole answer without scrollback, given again while the
     * screen, cursor, title and exit read as they did (ops.c). Its JSON
     * is frozen: the text is written once (core/json_out.h). */
    struct {
        json_t *structured, *content; /* NULL: none kept */
        uint64_t changes;             /* term_screen_changes() then */
        int cols, rows, cursor_row, cursor_col;
        bool cursor_visible, exited;
        int exit_status, exit_signal;
        char *title;
    } answer;

    bool exited;
    int exit_status; /* when exited normally; -1 if by signal */
    int exit_signal; /* when killed by a signal; 0 otherwise */
    bool stopping;
    uv_timer_t kill_timer;
    bool kill_timer_open;
    /* Handle closes still in flight: the session may be destroyed before
     * they finish (pruned as soon as it ends), so the last one frees it. */
    int closing;
    bool destroyed;
};

struct terminal *terminal_of(struct session *s);
/* "exited with status 0", "killed by SIGKILL". Caller frees. */
char *terminal_exit_text(const struct terminal *t);
/* Queue bytes for the program; done (if given) completes once written. */
void terminal_write(struct terminal *t, const char *bytes, size_t len);
/* Answer bc once the bytes queued since start are written. Cancelling bc
 * drops what the program has not read yet (closing a bracketed paste) and
 * answers how much was typed. */
void terminal_write_then_answer(struct terminal *t, struct backend_call *bc, uint64_t start,
                                uint64_t paste_end, json_t *result, char *text);

/* Waits (wait.c). */
void terminal_wait_op(struct backend_call *bc);
/* Re-check every wait after output, a resize or the program's exit. */
void terminal_waits_check(struct terminal *t);
/* Answer every wait: the session is going away. */
void terminal_waits_abort(struct terminal *t, const char *why);

/* Output history (history.c). */
/* s[0..n) as text: escape sequences and controls out, CR LF as LF. */
void terminal_output_clean(const char *s, size_t n, struct strbuf *out);
void terminal_history_feed(struct terminal *t, const char *data, size_t len);
/* bc's caller has read everything up to now. */
void terminal_history_mark(struct terminal *t, const struct backend_call *bc);
/* read_text {since: "last"}: the output since the caller's last read. */
/* Forgets read_text's kept answer (ops.c). */
void terminal_answer_drop(struct terminal *t);
void terminal_read_since_op(struct backend_call *bc);

/* terminal_run (run.c). */
void terminal_run_op(struct backend_call *bc);
/* Look for the running command's marks in output read from the program. */
void terminal_run_feed(struct terminal *t, const char *data, size_t len);
/* Answer the running command (the program exited, the session is going
 * away) with what it printed so far. */
void terminal_run_abort(struct terminal *t, const char *why);

/* Rendering (render.c). */
void terminal_screenshot_op(struct backend_call *bc);
void terminal_capture_op(struct backend_call *bc);
/* A renderer shared by all terminals, guarded by a mutex: call from the
 * worker pool. Returns NULL (with *err) if no font can be loaded. */
struct glyph_renderer *terminal_renderer_lock(char **err);
void terminal_renderer_unlock(void);

/* Recording (record.c). */
void terminal_record_start_op(struct backend_call *bc);
void terminal_record_stop_op(struct backend_call *bc);
/* The screen changed: maybe take a frame. */
void terminal_record_changed(struct terminal *t);
/* The session is being destroyed: write what was recorded, synchronously. */
void terminal_record_destroy(struct terminal *t);
/* The session is ending (stopped, or glovebox shuts down): write and index
 * the recording without waiting for record_stop. */
void terminal_record_end(struct terminal *t);

/* The live viewer (view.c): the screen as bytes xterm.js replays. */
char *terminal_view_replay(struct session *s, size_t *len, int *cols, int *rows);
/* Keys from a person who took control in the viewer. */
void terminal_view_input(struct session *s, const char *bytes, size_t len);

/* Operations (ops.c). */
void terminal_read_text_op(struct backend_call *bc);
void terminal_snapshot_op(struct backend_call *bc);
void terminal_type_text_op(struct backend_call *bc);
void terminal_press_key_op(struct backend_call *bc);
void terminal_resize_op(struct backend_call *bc);
