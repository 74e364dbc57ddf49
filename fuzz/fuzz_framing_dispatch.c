/* libFuzzer harness: bytes from a client, through the stdio framing decoder
 * and the protocol engine, to serialised replies.
 *
 * Input layout (see fuzz/README.md):
 *   byte 0      flags: bits 0-1 pick the message size limit (256 B, 4 KiB,
 *               64 KiB, 16 MiB), bit 2 sets a page size of 1 (exercises list
 *               cursors), bits 4-7 give n, the number of chunk-size bytes
 *   bytes 1..n  chunk sizes (each byte + 1), used in turn; n = 0 feeds the
 *               whole stream at once
 *   the rest    the byte stream a client writes to glovebox's stdin
 * The first bytes only shape how the stream arrives, so the fuzzer can
 * split a message at every possible point, as a pipe does.
 *
 * Safety: the fuzzer would soon learn to start a terminal running the user's
 * shell and type into it, i.e. run random commands. terminal_start is
 * therefore registered in a sandboxed form whose program is always /bin/cat
 * (so the terminal, its screen, waits, screenshots and recordings are still
 * exercised), $SHELL is /bin/cat too, and the data directory is a private
 * temporary one, removed at exit. Every session is stopped, and the session
 * registry replaced, after each input.
 *
 * The conformance suite's prompts and resources are registered too, so
 * prompts/get, completion/complete and subscriptions are reachable. */
#include "../tests/fixtures/fixtures.h"
#include "backend/backend.h"
#include "backend/terminal/terminal.h"
#include "core/app.h"
#include "core/children.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "mcp/framing.h"
#include "mcp/jsonrpc.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "record/recordings.h"
#include "session/session.h"
#include "tools/tools.h"

#include <ftw.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);
const char *__lsan_default_suppressions(void);

static const size_t limits[] = {256, 4096, 65536, 16u * 1024 * 1024};

static uv_loop_t loop;
static struct app app;
/* GLOVEBOX_FUZZ_ECHO=1 prints every outgoing frame to stderr, for looking
 * at what a reproducer does. */
static bool echo;

/* UBSan reports are failures, not warnings, in a fuzz run. */
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

/* fontconfig keeps (and LeakSanitizer reports) parts of its configuration
 * loaded once by FcInit, which the status tool reaches; not ours to free. */
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

/* Everything the server sends goes through the same serialisation and
 * framing as on stdio, then is dropped. A message jansson cannot serialise,
 * or whose serialisation does not parse back, would reach a real client as
 * garbage: that is a bug, so it crashes the run. */
static void send_message(struct mcp_conn *c, void *stream, json_t *msg, bool final, void *ud)
{
    const struct framing *f = ud;
    if (!msg)
        return;
    char *body = json_dumps(msg, JSON_COMPACT);
    if (!body) {
        fputs("fuzz: json_dumps failed on an outgoing message\n", stderr);
        abort();
    }
    size_t len = strlen(body);
    json_error_t jerr;
    /* JSON.parse and friends accept \u0000 in strings, so we do too. */
    json_t *back = json_loadb(body, len, JSON_ALLOW_NUL, &jerr);
    if (!back) {
        fprintf(stderr, "fuzz: outgoing message does not parse back (%s): %.200s\n", jerr.text,
                body);
        abort();
    }
    json_decref(back);
    struct strbuf out;
    strbuf_init(&out);
    framing_encode(f->mode == FRAMING_CONTENT_LENGTH ? FRAMING_CONTENT_LENGTH : FRAMING_NDJSON,
                   body, len, &out);
    if (echo)
        fprintf(stderr, "%s%s", final ? "" : "(not final) ", out.data);
    strbuf_finish(&out);
    free(body);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    remove(path);
    return 0;
}

/* Everything below the data directory, not the directory itself. */
static int remove_below(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (ftw->level > 0)
        remove(path);
    return 0;
}

