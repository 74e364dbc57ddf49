/* What the vnc module (glovebox-vnc.so) exports to the core: libgvnc and
 * GLib's main loop are mapped only once a vnc session starts. */
#include "core/module.h"
#include "backend/vnc/internal.h"

static void finish(void)
{
    vnc_glib_finish();
}

static const struct vnc_api api = {.connect = vnc_connect};

MODULE_EXPORT(vnc, &api, finish);
