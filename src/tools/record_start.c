/* record_start: begin recording a session. */
#include "backend/backend.h"
#include "record_start.schema.h"
#include "tools/screen_call.h"
#include "tools/tools.h"

static void handle(struct tool_call *call)
{
    screen_call_run(call, BACKEND_OP(record_start), "record", true);
}

const struct tool tool_record_start = {
    .name = "record_start",
    .group = "recording",
    .title = "Start recording",
    .description = "Starts recording the session: terminals take a frame on each change of "
                   "the screen, desktops sample it fps times a second (default 5, at most 30) "
                   "and keep a frame only when it changed. format: \"gif\" (default), "
                   "\"webp\" (animated WebP) or \"webm\" (VP9 video, for long recordings). "
                   "record_stop writes the file. A recording survives the program exiting; "
                   "a session stopped while recording has its recording written and listed "
                   "as a resource. webm is encoded while recording (flat memory); its max_bytes "
                   "is the file's size. It stops by itself, keeping what it has, when its "
                   "frames hold max_bytes (default 64 MiB; webm: the file reaches it) or it is "
                   "max_duration_s long (default and most 3600); record_stop then writes it and "
                   "says why in stopped_reason.",
    .input_schema = tool_record_start_input_schema,
    .output_schema = tool_record_start_output_schema,
    .annotations = {.read_only = false, .destructive = false, .idempotent = false},
    .handler = handle,
};
