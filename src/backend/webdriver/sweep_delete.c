/* Deleting the orphans of a server that died (sweep.c): one DELETE
 * /session/{id} a row, with the endpoint's credentials from the variable
 * the row names, on a client of its own; each outcome logged as a warning
 * (a server died: someone should know what it left and what became of it). */
#define LOG_MODULE "webdriver"
#include "backend/webdriver/http.h"
#include "backend/webdriver/internal.h"
#include "backend/webdriver/url.h"

#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"

#include <stdlib.h>
#include <string.h>

#define SWEEP_TIMEOUT_MS 15000

struct sweep {
    struct wd_http *http;
    int pending;
};

struct orphan {
    struct sweep *sw;
    char *what; /* "remote session X on Y (left by session Z)", for the log */
};

static void deleted(void *ud, const struct wd_http_response *r)
{
    struct orphan *o = ud;
    struct sweep *sw = o->sw;
    if (r->error)
        log_warn("cannot delete %s: %s", o->what, r->error);
    else if (r->status == 200)
        log_warn("deleted %s", o->what);
    else if (r->status == 404)
        log_warn("%s had ended already", o->what);
    else
        log_warn("deleting %s: the endpoint answered HTTP %ld", o->what, r->status);
    free(o->what);
    free(o);
    if (--sw->pending == 0) {
        wd_http_destroy(sw->http);
        free(sw);
    }
}

void wd_sweep(struct app *app, const json_t *rows)
{
    struct sweep *sw = xcalloc(1, sizeof *sw);
    sw->http = wd_http_create(app->loop);
    sw->pending = 1; /* this function's own, until every request is out */
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row)
    {
        const char *endpoint = json_string_value(json_object_get(row, "endpoint"));
        const char *remote = json_string_value(json_object_get(row, "remote"));
        const char *env = json_string_value(json_object_get(row, "credentials_env"));
        if (!endpoint || !remote || !*endpoint || !*remote)
            continue;
        char *err = NULL;
        char *url = env ? wd_url_with_env_credentials("credentials_env", endpoint, env, &err)
                        : xstrdup(endpoint);
        char *what = xasprintf("remote session %s on %s (left by %s of a server that died)", remote,
                               endpoint, json_string_value(json_object_get(row, "id")));
        if (!url) {
            log_warn("cannot delete %s: %s", what, err);
            free(err);
            free(what);
            continue;
        }
        struct orphan *o = xcalloc(1, sizeof *o);
        o->sw = sw;
        o->what = what;
        sw->pending++;
        char *full = xasprintf("%s/session/%s", url, remote);
        wd_http_request(sw->http, "DELETE", full, NULL, SWEEP_TIMEOUT_MS, deleted, o);
        free(full);
        free(url);
    }
    if (--sw->pending == 0) {
        wd_http_destroy(sw->http);
        free(sw);
    }
}
