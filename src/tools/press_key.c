/* press_key: named keys and chords. */
#include "backend/backend.h"
#include "mcp/confirm.h"
#include "press_key.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(press_key), "press keys", true);
}

static bool confirm_phrase(struct strbuf *q, const json_t *args)
{
    const json_t *key = json_object_get(args, "key");
    if (!json_is_string(key))
        return false;
    strbuf_puts(q, "press ");
    confirm_quote_json(q, key, 64);
    json_int_t repeat = json_integer_value(json_object_get(args, "repeat"));
    if (repeat > 1)
        strbuf_printf(q, " %" JSON_INTEGER_FORMAT " times", repeat);
    confirm_session_phrase(q, args, "in");
    return true;
}

const struct tool tool_press_key = {
    .name = "press_key",
    .group = "input",
    .title = "Press a key",
    .description = "Presses a key or chord: Enter, Tab, Escape, Backspace, Up, PageDown, F5, a "
                   "character, with ctrl, alt, shift or super joined by + (ctrl+shift+t).",
    .input_schema = tool_press_key_input_schema,
    .output_schema = tool_press_key_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
};
