/* Remote sessions a server that died left on WebDriver endpoints (farms
 * bill a device until its session ends): at the next start the session
 * table lists them, and they are deleted here. The front half: it loads
 * the module only when there is something to delete. */
#define LOG_MODULE "webdriver"
#include "backend/backend.h"
#include "backend/webdriver/webdriver.h"
#include "core/log.h"

#include <stdlib.h>

void webdriver_sweep_orphans(struct app *app, const json_t *rows)
{
    char *err = NULL;
    const struct webdriver_api *wd = backend_load("webdriver", &err);
    if (!wd) {
        log_warn("%zu remote WebDriver session(s) of a server that died are left: %s",
                 json_array_size(rows), err);
        free(err);
        return;
    }
    wd->sweep(app, rows);
}
