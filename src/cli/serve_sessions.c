/* Rows of the session table from the registry's sessions. */
#define LOG_MODULE "serve"
#include "cli/serve_sessions.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/log.h"
#include "core/xmalloc.h"
#include "session/session.h"
#include "store/audit_db.h"
#include "store/session_table.h"

#include <stdio.h>
#include <string.h>

/* Which front door started it, from the owner the registry keeps. */
static const char *front_door(const struct session *s)
{
    if (!s->owner)
        return "mcp"; /* a stateless /mcp request */
    if (strcmp(s->owner, SESSION_OWNER_REST) == 0)
        return "rest";
    if (strncmp(s->owner, "connection-", 11) == 0)
        return "stdio";
    return "mcp";
}

static const char *const state_names[] = {"starting", "live", "stopping", "ended"};

/* Where the session's screen is, as describe() tells it, without
 * credentials, and its size in pixels (glovebox computer-spec --session
 * reads it). */
static void endpoint_of(struct session *s, char *out, size_t cap, struct session_row *row)
{
    out[0] = '\0';
    if (!s->impl->describe || !s->backend || !s->was_live || s->state == SESSION_ENDED)
        return;
    json_t *d = s->impl->describe(s);
    /* Something remote glovebox must delete if this server dies first (a
     * farm's session it created; not one it attached to, nor one whose
     * endpoint it owns and ends anyway). */
    const char *remote = json_string_value(json_object_get(d, "remote_session"));
    if (remote && json_is_false(json_object_get(d, "owned")) &&
        !json_is_true(json_object_get(d, "attached"))) {
        snprintf(row->remote, sizeof row->remote, "%s", remote);
        const char *env = json_string_value(json_object_get(d, "credentials_env"));
        snprintf(row->credentials_env, sizeof row->credentials_env, "%s", env ? env : "");
    }
    json_int_t w = json_integer_value(json_object_get(d, "width"));
    json_int_t h = json_integer_value(json_object_get(d, "height"));
    if (w > 0 && h > 0 && w <= 65535 && h <= 65535) {
        row->width = (int)w;
        row->height = (int)h;
    }
    static const char *const keys[] = {"url", "endpoint", "display", "serial", "address"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !out[0]; i++) {
        const char *v = json_string_value(json_object_get(d, keys[i]));
        if (v)
            session_table_clean_endpoint(v, out, cap);
    }
    json_decref(d);
}

static void changed(void *ud, struct session *s)
{
    struct app *app = ud;
    struct session_table *t = app->session_table;
    const struct session_row *old = session_table_find(t, s->id);
    struct session_row row;
    int64_t now = audit_now_ms();
    if (old) {
        row = *old;
    } else {
        memset(&row, 0, sizeof row);
        snprintf(row.id, sizeof row.id, "%s", s->id);
        snprintf(row.kind, sizeof row.kind, "%s", s->impl->kind);
        snprintf(row.name, sizeof row.name, "%s", s->name ? s->name : "");
        snprintf(row.owner, sizeof row.owner, "%s", front_door(s));
        row.shared = s->shared;
        row.created_ms = now;
    }
    row.last_activity_ms = now;
    snprintf(row.state, sizeof row.state, "%s", state_names[s->state]);
    if (s->state == SESSION_ENDED) {
        row.ended_ms = now;
        /* A server that stops ends its sessions the way a killed one's are
         * found at the next start: server_exit. */
        snprintf(row.end_reason, sizeof row.end_reason, "%s",
                 app->shutting_down ? "server_exit"
                 : s->end_reason    ? s->end_reason
                                    : "");
    } else {
        char ep[sizeof row.endpoint];
        endpoint_of(s, ep, sizeof ep, &row);
        if (ep[0])
            memcpy(row.endpoint, ep, sizeof ep);
    }
    session_table_put(t, &row);
}

void serve_sessions_start(struct app *app)
{
    char *err = NULL;
    char *path = xasprintf("%s/sessions.db", app->data_dir);
    app->session_table = session_table_open(app->loop, path, &err);
    free(path);
    if (!app->session_table) {
        log_warn("no session table: %s", err);
        free(err);
        return;
    }
    session_registry_listen(app->sessions, changed, app);
    /* What a server that died left running elsewhere goes now. */
    backend_sweep_orphans(app, session_table_orphans(app->session_table));
}

void serve_sessions_finish(struct app *app)
{
    session_table_close(app->session_table);
    app->session_table = NULL;
}