static void remove_data_dir(void)
{
    if (app.data_dir)
        nftw(app.data_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static struct tool sandboxed_terminal_start;

/* The real terminal_start with the program replaced by /bin/cat and the
 * dynamic loader's variables dropped; everything else (size, scrollback,
 * cwd, name, other variables) is passed on as fuzzed. */
static void sandboxed_terminal_handler(struct tool_call *call)
{
    json_t *args = (json_t *)tool_call_args(call); /* owned by the call */
    json_object_set_new(args, "command", json_pack("[s]", "/bin/cat"));
    json_t *env = json_object_get(args, "env");
    if (json_is_object(env)) {
        const char *key;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(env, tmp, key, v)
        {
            if (strncmp(key, "LD_", 3) == 0)
                json_object_del(env, key);
        }
    }
    tool_terminal_start.handler(call);
}

/* Registers what tools_register_all registers, in the same order, except
 * the tools that start programs: a session's program is a fork and exec of
 * this ASan-sized process, which cost more than twenty inputs (72 exec/s
 * with them, against the 1,000/s a fuzzer needs to explore). Calls to the
 * screen tools then fail with "no session" after their arguments were
 * validated, which is the dispatch this harness is for; the terminal itself
 * is fuzzed by fuzz_term_screen. With terminals (GLOVEBOX_FUZZ_TERMINALS=1),
 * terminal_start is registered in its sandboxed form. desktop_start (an X
 * server, a window manager) never is. */
static void register_sandboxed_tools(bool terminals)
{
    tools_register_all();
    size_t n = registry_count();
    const struct tool **list = calloc(n, sizeof *list);
    if (!list)
        abort();
    for (size_t i = 0; i < n; i++)
        list[i] = registry_at(i)->tool;
    registry_clear();
    sandboxed_terminal_start = tool_terminal_start;
    sandboxed_terminal_start.handler = sandboxed_terminal_handler;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i]->name, "desktop_start") == 0)
            continue;
        if (list[i] == &tool_terminal_start) {
            if (terminals)
                registry_add(&sandboxed_terminal_start);
            continue;
        }
        registry_add(list[i]);
    }
    free(list);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* Quiet by default; GLOVEBOX_LOG=debug also fuzzes the log formatting. */
    log_set_level(LOG_ERROR);
    log_init();
    echo = getenv("GLOVEBOX_FUZZ_ECHO") != NULL;
    setenv("SHELL", "/bin/cat", 1);
    /* No PID namespace per terminal: making one clones the whole (ASan-sized)
     * process once more per terminal_start, which was half of a run's time,
     * and no byte of the input reaches that code. Sessions still end with
     * their program, and end_sessions waits for that. */
    setenv("GLOVEBOX_CONTAINMENT", "none", 1);
    if (uv_loop_init(&loop) != 0)
        abort();
    app.loop = &loop;
    app.started_ms = uv_now(&loop);
    app.max_message = limits[3];
    app.page_size = 100;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/glovebox-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    app.data_dir = strdup(dir);
    atexit(remove_data_dir);
    app.sessions = session_registry_create(&app);
    children_init(&loop);
    register_sandboxed_tools(getenv("GLOVEBOX_FUZZ_TERMINALS") != NULL);
    conformance_prompts_register();
    conformance_resources_register();
    /* Load what the status tool loads once per process (fontconfig), so the
     * first input that calls it is not charged with a one-time allocation. */
    json_decref(backend_check_all());
    return 0;
}

/* Hands every complete message (or framing problem) to the connection, as
 * the stdio transport does. */
static void deliver(struct framing *f, struct mcp_conn *conn)
{
    const char *msg;
    size_t len;
    for (;;) {
        enum framing_event ev = framing_next(f, &msg, &len);
        if (ev == FRAMING_NEED_MORE)
            return;
        if (ev == FRAMING_MESSAGE)
            mcp_conn_receive(conn, msg, len, NULL);
        else if (ev == FRAMING_TOO_LARGE)
            mcp_conn_report(conn, JSONRPC_INVALID_REQUEST, "Invalid Request: message too large");
        else
            mcp_conn_report(conn, JSONRPC_PARSE_ERROR,
                            "Parse error: malformed Content-Length header block");
    }
}

