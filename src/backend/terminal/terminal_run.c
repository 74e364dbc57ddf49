/* terminal_run: a shell command typed at the prompt, answered with its
 * output and exit status. Compiled into the executable; the work is the
 * terminal backend's run operation (run.c, in the module). */
#include "backend/backend.h"
#include "backend/terminal/terminal.h"
#include "mcp/confirm.h"
#include "terminal_run.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(run), "run a command", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *command = json_object_get(args, "command");
    if (!json_is_string(command))
        return false;
    strbuf_puts(q, "run ");
    confirm_quote_json(q, command, CONFIRM_QUOTE_MAX);
    confirm_session_phrase(q, args, "in");
    return true;
}

/* It types into the terminal: whoever may not type there may not run. */
static const struct tool *acts_as(const json_t *args)
{
    (void)args;
    return &tool_type_text;
}

const struct tool tool_terminal_run = {
    .name = "terminal_run",
    .title = "Run a shell command",
    .description = "Types a command at a terminal's shell prompt (POSIX shell) and answers its "
                   "output and exit status, or its output so far at timeout_ms (timed_out).",
    .input_schema = tool_terminal_run_input_schema,
    .output_schema = tool_terminal_run_output_schema,
    .annotations = {.read_only = false, .destructive = true, .idempotent = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
    .acts_as = acts_as,
    .group = "terminal",
};
