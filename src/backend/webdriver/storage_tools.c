/* storage_save and storage_load: a browser session's login kept in the
 * data folder and put back into a later session (storage.c does it); and
 * upload_file, a file of this machine put into a page's file input, where
 * the policy lists it (rules.upload_file.paths). */
#include "backend/backend.h"
#include "backend/webdriver/webdriver.h"
#include "storage_load.schema.h"
#include "storage_save.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"
#include "upload_file.schema.h"

static void save(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(storage_save), "save the browser's storage", true);
}

static void load(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(storage_load), "load the browser's storage", true);
}

const struct tool tool_storage_save = {
    .name = "storage_save",
    .title = "Save a browser login",
    .description = "Saves the page's cookies and its site's localStorage under a name in the "
                   "data folder, for storage_load in a later browser session.",
    .input_schema = tool_storage_save_input_schema,
    .output_schema = tool_storage_save_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = false},
    .handler = save,
    .group = "webdriver",
};

const struct tool tool_storage_load = {
    .name = "storage_load",
    .title = "Load a browser login",
    .description = "Puts cookies and localStorage saved by storage_save back into a browser "
                   "session whose page is on the same site; reload the page after.",
    .input_schema = tool_storage_load_input_schema,
    .output_schema = tool_storage_load_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = false},
    .handler = load,
    .group = "webdriver",
};

static void upload(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(upload_file), "upload a file", true);
}

static const struct tool_rule_args upload_rules = {.path = "path"};

const struct tool tool_upload_file = {
    .name = "upload_file",
    .title = "Upload a file into a page",
    .description = "Puts a file of this machine into a page's file input (a ref), where the "
                   "policy allows the file (rules.upload_file.paths).",
    .input_schema = tool_upload_file_input_schema,
    .output_schema = tool_upload_file_output_schema,
    .annotations = {.read_only = false, .destructive = false, .open_world = true},
    .handler = upload,
    .rule_args = &upload_rules,
    .group = "webdriver",
};