struct next_timer {
    uv_timer_t *timer; /* the active timer due first */
    uint64_t due;
    bool other; /* something else keeps the loop alive */
};

static void find_next_timer(uv_handle_t *h, void *ud)
{
    struct next_timer *n = ud;
    if (!uv_is_active(h) || !uv_has_ref(h))
        return;
    if (h->type != UV_TIMER) {
        n->other = true;
        return;
    }
    uint64_t due = uv_timer_get_due_in((uv_timer_t *)h);
    if (!n->timer || due < n->due) {
        n->timer = (uv_timer_t *)h;
        n->due = due;
    }
}

/* When nothing but a timer keeps the loop alive (no request in the thread
 * pool, no handle but timers), waiting for it only burns wall-clock time: a
 * recording's next frame at 5 fps kept every input that started one idle
 * for up to 200 ms. Let that time pass at once: the timer due first is made
 * due now, the others keep their order behind it. */
static bool skip_to_next_timer(void)
{
    struct next_timer n = {0};
    if (loop.active_reqs.count > 0)
        return false;
    uv_walk(&loop, find_next_timer, &n);
    if (n.other || !n.timer || n.due == 0)
        return false;
    uv_timer_start(n.timer, n.timer->timer_cb, 0, uv_timer_get_repeat(n.timer));
    return true;
}

static void all_stopped(void *ud)
{
    *(bool *)ud = true;
}

/* Sessions belong to the server, not the connection: stop them all and start
 * the next input with an empty registry (ids from 1 again), after the loop
 * has finished everything they left (a session that never ends, or work that
 * never finishes, hangs here and shows up as a libFuzzer timeout). The
 * recordings index and the files in the data directory go too: the next
 * input must not list this one's recordings, and an input whose allocations
 * outlive it makes libFuzzer re-run it under a full leak check (a heap scan
 * that cost more than the input itself). */
static void end_sessions(void)
{
    bool done = false;
    session_registry_stop_all(app.sessions, all_stopped, &done);
    while (!done)
        uv_run(&loop, UV_RUN_ONCE);
    /* Every session has ended, so no program's exit or output is still to
     * come: what is left are timers and thread-pool jobs. */
    while (uv_loop_alive(&loop)) {
        skip_to_next_timer();
        uv_run(&loop, UV_RUN_ONCE);
    }
    session_registry_destroy(app.sessions);
    app.sessions = session_registry_create(&app);
    recordings_clear();
    nftw(app.data_dir, remove_below, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    size_t n_chunks = flags >> 4;
    if (size < 1 + n_chunks)
        return 0;
    const uint8_t *chunks = data + 1;
    const char *stream = (const char *)data + 1 + n_chunks;
    size_t stream_len = size - 1 - n_chunks;

    app.page_size = flags & 4 ? 1 : 100;
    struct framing f;
    framing_init(&f, limits[flags & 3]);
    struct mcp_transport t = {.name = "fuzz", .send = send_message, .ud = &f};
    struct mcp_conn *conn = mcp_conn_create(&app, &t);

    size_t off = 0, k = 0;
    while (off < stream_len) {
        size_t n = n_chunks ? (size_t)chunks[k++ % n_chunks] + 1 : stream_len;
        if (n > stream_len - off)
            n = stream_len - off;
        framing_push(&f, stream + off, n);
        deliver(&f, conn);
        /* Let timers and completions of asynchronous tools run between reads
         * (only when there are any: a poll per 1-byte chunk is slow). */
        if (uv_loop_alive(&loop))
            uv_run(&loop, UV_RUN_NOWAIT);
        off += n;
    }
    /* End of input: a last NDJSON line without its newline still counts. */
    if (f.mode == FRAMING_NDJSON && framing_pending(&f) > 0) {
        framing_push(&f, "\n", 1);
        deliver(&f, conn);
    }

    /* The client goes away: in-flight calls are cancelled and must not leak
     * into the next input. */
    mcp_conn_destroy(conn);
    for (int i = 0; i < 4; i++)
        uv_run(&loop, UV_RUN_NOWAIT);
    end_sessions();
    framing_finish(&f);
    return 0;
}
