/* What the webdriver module (glovebox-webdriver.so) exports to the core:
 * libcurl is mapped only once a webdriver session starts. */
#include "core/module.h"
#include "backend/webdriver/internal.h"

#include <curl/curl.h>
#include <stdbool.h>

static bool curl_ready;

/* On the loop thread, before any request: libcurl's global set-up is not
 * thread-safe, and nothing else in glovebox uses libcurl. */
static void curl_start(void)
{
    if (!curl_ready) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        curl_ready = true;
    }
}

static void connect_(struct app *app, const struct webdriver_options *o,
                     webdriver_connected_fn done, void *ud)
{
    curl_start();
    wd_connect(app, o, done, ud);
}

static void sweep(struct app *app, const json_t *rows)
{
    curl_start();
    wd_sweep(app, rows);
}

static void finish(void)
{
    if (curl_ready)
        curl_global_cleanup();
    curl_ready = false;
}

static const struct webdriver_api api = {.connect = connect_, .sweep = sweep};

MODULE_EXPORT(webdriver, &api, finish);
