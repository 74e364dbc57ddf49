/* wait_for {control: "agent"} (wait_control.c): until the person who took
 * the session over in the live viewer hands it back. */
#pragma once

struct tool_call;
void wait_control_run(struct tool_call *call);
