/* The live viewer's life: created with the HTTP transport, it writes where
 * the server listens for `glovebox view`, runs a sweep once a second
 * (expired and revoked links, the session list, ended sessions) and closes
 * every page at shutdown. */
#define LOG_MODULE "viewer"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "transport/http_internal.h"
#include "viewer/internal.h"
#include "viewer/overlay.h"
#include "viewer/ws.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct viewer *viewer_the;

static void on_sweep(uv_timer_t *timer)
{
    viewer_clients_sweep(timer->data);
}

static void write_url_file(struct viewer *v)
{
    char *err = NULL;
    if (!app_ensure_data_dir(v->app, &err)) {
        log_warn("viewer links cannot be made: %s", err);
        free(err);
        return;
    }
    char *dir = view_links_dir(v->app->data_dir, true, &err);
    if (!dir) {
        log_warn("viewer links cannot be made: %s", err);
        free(err);
        return;
    }
    free(dir);
    json_t *d = http_transport_describe(v->t);
    const char *mcp = json_string_value(json_object_get(d, "url"));
    size_t n = strlen(mcp) - strlen("/mcp"); /* the url ends with /mcp */
    char *path = view_url_path(v->app->data_dir, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        char *line = xasprintf("%.*s\n", (int)n, mcp);
        bool ok = write(fd, line, strlen(line)) == (ssize_t)strlen(line);
        free(line);
        close(fd);
        if (ok) {
            v->url_file = path;
            path = NULL;
        }
    }
    if (path)
        log_warn("cannot write %s: glovebox view will not find this server", path);
    free(path);
    json_decref(d);
}

struct viewer *viewer_create(struct app *app, struct http_transport *t)
{
    struct viewer *v = xcalloc(1, sizeof *v);
    v->app = app;
    v->t = t;
    write_url_file(v);
    uv_timer_init(app->loop, &v->sweep);
    v->sweep.data = v;
    uv_timer_start(&v->sweep, on_sweep, 1000, 1000);
    uv_unref((uv_handle_t *)&v->sweep);
    viewer_the = v;
    viewer_cards_start(v);
    return v;
}

static void maybe_free(struct viewer *v)
{
    if (v->closing || v->clients || v->feeds)
        return;
    viewer_grants_finish(v);
    /* The transport waits for this before it frees itself (viewer_busy). */
    v->t->viewer = NULL;
    free(v);
}

static void sweep_closed(uv_handle_t *h)
{
    struct viewer *v = h->data;
    v->closing--;
    maybe_free(v);
}

void viewer_shutdown(struct viewer *v)
{
    if (!v || v->shut)
        return;
    v->shut = true;
    if (viewer_the == v)
        viewer_the = NULL;
    viewer_cards_stop();
    if (v->url_file) {
        unlink(v->url_file);
        free(v->url_file);
        v->url_file = NULL;
    }
    viewer_clients_close_all(v);
    viewer_feeds_close_all(v);
    overlay_finish();
    viewer_control_finish();
    v->closing++;
    uv_timer_stop(&v->sweep);
    uv_close((uv_handle_t *)&v->sweep, sweep_closed);
}

bool viewer_busy(const struct viewer *v)
{
    return v != NULL;
}

void viewer_release(struct viewer *v)
{
    if (v->shut)
        maybe_free(v);
}

struct session *viewer_session_find(struct viewer *v, const char *id)
{
    for (struct session *s = session_registry_first(v->app->sessions); s; s = s->next)
        if (strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

void viewer_session_output(struct session *s, const char *bytes, size_t len)
{
    struct viewer *v = viewer_the;
    if (!v)
        return;
    static const uint8_t type = 2;
    for (struct view_client *c = v->clients; c; c = c->next) {
        if (!c->terminal || strcmp(c->watching, s->id) != 0 || c->needs_replay)
            continue;
        if (ws_queued(c->ws) > VIEW_BEHIND_BYTES) {
            /* Behind: the bytes it misses are replaced by the screen once
             * it has caught up (the sweep), never queued without bound. */
            c->needs_replay = true;
            continue;
        }
        ws_send2(c->ws, &type, 1, bytes, len);
    }
}

void viewer_session_resized(struct session *s)
{
    struct viewer *v = viewer_the;
    if (!v)
        return;
    for (struct view_client *c = v->clients; c; c = c->next)
        if (c->terminal && strcmp(c->watching, s->id) == 0)
            viewer_send_replay(c, s);
}
