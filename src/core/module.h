/* Parts of glovebox built as shared modules (glovebox-<name>.so) and loaded
 * by name on first use, so their libraries (X11, GLib, Tesseract, …) are
 * mapped only when something needs them. The executable exports its symbols
 * (meson export_dynamic), so a module calls back into the core directly.
 *
 * Where a module is looked for: $GLOVEBOX_MODULE_DIR alone when set; else
 * the directory of the running executable (the build tree), then the
 * installed module directory (GLOVEBOX_MODULE_DIR_DEFAULT, libdir/glovebox).
 * A program that links a module's code in directly (unit tests, fuzzers)
 * gets that copy and loads nothing. Modules are never unloaded. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Raised whenever struct module_info or any module's api changes shape: a
 * module from another build is refused instead of crashing. */
#define MODULE_ABI 1

/* The one symbol a module exports, named glovebox_module_<name>. */
struct module_info {
    uint32_t abi;         /* MODULE_ABI */
    const char *name;     /* "terminal": the file is glovebox-terminal.so */
    const void *api;      /* what the module offers; its header says the type */
    void (*finish)(void); /* free what it keeps for the process; at exit; NULL ok */
};

/* Declares a module's export: MODULE_EXPORT(terminal, &api, finish). */
#define MODULE_EXPORT(name_, api_, finish_)                                                        \
    const struct module_info glovebox_module_##name_ = {                                           \
        .abi = MODULE_ABI, .name = #name_, .api = (api_), .finish = (finish_)}

/* The api of module name, loading it on first use. NULL with *err (malloc'd,
 * for the user: the file looked for and dlerror()'s reason) when it cannot be
 * loaded; asked again, it tries again. Any thread. */
const void *module_get(const char *name, char **err);
/* Whether glovebox-<name>.so is where module_get would look (or the module
 * is linked in), without loading it: what glovebox doctor reports. */
bool module_installed(const char *name);
/* Whether module name is loaded (or linked in) already. Any thread. */
bool module_loaded(const char *name);
/* Calls every loaded module's finish, last loaded first. At exit. */
void module_finish_all(void);
