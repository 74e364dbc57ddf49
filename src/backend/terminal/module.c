/* What the terminal module (glovebox-terminal.so) exports to the core. */
#include "core/module.h"
#include "backend/terminal/terminal.h"

static const struct terminal_api api = {.start = terminal_start};

MODULE_EXPORT(terminal, &api, terminal_release_shared);
