/* type_text: text as if typed. */
#include "backend/backend.h"
#include "mcp/confirm.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "type_text.schema.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(type_text), "type", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *text = json_object_get(args, "text");
    if (!json_is_string(text))
        return false;
    strbuf_puts(q, "type ");
    confirm_quote_json(q, text, CONFIRM_QUOTE_MAX);
    confirm_session_phrase(q, args, "into");
    return true;
}

const struct tool tool_type_text = {
    .name = "type_text",
    .group = "input",
    .title = "Type text",
    .description = "Types text as a person would (terminals: newline is Enter). Desktops: focuses "
                   "ref or window first. Keys and chords: press_key.",
    .input_schema = tool_type_text_input_schema,
    .output_schema = tool_type_text_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
};
