#include "tools/screen_resources.h"

#include "backend/backend.h"
#include "core/app.h"
#include "core/base64.h"
#include "core/check.h"
#include "core/xmalloc.h"
#include "mcp/resources.h"
#include "record/recordings.h"
#include "session/session.h"
#include "tools/screen_guard.h"
#include "tools/tools.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SESSION_PREFIX   "glovebox://session/"
#define RECORDING_PREFIX "glovebox://recording/"
/* Files (recordings, downloads) larger than this are not inlined; the
 * path is on disk. */
#define MAX_INLINE_RECORDING (64u * 1024 * 1024)

static void session_list(struct app *app, const char *owner, json_t *list)
{
    json_t *sessions = session_registry_list(app->sessions, owner, false);
    size_t i;
    json_t *s;
    json_array_foreach(sessions, i, s)
    {
        const char *id = json_string_value(json_object_get(s, "id"));
        char *screen = xasprintf(SESSION_PREFIX "%s/screen", id);
        char *text = xasprintf(SESSION_PREFIX "%s/text", id);
        char *title = xasprintf("%s screen", id);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uri", screen, "name",
                                              screen + strlen("glovebox://"), "title", title,
                                              "mimeType", "image/png"));
        free(title);
        title = xasprintf("%s text", id);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uri", text, "name",
                                              text + strlen("glovebox://"), "title", title,
                                              "mimeType", "text/plain"));
        free(title);
        char *events = xasprintf(SESSION_PREFIX "%s/events", id);
        title = xasprintf("%s events", id);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uri", events, "name",
                                              events + strlen("glovebox://"), "title", title,
                                              "mimeType", "application/json"));
        free(title);
        free(events);
        free(screen);
        free(text);
    }
    json_decref(sessions);
}

/* A session's recent events, as JSON: answered at once (they live in the
 * session, whatever its state). */
static void events_read(struct resource_read *r, struct session *s, const char *uri)
{
    json_t *events = s->events ? json_incref(s->events) : json_array();
    json_t *doc = json_pack("{s:s, s:s, s:o}", "session", s->id, "state",
                            s->state == SESSION_ENDED ? "ended" : "running", "events", events);
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    resource_read_done(r, json_pack("[{s:s, s:s, s:s}]", "uri", uri, "mimeType", "application/json",
                                    "text", text));
    free(text);
}

struct session_read {
    struct backend_call bc;
    struct resource_read *r;
    char *uri;
    bool text;
};

static void read_finished(struct backend_call *bc, struct backend_result *res)
{
    struct session_read *sr = (struct session_read *)bc;
    CHECK(bc->session->in_use > 0);
    bc->session->in_use--;
    if (res->error) {
        resource_read_fail(sr->r, "%s", res->error);
    } else if (sr->text) {
        const char *text = json_string_value(json_object_get(res->data, "text"));
        resource_read_done(sr->r, json_pack("[{s:s, s:s, s:s}]", "uri", sr->uri, "mimeType",
                                            "text/plain", "text", text ? text : ""));
    } else if (res->kind != BACKEND_RESULT_IMAGE) {
        resource_read_fail(sr->r, "the screen of %s gave no image", bc->session->id);
    } else {
        char *b64 = base64_encode(res->bytes, res->len);
        resource_read_done(sr->r, json_pack("[{s:s, s:s, s:s}]", "uri", sr->uri, "mimeType",
                                            res->mime, "blob", b64));
        free(b64);
    }
    json_decref(res->data);
    free(res->bytes);
    free(res->text);
    free(res->error);
    free(res->uri);
    json_decref((json_t *)sr->bc.args);
    screen_guard_release(sr->bc.guard);
    free(sr->uri);
    free(sr);
}

static void read_when_live(struct session *s, void *ud)
{
    struct session_read *sr = ud;
    if (!s->was_live) {
        resource_read_fail(sr->r, "session %s did not start (%s)", s->id,
                           s->end_reason ? s->end_reason : "stopped");
        json_decref((json_t *)sr->bc.args);
        screen_guard_release(sr->bc.guard);
        free(sr->uri);
        free(sr);
        return;
    }
    backend_op op = sr->text ? s->impl->read_text : s->impl->capture;
    s->in_use++;
    op(&sr->bc);
}

