#include "tools/tools.h"

#include "backend/backend.h"
#include "core/xmalloc.h"
#include "mcp/registry.h"
#include "mcp/resources.h"
#include "recipe/tools.h"
#include "tools/screen_resources.h"

#include <stdlib.h>

void tools_register_all(void)
{
    /* Sessions first, then perception, action, sync, recording, server: the
     * order a model meets them in tools/list. */
    int n;
    const struct backend_kind *k = backend_kinds(&n);
    for (int i = 0; i < n; i++) {
        for (const struct tool *const *t = k[i].tools; t && *t; t++)
            registry_add(*t);
        for (const struct resource_provider *const *r = k[i].resources; r && *r; r++)
            resources_add(*r);
        if (k[i].module || !k[i].tool_names)
            continue;
        char *why = xasprintf("a tool of %s sessions, which this build was configured without "
                              "(meson -D%s=disabled)",
                              k[i].kind, k[i].kind);
        for (const char *const *name = k[i].tool_names; name && *name; name++)
            registry_add_absent(*name, why);
        free(why);
    }
    registry_add(&tool_session_list);
    registry_add(&tool_session_stop);
    registry_add(&tool_resize);
    registry_add(&tool_screenshot);
    registry_add(&tool_snapshot);
    registry_add(&tool_read_text);
    registry_add(&tool_find);
    registry_add(&tool_element_at);
    registry_add(&tool_inspect);
    registry_add(&tool_window_list);
    registry_add(&tool_type_text);
    registry_add(&tool_press_key);
    registry_add(&tool_click);
    registry_add(&tool_drag);
    registry_add(&tool_scroll);
    registry_add(&tool_scroll_to);
    registry_add(&tool_hover);
    registry_add(&tool_set_value);
    registry_add(&tool_computer);
    registry_add(&tool_window_manage);
    registry_add(&tool_clipboard_get);
    registry_add(&tool_clipboard_set);
    registry_add(&tool_wait_for);
    registry_add(&tool_record_start);
    registry_add(&tool_record_stop);
    registry_add(&tool_status);
    registry_add(&tool_set_mode);
    recipe_register();
    registry_add(&tool_overlay_draw);
    registry_add(&tool_overlay_remove);
    registry_add(&tool_overlay_clear);
    screen_resources_register();
}
