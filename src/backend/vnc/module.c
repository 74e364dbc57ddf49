/* What the vnc module (glovebox-vnc.so) exports to the core: GLib's main
 * loop is mapped only once a vnc session starts, and libgvnc never in the
 * server: it runs in each connection's own process (glovebox-vnc-worker). */
#include "core/module.h"
#include "backend/vnc/internal.h"

static void finish(void)
{
    vnc_glib_finish();
}

static const struct vnc_api api = {.connect = vnc_connect};

MODULE_EXPORT(vnc, &api, finish);
