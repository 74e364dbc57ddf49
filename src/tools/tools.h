/* Every MCP tool glovebox offers. One file per tool; this header and
 * tools.c list them in the order tools/list shows them. */
#pragma once
#include "mcp/tool.h"

/* sessions (the tools that start each kind are in its folder, listed by
 * backend/kinds.c) */
extern const struct tool tool_session_list;
extern const struct tool tool_session_stop;
/* In src/viewer/ (the live viewer's overlays). */
extern const struct tool tool_overlay_draw;
extern const struct tool tool_overlay_remove;
extern const struct tool tool_overlay_clear;
extern const struct tool tool_resize;
/* perceive */
extern const struct tool tool_screenshot;
extern const struct tool tool_snapshot;
extern const struct tool tool_read_text;
extern const struct tool tool_find;
extern const struct tool tool_element_at;
extern const struct tool tool_inspect;
extern const struct tool tool_window_list;
/* act */
extern const struct tool tool_type_text;
extern const struct tool tool_press_key;
extern const struct tool tool_click;
extern const struct tool tool_drag;
extern const struct tool tool_scroll;
extern const struct tool tool_set_value;
extern const struct tool tool_scroll_to;
extern const struct tool tool_hover;
extern const struct tool tool_computer;
extern const struct tool tool_window_manage;
extern const struct tool tool_clipboard_get;
extern const struct tool tool_clipboard_set;
/* sync */
extern const struct tool tool_wait_for;
/* record */
extern const struct tool tool_record_start;
extern const struct tool tool_record_stop;
/* server */
extern const struct tool tool_status;
extern const struct tool tool_set_mode;

/* Register all tools and the resource providers. */
void tools_register_all(void);