static void session_read(struct resource_read *r, const char *uri)
{
    const char *rest = uri + strlen(SESSION_PREFIX);
    const char *slash = strchr(rest, '/');
    if (!slash || (strcmp(slash, "/screen") != 0 && strcmp(slash, "/text") != 0 &&
                   strcmp(slash, "/events") != 0)) {
        resource_read_not_found(
            r, "Resource not found: %s (expected " SESSION_PREFIX "{id}/screen, /text or /events)",
            uri);
        return;
    }
    char *id = xstrndup(rest, (size_t)(slash - rest));
    struct app *app = resource_read_app(r);
    char *err = NULL;
    struct session *s = session_resolve(app->sessions, resource_read_owner(r), id, &err);
    free(id);
    if (!s) {
        resource_read_not_found(r, "Resource not found: %s", err);
        free(err);
        return;
    }
    if (strcmp(slash, "/events") == 0) {
        events_read(r, s, uri);
        return;
    }
    bool text = strcmp(slash, "/text") == 0;
    backend_op op = text ? s->impl->read_text : s->impl->capture;
    if (!op) {
        resource_read_not_found(r, "Resource not found: %s sessions have no %s", s->impl->kind,
                                text ? "text" : "screen image");
        return;
    }
    struct session_read *sr = xcalloc(1, sizeof *sr);
    sr->r = r;
    sr->uri = xstrdup(uri);
    sr->text = text;
    sr->bc.session = s;
    sr->bc.args = json_object();
    sr->bc.app = app;
    /* The screen image is redacted as the screenshot tool's is. */
    sr->bc.guard = screen_guard_for(app->policy);
    sr->bc.owner = sr;
    sr->bc.finish = read_finished;
    /* A session still starting has no backend to read yet: wait for it
     * (bounded by the start's own time limit). */
    session_when_live(s, read_when_live, sr);
}

/* The text view shows what read_text shows, the screen image what
 * screenshot shows, the events what window_list shows (window titles and
 * focus; a program's exit): a policy that denies those tools denies these
 * reads. A URI of none of these shapes still takes read_text's permission,
 * so that even its "not found" answer is gated. */
static const struct tool *session_permission(const char *uri, json_t *args)
{
    const char *rest = uri + strlen(SESSION_PREFIX);
    const char *slash = strchr(rest, '/');
    json_object_set_new(args, "session",
                        json_stringn(rest, slash ? (size_t)(slash - rest) : strlen(rest)));
    if (slash && strcmp(slash, "/screen") == 0)
        return &tool_screenshot;
    if (slash && strcmp(slash, "/events") == 0)
        return &tool_window_list;
    return &tool_read_text;
}

/* The session id in a session URI (caller frees). */
static char *uri_session(const char *uri)
{
    const char *rest = uri + strlen(SESSION_PREFIX);
    const char *slash = strchr(rest, '/');
    return xstrndup(rest, slash ? (size_t)(slash - rest) : strlen(rest));
}

/* Only a client that may reach the session hears about its changes. */
static bool session_reachable(struct app *app, const char *owner, const char *uri)
{
    char *id = uri_session(uri);
    char *err = NULL;
    struct session *s = session_resolve(app->sessions, owner, id, &err);
    free(err);
    free(id);
    return s != NULL;
}

static const struct resource_provider session_provider = {
    .uri_template = SESSION_PREFIX "{id}/{view}",
    .prefix = SESSION_PREFIX,
    .name = "session",
    .description = "A session: {view} is \"screen\" (a PNG rendered when read), \"text\" "
                   "(the screen as text) or \"events\" (its recent events as JSON: windows "
                   "opened, closed and focused, the program's exit, the session's end); each "
                   "can be subscribed to",
    .mime_type = "image/png",
    .list = session_list,
    .read = session_read,
    .subscribable = true,
    .permission = session_permission,
    .reachable = session_reachable,
};

/* The views of s a change touches, as URIs (up to 3; caller frees each). */
static int changed_uris(const struct session *s, unsigned what, char *uris[3])
{
    int n = 0;
    if (what & SESSION_CHANGED_SCREEN) {
        uris[n++] = xasprintf(SESSION_PREFIX "%s/screen", s->id);
        uris[n++] = xasprintf(SESSION_PREFIX "%s/text", s->id);
    }
    if (what & SESSION_CHANGED_EVENTS)
        uris[n++] = xasprintf(SESSION_PREFIX "%s/events", s->id);
    return n;
}

static bool session_watched(struct session *s, unsigned what, void *ud)
{
    (void)ud;
    char *uris[3];
    int n = changed_uris(s, what, uris);
    bool any = false;
    for (int i = 0; i < n; i++) {
        any = any || resources_watched(uris[i]);
        free(uris[i]);
    }
    return any;
}

static void session_changed_cb(struct session *s, unsigned what, void *ud)
{
    (void)ud;
    char *uris[3];
    int n = changed_uris(s, what, uris);
    for (int i = 0; i < n; i++) {
        resources_updated(uris[i]);
        free(uris[i]);
    }
}

/* A look at a screen that reports no changes of its own (VNC, browsers):
 * its capture, hashed and compared with the previous look. */
