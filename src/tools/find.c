/* find: elements by text and role, from the accessibility tree, with OCR
 * words when no element says the text. */
#include "backend/backend.h"
#include "tools/perceive_schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

#include <jansson.h>

static void handle(struct tool_call *call)
{
    const json_t *a = tool_call_args(call);
    if (!json_object_get(a, "text") && !json_object_get(a, "role")) {
        tool_call_fail_code(call, ERROR_INVALID_ARGUMENT,
                            "find needs \"text\" (a name or value to look for), \"role\" "
                            "(such as \"push button\"), or both");
        return;
    }
    screen_call_run(call, BACKEND_OP(find), "find elements", true);
}

const struct tool tool_find = {
    .name = "find",
    .title = "Find elements",
    .description =
        "Finds elements on a desktop by text (a substring of the accessible name or value, "
        "ignoring case; exact: the whole name or value) and/or role (\"push button\", \"text\", "
        "\"check box\", …). Takes a fresh look at the accessibility tree: matches come with refs "
        "for click, type_text and read_text, and refs from earlier snapshots stop working. When "
        "no element matches a text (and no role was given), the screen is read with OCR and the "
        "matching words are returned with their bounds and confidence (no ref: click them with "
        "\"text\" or x/y).",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{" SESSION_PROPERTY ","
        "\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
        "\"description\":\"Text in the element's name or value\"},"
        "\"role\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100,"
        "\"description\":\"AT-SPI role name, e.g. push button, text, label\"},"
        "\"exact\":{\"type\":\"boolean\",\"description\":\"Match the whole name or "
        "value, case-sensitively (default false)\"},"
        "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500,"
        "\"description\":\"At most this many matches (default 20)\"}," PERCEIVE_APP_PROPERTY
        "," PERCEIVE_LANG_PROPERTY "},\"additionalProperties\":false}",
    .output_schema = "{\"type\":\"object\",\"properties\":{"
                     "\"session\":{\"type\":\"string\"},"
                     "\"source\":{\"type\":\"string\",\"enum\":[\"accessibility\",\"ocr\"]},"
                     "\"count\":{\"type\":\"integer\"},\"note\":{\"type\":\"string\"},"
                     "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
                     "\"properties\":{\"ref\":{\"type\":\"string\"},\"role\":{\"type\":"
                     "\"string\"},\"name\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"},"
                     "\"text\":{\"type\":\"string\"},\"states\":{\"type\":\"array\"},"
                     "\"bounds\":" PERCEIVE_BOUNDS_SCHEMA ",\"confidence\":{\"type\":\"number\"},"
                     "\"source\":{\"type\":\"string\"}}}}},"
                     "\"required\":[\"session\",\"source\",\"count\",\"matches\"]}",
    .annotations = {.read_only = true},
    .handler = handle,
};
