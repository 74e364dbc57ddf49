/* The terminal backend: a program on a pseudo-terminal behind glovebox's
 * own terminal emulator (term_screen, vt_*). Output is read on the loop as it arrives; waits are
 * checked when it does; screenshots and recordings are rendered on the worker pool. */
#pragma once
#include <stdbool.h>

struct app;
struct session;
struct session_client;
struct tool;

struct terminal_options {
    const char *const *argv; /* NULL-terminated; NULL = the user's shell */
    const char *program;     /* absolute path to execute (core/program_path.h); NULL = argv[0]
                                searched in PATH */
    const char *cwd;         /* NULL = glovebox's working directory */
    const char *const *env;  /* "KEY=value" added to the environment; may be NULL */
    int cols, rows;          /* 2..1000 */
    int scrollback;          /* lines kept above the screen */
    const char *name;        /* optional session label */
    const struct session_client *client; /* who it belongs to (session_add) */
};

/* Start the program. On failure returns NULL with *err set (the OS reason:
 * command not found, no such directory, …). */
struct session *terminal_start(struct app *app, const struct terminal_options *o, char **err);

/* Free what terminal sessions share (the glyph renderer). At exit. */
void terminal_release_shared(void);

/* What the terminal module offers (backend_load("terminal")); the tools in
 * this folder that the executable holds reach the module through it. */
struct terminal_api {
    struct session *(*start)(struct app *app, const struct terminal_options *o, char **err);
};

/* The tools that start terminal sessions (kinds.c lists them). */
extern const struct tool tool_terminal_start;
extern const struct tool tool_terminal_run;