struct session_sample {
    struct backend_call bc;
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void sample_finished(struct backend_call *bc, struct backend_result *res)
{
    struct session *s = bc->session;
    CHECK(s->in_use > 0);
    s->in_use--;
    s->sampling = false;
    if (!res->error && res->kind == BACKEND_RESULT_IMAGE && res->bytes) {
        uint64_t h = fnv1a(res->bytes, res->len);
        if (s->sample_have && h != s->sample_hash)
            session_changed(s, SESSION_CHANGED_SCREEN);
        s->sample_hash = h;
        s->sample_have = true;
    }
    json_decref(res->data);
    free(res->bytes);
    free(res->text);
    free(res->error);
    free(res->uri);
    json_decref((json_t *)bc->args);
    free(bc);
}

static void session_sample_cb(struct session *s, void *ud)
{
    (void)ud;
    struct session_sample *ss = xcalloc(1, sizeof *ss);
    ss->bc.session = s;
    ss->bc.args = json_object();
    ss->bc.app = session_registry_app(s->registry);
    /* Only compared, never shown: nothing to paint over. */
    ss->bc.guard = &screen_guard_none;
    ss->bc.owner = ss;
    ss->bc.finish = sample_finished;
    s->sampling = true;
    s->in_use++;
    (s->impl->sample ? s->impl->sample : s->impl->capture)(&ss->bc);
}

static const struct session_observer observer = {
    .watched = session_watched,
    .changed = session_changed_cb,
    .sample = session_sample_cb,
};

const struct session_observer *screen_resources_observer(void)
{
    return &observer;
}

static void recording_list(struct app *app, const char *owner, json_t *list)
{
    (void)owner;
    for (size_t i = 0; i < recordings_count(); i++) {
        const struct recording_info *info = recordings_at(i);
        char *uri = xasprintf(RECORDING_PREFIX "%s", info->id);
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:s, s:I}", "uri", uri, "name", info->id,
                                        "mimeType", info->mime, "size", (json_int_t)info->bytes));
        free(uri);
    }
}

/* A recording's file is read and encoded on the worker pool: it can be
 * tens of MiB, and the loop keeps serving meanwhile. */
struct recording_load {
    uv_work_t work;
    struct resource_read *r;
    char *uri, *id, *path;
    const char *mime; /* static */
    char *b64, *err;
};

static void load_run(uv_work_t *work)
{
    struct recording_load *l = work->data;
    FILE *f = fopen(l->path, "rb");
    if (!f) {
        l->err = xasprintf("cannot read %s: %s", l->path, strerror(errno));
        return;
    }
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    rewind(f);
    if (size < 0 || (unsigned long)size > MAX_INLINE_RECORDING) {
        fclose(f);
        l->err = xasprintf("%s is too large to send inline (%ld bytes); read it from %s", l->id,
                           size, l->path);
        return;
    }
    uint8_t *data = xmalloc((size_t)size + 1);
    size_t got = fread(data, 1, (size_t)size, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed)
        l->err = xasprintf("cannot read %s: %s", l->path, strerror(errno));
    else
        l->b64 = base64_encode(data, got);
    free(data);
}

static void load_done(uv_work_t *work, int status)
{
    (void)status;
    struct recording_load *l = work->data;
    if (l->b64)
        resource_read_done(l->r, json_pack("[{s:s, s:s, s:s}]", "uri", l->uri, "mimeType", l->mime,
                                           "blob", l->b64));
    else
        resource_read_fail(l->r, "%s", l->err ? l->err : "the read was cancelled");
    free(l->uri);
    free(l->id);
    free(l->path);
    free(l->b64);
    free(l->err);
    free(l);
}

void screen_resources_read_file(struct resource_read *r, const char *uri, const char *name,
                                const char *path, const char *mime)
{
    struct recording_load *l = xcalloc(1, sizeof *l);
    l->r = r;
    l->uri = xstrdup(uri);
    l->id = xstrdup(name);
    l->path = xstrdup(path);
    l->mime = mime;
    l->work.data = l;
    uv_queue_work(resource_read_app(r)->loop, &l->work, load_run, load_done);
}

static void recording_read(struct resource_read *r, const char *uri)
{
    const struct recording_info *info = recordings_find(uri + strlen(RECORDING_PREFIX));
    if (!info) {
        resource_read_not_found(r, "Resource not found: %s (no such recording)", uri);
        return;
    }
    screen_resources_read_file(r, uri, info->id, info->path, info->mime);
}

/* A recording is what record_stop hands over (its link points here). */
static const struct tool *recording_permission(const char *uri, json_t *args)
{
    (void)uri;
    (void)args;
    return &tool_record_stop;
}

static const struct resource_provider recording_provider = {
    .uri_template = RECORDING_PREFIX "{id}",
    .prefix = RECORDING_PREFIX,
    .name = "recording",
    .description = "A finished recording: an animated GIF, an animated WebP or a WebM video "
                   "(the mimeType of each listed recording says which)",
    .mime_type = "image/gif",
    .list = recording_list,
    .read = recording_read,
    .permission = recording_permission,
};

void screen_resources_register(void)
{
    resources_add(&session_provider);
    resources_add(&recording_provider);
}
