/* What the desktop module (glovebox-desktop.so) exports to the core. */
#include "core/module.h"
#include "backend/desktop/desktop.h"

static const struct desktop_api api = {.start = desktop_start, .launch = desktop_launch};

MODULE_EXPORT(desktop, &api, NULL);
