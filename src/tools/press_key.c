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
    .description = "Presses a key or chord: \"Enter\" (Return), \"Tab\", \"Escape\" (Esc), "
                   "\"Backspace\", \"Delete\" (Del), \"Up\"/\"Down\"/\"Left\"/\"Right\", "
                   "\"Home\", \"End\", \"PageUp\", \"PageDown\", \"Insert\", \"F1\"…\"F24\", "
                   "\"Space\", a single character, and modifiers joined with +: ctrl, alt "
                   "(option), shift, meta, super (win, cmd), hyper — \"ctrl+c\", \"alt+F4\", "
                   "\"ctrl+shift+t\", \"super+l\". Terminals: encoded as the program expects "
                   "(application cursor and keypad modes respected); meta is alt there, and "
                   "super, hyper and F13-F24 are refused. Desktops: real key events through "
                   "XTEST, modifiers held as their own keys.",
    .input_schema = tool_press_key_input_schema,
    .output_schema = tool_press_key_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
    .confirm_phrase = confirm_phrase,
};
