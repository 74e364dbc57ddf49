/* RandR monitors (monitors.h). Xvfb has RandR 1.5: one monitor covering
 * the screen unless more are made (xrandr --setmonitor). */
#include "backend/desktop/monitors.h"

#include "core/xmalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <xcb/randr.h>

json_t *desktop_monitors(xcb_connection_t *c, xcb_window_t root, char **err)
{
    json_t *list = json_array();
    const xcb_query_extension_reply_t *ext = xcb_get_extension_data(c, &xcb_randr_id);
    if (!ext || !ext->present)
        return list;
    xcb_randr_query_version_reply_t *ver =
        xcb_randr_query_version_reply(c, xcb_randr_query_version(c, 1, 5), NULL);
    bool has_monitors =
        ver && (ver->major_version > 1 || (ver->major_version == 1 && ver->minor_version >= 5));
    free(ver);
    if (!has_monitors)
        return list;
    xcb_randr_get_monitors_reply_t *r =
        xcb_randr_get_monitors_reply(c, xcb_randr_get_monitors(c, root, 1), NULL);
    if (!r) {
        json_decref(list);
        *err = xstrdup(xcb_connection_has_error(c) ? "the X connection broke"
                                                   : "RandR GetMonitors failed");
        return NULL;
    }
    int i = 0;
    for (xcb_randr_monitor_info_iterator_t it = xcb_randr_get_monitors_monitors_iterator(r); it.rem;
         xcb_randr_monitor_info_next(&it), i++) {
        xcb_randr_monitor_info_t *m = it.data;
        json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:i, s:b}", "index", i, "x", m->x, "y", m->y,
                              "width", m->width, "height", m->height, "primary", m->primary);
        xcb_get_atom_name_reply_t *name =
            xcb_get_atom_name_reply(c, xcb_get_atom_name(c, m->name), NULL);
        if (name) {
            json_object_set_new(o, "name",
                                json_stringn(xcb_get_atom_name_name(name),
                                             (size_t)xcb_get_atom_name_name_length(name)));
            free(name);
        }
        json_array_append_new(list, o);
    }
    free(r);
    return list;
}
